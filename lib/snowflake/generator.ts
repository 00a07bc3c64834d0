import { type Clock, systemClock } from '../clock';
import { LeafError } from '../errors';
import { floorTimestampMs } from './floor';
import { MAX_SEQUENCE, MAX_TIME_OFFSET, MAX_WORKER_ID, composeBase } from './layout';

export interface SnowflakeGeneratorOptions {
  workerId: number;
  /** Milliseconds since the Unix epoch; must not be in the future. */
  epochMs: number;
  clock?: Clock;
  /** Uniform in [0, 1): picks each millisecond's first sequence. */
  random?: () => number;
  /** A clock step back up to this many ms is waited out; more is refused. Leaf: 5. */
  maxBackwardWaitMs?: number;
  /** Highest timestamp this worker id may already have used (from its lease row): IDs start after it. */
  lastTimestampMs?: number;
  /** The floor: only milliseconds after its own, also after a clock step back. */
  minId?: bigint | null;
  /** No ID may carry a timestamp at or past this (the lease reservation); `extendUntil` moves it. */
  issueUntilMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

/** Each millisecond's sequence starts below this, as Leaf does, so low bits spread over shards. */
const RANDOM_SEQUENCE_START = 100;

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** One worker id's IDs: synchronous while the clock moves on, a promise only when it must wait; never at or below the last. */
export class SnowflakeGenerator {
  readonly workerId: number;
  readonly epochMs: number;
  private readonly clock: Clock;
  private readonly random: () => number;
  private readonly maxBackwardWaitMs: number;
  private readonly sleep: (ms: number) => Promise<void>;
  private lastMs: number;
  private sequence = MAX_SEQUENCE;
  private base = 0n;
  private issueUntilMs: number;
  private retired = false;

  constructor(options: SnowflakeGeneratorOptions) {
    const clock = options.clock ?? systemClock;
    validate(options.workerId, options.epochMs, clock.now());
    this.workerId = options.workerId;
    this.epochMs = options.epochMs;
    this.clock = clock;
    this.random = options.random ?? Math.random;
    this.maxBackwardWaitMs = options.maxBackwardWaitMs ?? 5;
    this.sleep = options.sleep ?? defaultSleep;
    const floorMs = options.minId == null ? -1 : floorTimestampMs(options.minId, options.epochMs);
    this.lastMs = Math.max(options.lastTimestampMs ?? 0, options.epochMs - 1, floorMs);
    this.issueUntilMs = options.issueUntilMs ?? Number.POSITIVE_INFINITY;
  }

  /** Timestamp (ms) of the newest ID issued, or the starting fence. */
  get lastTimestampMs(): number {
    return this.lastMs;
  }

  /** Moves the lease reservation: IDs may be issued with timestamps below `untilMs`. */
  extendUntil(untilMs: number): void {
    if (!this.retired) this.issueUntilMs = untilMs;
  }

  /** A take() still waiting fails instead of issuing past the fence its node is about to release. */
  retire(): void {
    this.retired = true;
    this.issueUntilMs = Number.NEGATIVE_INFINITY;
  }

  nextId(): bigint | Promise<bigint> {
    if (this.retired) throw new LeafError('snowflake_unavailable', 'This snowflake worker has stopped.');
    const now = this.clock.now();
    if (now > this.lastMs) {
      if (now >= this.issueUntilMs) throw leaseExpired();
      if (now - this.epochMs > MAX_TIME_OFFSET)
        throw new LeafError('snowflake_unavailable', 'The 41-bit timestamp range of this epoch is used up.');
      this.lastMs = now;
      this.sequence = Math.floor(this.random() * RANDOM_SEQUENCE_START);
      this.base = composeBase(now - this.epochMs, this.workerId);
      return this.base | BigInt(this.sequence);
    }
    if (now === this.lastMs) {
      if (this.sequence < MAX_SEQUENCE) return this.base | BigInt(++this.sequence);
      return this.sleep(1).then(() => this.nextId()); // 4096 used in this ms: the next one
    }
    const behind = this.lastMs - now;
    if (behind <= this.maxBackwardWaitMs) return this.sleep(behind + 1).then(() => this.nextId());
    throw new LeafError(
      'clock_moved_backwards',
      `The clock is ${behind} ms behind the last issued ID; snowflake IDs resume once it passes it.`,
    );
  }

  async take(count: number): Promise<bigint[]> {
    const out: bigint[] = new Array(count);
    for (let i = 0; i < count; i++) {
      const id = this.nextId();
      out[i] = typeof id === 'bigint' ? id : await id;
    }
    return out;
  }
}

function leaseExpired(): LeafError {
  return new LeafError('snowflake_unavailable', 'The worker id lease could not be renewed; snowflake IDs are paused.');
}

export function validate(workerId: number, epochMs: number, nowMs: number): void {
  if (!Number.isInteger(workerId) || workerId < 0 || workerId > MAX_WORKER_ID) {
    throw new LeafError('invalid_config', `worker id must be an integer from 0 to ${MAX_WORKER_ID} (got ${workerId}).`);
  }
  if (!Number.isSafeInteger(epochMs) || epochMs < 0)
    throw new LeafError('invalid_config', `epoch must be a non-negative integer of ms (got ${epochMs}).`);
  if (epochMs > nowMs)
    throw new LeafError('invalid_config', `epoch ${new Date(epochMs).toISOString()} is in the future.`);
  if (nowMs - epochMs > MAX_TIME_OFFSET)
    throw new LeafError('invalid_config', 'epoch is more than 2^41 ms in the past.');
}
