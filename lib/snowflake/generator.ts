import { type Clock, systemClock } from '../clock';
import { LeafError } from '../errors';
import { floorTimestampMs } from './floor';
import { SnowflakeLayout } from './layout';

export interface SnowflakeGeneratorOptions {
  workerId: number;
  /** Default: Leaf's 41/10/12 in ms. */
  layout?: SnowflakeLayout;
  /** This region's number, carried in the layout's region bits (default 0). */
  region?: number;
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

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** One worker id's IDs: synchronous while the clock moves on, a promise only when it must wait; never at or below the last. */
export class SnowflakeGenerator {
  readonly workerId: number;
  readonly epochMs: number;
  readonly layout: SnowflakeLayout;
  readonly region: number;
  private readonly clock: Clock;
  private readonly random: () => number;
  private readonly maxBackwardWaitMs: number;
  private readonly sleep: (ms: number) => Promise<void>;
  /** The time unit of the newest ID, counted from the epoch; -1 before the first. */
  private lastUnit: number;
  private sequence: number;
  private readonly maxSequence: number;
  private readonly sequenceScale: number;
  private readonly unitMs: number;
  private base = 0n;
  private issueUntilMs: number;
  private retired = false;

  constructor(options: SnowflakeGeneratorOptions) {
    const clock = options.clock ?? systemClock;
    const layout = options.layout ?? SnowflakeLayout.LEAF;
    this.region = options.region ?? 0;
    validate(layout, options.workerId, options.epochMs, clock.now(), this.region);
    this.layout = layout;
    this.workerId = options.workerId;
    this.epochMs = options.epochMs;
    this.maxSequence = layout.maxSequence;
    this.sequence = layout.maxSequence;
    this.sequenceScale = layout.sequenceScale;
    this.unitMs = layout.unitMs;
    this.clock = clock;
    this.random = options.random ?? Math.random;
    this.maxBackwardWaitMs = options.maxBackwardWaitMs ?? 5;
    this.sleep = options.sleep ?? defaultSleep;
    const floorMs = options.minId == null ? -1 : floorTimestampMs(options.minId, options.epochMs, layout);
    const fenceMs = Math.max(options.lastTimestampMs ?? 0, floorMs);
    this.lastUnit = fenceMs < options.epochMs ? -1 : layout.unitOf(fenceMs, options.epochMs);
    this.issueUntilMs = options.issueUntilMs ?? Number.POSITIVE_INFINITY;
  }

  /** Timestamp (ms) of the newest ID issued, or the starting fence: the start of its time unit. */
  get lastTimestampMs(): number {
    return this.epochMs + this.lastUnit * this.layout.unitMs;
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
    const unit = this.unitMs === 1 ? now - this.epochMs : Math.floor((now - this.epochMs) / this.unitMs);
    if (unit > this.lastUnit) {
      if (now >= this.issueUntilMs) throw leaseExpired();
      if (unit > this.layout.maxTime) throw usedUp(this.layout, this.epochMs);
      this.lastUnit = unit;
      const start = this.layout.randomSequenceStart;
      this.sequence = start === 0 ? 0 : Math.floor(this.random() * start);
      this.base = this.layout.composeBase(unit, this.region, this.workerId);
      return this.base | BigInt(this.sequence * this.sequenceScale);
    }
    if (unit === this.lastUnit) {
      if (this.sequence < this.maxSequence) return this.base | BigInt(++this.sequence * this.sequenceScale);
      // This unit's sequence is used up: the next unit.
      return this.sleep(this.epochMs + (unit + 1) * this.layout.unitMs - now).then(() => this.nextId());
    }
    const behind = this.lastTimestampMs - now;
    if (behind <= this.maxBackwardWaitMs) {
      return this.sleep(behind + this.layout.unitMs).then(() => this.nextId()); // to the unit after the last used
    }
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

function usedUp(layout: SnowflakeLayout, epochMs: number): LeafError {
  return new LeafError(
    'snowflake_unavailable',
    `The ${layout.bits.time}-bit time of layout ${layout.text} ran out at ${new Date(layout.endMs(epochMs)).toISOString()} for this epoch.`,
  );
}

export function validate(layout: SnowflakeLayout, workerId: number, epochMs: number, nowMs: number, region = 0): void {
  if (!Number.isInteger(region) || region < 0 || region > layout.maxRegion)
    throw new LeafError('invalid_config', `region must be from 0 to ${layout.maxRegion} in layout ${layout.text}.`);
  const max = layout.maxWorkerId;
  if (!Number.isInteger(workerId) || workerId < 0 || workerId > max) {
    throw new LeafError('invalid_config', `worker id must be an integer from 0 to ${max} (got ${workerId}).`);
  }
  if (!Number.isSafeInteger(epochMs) || epochMs < 0)
    throw new LeafError('invalid_config', `epoch must be a non-negative integer of ms (got ${epochMs}).`);
  if (epochMs > nowMs)
    throw new LeafError('invalid_config', `epoch ${new Date(epochMs).toISOString()} is in the future.`);
  if (nowMs >= layout.endMs(epochMs))
    throw new LeafError(
      'invalid_config',
      `the ${layout.bits.time}-bit time of layout ${layout.text} has run out for this epoch.`,
    );
}
