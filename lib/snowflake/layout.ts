/** Snowflake's bit layout, every shift and mask from it (as sonyflake): 41 ms | 10 worker | 12 sequence. */
export const BITS_TIME = 41;
export const BITS_WORKER = 10;
export const BITS_SEQUENCE = 12;

export const MAX_WORKER_ID = (1 << BITS_WORKER) - 1; // 1023
export const MAX_SEQUENCE = (1 << BITS_SEQUENCE) - 1; // 4095
/** Largest timestamp offset that fits: about 69.7 years after the epoch. */
export const MAX_TIME_OFFSET = 2 ** BITS_TIME - 1;

const WORKER_SHIFT = BigInt(BITS_SEQUENCE);
const TIME_SHIFT = BigInt(BITS_SEQUENCE + BITS_WORKER);
const SEQUENCE_MASK = BigInt(MAX_SEQUENCE);
const WORKER_MASK = BigInt(MAX_WORKER_ID);
export const MAX_SNOWFLAKE = (1n << 63n) - 1n;

/** Default epoch: 2026-01-01T00:00:00Z. */
export const DEFAULT_EPOCH_MS = Date.UTC(2026, 0, 1);

/** Leaf's (Twitter's) epoch, 2010-11-04T01:42:54.657Z: with it, Leaf's IDs and ours share one number line. */
export const LEAF_EPOCH_MS = 1_288_834_974_657;

/** The ID's high part for one millisecond and worker; add the sequence to it. */
export function composeBase(timeOffset: number, workerId: number): bigint {
  return (BigInt(timeOffset) << TIME_SHIFT) | (BigInt(workerId) << WORKER_SHIFT);
}

export function compose(timeOffset: number, workerId: number, sequence: number): bigint {
  return composeBase(timeOffset, workerId) | BigInt(sequence);
}

export interface DecodedSnowflake {
  /** Milliseconds since the Unix epoch. */
  timestampMs: number;
  workerId: number;
  sequence: number;
}

export function decompose(id: bigint, epochMs: number): DecodedSnowflake {
  return {
    timestampMs: Number(id >> TIME_SHIFT) + epochMs,
    workerId: Number((id >> WORKER_SHIFT) & WORKER_MASK),
    sequence: Number(id & SEQUENCE_MASK),
  };
}
