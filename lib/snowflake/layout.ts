/** A snowflake layout: the time unit and how the 63 bits are shared, every shift and mask from it (as sonyflake). */

export type LayoutField = 'time' | 'region' | 'worker' | 'sequence';
export type LayoutBits = Readonly<Record<LayoutField, number>>;
export const LAYOUT_PRESETS = ['leaf', 'sonyflake', 'js-safe'] as const;
export type LayoutName = (typeof LAYOUT_PRESETS)[number] | 'custom';

export const MAX_SNOWFLAKE = (1n << 63n) - 1n;
/** Number.MAX_SAFE_INTEGER as a bigint: the js-safe layout's IDs never pass it. */
export const MAX_SAFE_ID = BigInt(Number.MAX_SAFE_INTEGER);

/** Default epoch: 2026-01-01T00:00:00Z. */
export const DEFAULT_EPOCH_MS = Date.UTC(2026, 0, 1);
/** Leaf's (Twitter's) epoch, 2010-11-04T01:42:54.657Z: with it, Leaf's IDs and ours share one number line. */
export const LEAF_EPOCH_MS = 1_288_834_974_657;
/** Sony's default start time, 2014-09-01T00:00:00Z. */
export const SONYFLAKE_EPOCH_MS = Date.UTC(2014, 8, 1);

export const YEAR_MS = 365.25 * 86_400_000;
/** The last moment a JS Date holds (ECMA-262 §21.4.1.1): past it a layout's end or an ID's time has no date. */
export const MAX_DATE_MS = 8.64e15;

export interface DecodedSnowflake {
  /** Milliseconds since the Unix epoch: the start of the ID's time unit. */
  timestampMs: number;
  /** Time units since the epoch, as the ID carries them. */
  time: number;
  region: number;
  workerId: number;
  sequence: number;
}

interface LayoutSpec {
  name: LayoutName;
  unitMs: number;
  bits: LayoutBits;
  /** Highest field first. Twitter/Leaf: time, region, worker, sequence; Sony puts the sequence above the machine. */
  order: readonly LayoutField[];
  /** Each time unit's first sequence is drawn below this (Leaf spreads low bits over shards); 0 starts at 0. */
  randomSequenceStart: number;
}

const TWITTER_ORDER: readonly LayoutField[] = ['time', 'region', 'worker', 'sequence'];
const SONY_ORDER: readonly LayoutField[] = ['time', 'sequence', 'region', 'worker'];

const PRESETS: Record<(typeof LAYOUT_PRESETS)[number], LayoutSpec> = {
  // Leaf's and Twitter's: 41 bits of ms (69.7 years), 1024 workers, 4096 IDs per ms each.
  leaf: {
    name: 'leaf',
    unitMs: 1,
    bits: { time: 41, region: 0, worker: 10, sequence: 12 },
    order: TWITTER_ORDER,
    randomSequenceStart: 100,
  },
  // sony/sonyflake v1: 39 bits of 10 ms (174 years), then an 8-bit sequence, then a 16-bit machine id.
  sonyflake: {
    name: 'sonyflake',
    unitMs: 10,
    bits: { time: 39, region: 0, worker: 16, sequence: 8 },
    order: SONY_ORDER,
    randomSequenceStart: 0,
  },
  // 53 bits, so every ID is a safe JS number: 35 bits of 100 ms (108.9 years), 128 workers, 20,480 IDs/s each.
  'js-safe': {
    name: 'js-safe',
    unitMs: 100,
    bits: { time: 35, region: 0, worker: 7, sequence: 11 },
    order: TWITTER_ORDER,
    randomSequenceStart: 0,
  },
};

export const LAYOUT_GRAMMAR =
  'leaf, sonyflake, js-safe, or a custom layout "time=41,region=0,worker=10,sequence=12,unit=1ms" ' +
  '(bits for each field, high to low in that order, at most 63 in all; unit 1ms to 1000ms or 1s)';

export class SnowflakeLayout {
  readonly name: LayoutName;
  readonly unitMs: number;
  readonly bits: LayoutBits;
  readonly order: readonly LayoutField[];
  readonly randomSequenceStart: number;
  readonly maxWorkerId: number;
  readonly maxSequence: number;
  readonly maxRegion: number;
  /** The last time unit that fits: 2^time − 1. */
  readonly maxTime: number;
  /** The largest ID this layout can carry. */
  readonly maxId: bigint;
  /** What decides collisions, so two names for the same bits agree: `1ms:time41,region0,worker10,sequence12`. */
  readonly signature: string;
  private readonly shift: Record<LayoutField, bigint>;
  /** 2^shift of the sequence, as a number: the hot path multiplies instead of shifting a bigint. */
  readonly sequenceScale: number;

  private constructor(private readonly spec: LayoutSpec) {
    this.name = spec.name;
    this.unitMs = spec.unitMs;
    this.bits = spec.bits;
    this.order = spec.order;
    this.randomSequenceStart = spec.randomSequenceStart;
    this.maxWorkerId = 2 ** spec.bits.worker - 1;
    this.maxSequence = 2 ** spec.bits.sequence - 1;
    this.maxRegion = 2 ** spec.bits.region - 1;
    this.maxTime = 2 ** spec.bits.time - 1;
    let below = 0;
    const shift = {} as Record<LayoutField, bigint>;
    for (const field of [...spec.order].reverse()) {
      shift[field] = BigInt(below);
      below += spec.bits[field];
    }
    this.shift = shift;
    this.maxId = (1n << BigInt(below)) - 1n;
    this.sequenceScale = 2 ** Number(shift.sequence);
    this.signature = `${spec.unitMs}ms:${spec.order.map((f) => `${f}${spec.bits[f]}`).join(',')}`;
  }

  static preset(name: (typeof LAYOUT_PRESETS)[number]): SnowflakeLayout {
    return new SnowflakeLayout(PRESETS[name]);
  }

  static readonly LEAF = SnowflakeLayout.preset('leaf');

  /** `leaf`, `sonyflake`, `js-safe`, or `time=41,region=0,worker=10,sequence=12,unit=1ms`; else what is wrong. */
  static parse(text: string): SnowflakeLayout | { problem: string } {
    const trimmed = text.trim().toLowerCase();
    if ((LAYOUT_PRESETS as readonly string[]).includes(trimmed))
      return SnowflakeLayout.preset(trimmed as (typeof LAYOUT_PRESETS)[number]);
    const values = new Map<string, string>();
    for (const part of trimmed.split(',')) {
      const m = /^\s*([a-z]+)\s*=\s*([0-9a-z]+)\s*$/.exec(part);
      if (m === null) return { problem: `"${part.trim()}" is not name=value` };
      const [, key, value] = m as unknown as [string, string, string];
      if (!['time', 'region', 'worker', 'sequence', 'unit'].includes(key)) return { problem: `unknown field ${key}` };
      if (values.has(key)) return { problem: `${key} is given twice` };
      values.set(key, value);
    }
    const unitText = values.get('unit') ?? '1ms';
    const unit = /^(\d+)(ms|s)$/.exec(unitText);
    const unitMs = unit === null ? NaN : Number(unit[1]) * (unit[2] === 's' ? 1000 : 1);
    if (!Number.isInteger(unitMs) || unitMs < 1 || unitMs > 1000)
      return { problem: `unit must be 1ms to 1000ms (got ${unitText})` };
    const bits: Record<LayoutField, number> = { time: 0, region: 0, worker: 0, sequence: 0 };
    for (const field of TWITTER_ORDER) {
      const raw = values.get(field);
      if (raw === undefined && field !== 'region') return { problem: `${field} bits are missing` };
      if (raw !== undefined && !/^\d{1,2}$/.test(raw)) return { problem: `${field} must be a number of bits` };
      bits[field] = Number(raw ?? 0);
    }
    if (bits.time < 20) return { problem: `time needs at least 20 bits (got ${bits.time})` };
    if (bits.worker < 1 || bits.sequence < 1) return { problem: 'worker and sequence need at least 1 bit each' };
    if (bits.region > 16) return { problem: `region takes at most 16 bits (got ${bits.region})` };
    const total = bits.time + bits.region + bits.worker + bits.sequence;
    if (total > 63) return { problem: `the fields take ${total} bits; at most 63 fit` };
    return new SnowflakeLayout({ name: 'custom', unitMs, bits, order: TWITTER_ORDER, randomSequenceStart: 0 });
  }

  /**
   * This layout for a fleet of `regions` regions: one with region bits enough is itself; one without any gives the
   * top bits of its worker field to the region (Twitter's datacenter bits); else what is wrong.
   */
  forRegions(regions: number): SnowflakeLayout | { problem: string } {
    const needed = regions <= 1 ? 0 : Math.ceil(Math.log2(regions));
    if (this.bits.region >= needed) return this;
    if (this.bits.region > 0)
      return { problem: `its ${this.bits.region} region bits hold ${this.maxRegion + 1} regions, not ${regions}` };
    if (this.bits.worker - needed < 1)
      return { problem: `its ${this.bits.worker} worker bits leave none once ${needed} go to ${regions} regions` };
    const bits = { ...this.bits, region: needed, worker: this.bits.worker - needed };
    return new SnowflakeLayout({ ...this.spec, bits });
  }

  /** The form LEAF_SNOWFLAKE_LAYOUT takes: a preset's name, or the custom fields. */
  get text(): string {
    if (this.name !== 'custom') return this.name;
    const { time, region, worker, sequence } = this.bits;
    return `time=${time},region=${region},worker=${worker},sequence=${sequence},unit=${this.unitMs}ms`;
  }

  /** For people: `41 bits of 1 ms | 10 worker | 12 sequence`. */
  describe(): string {
    return this.order
      .filter((f) => f === 'time' || this.bits[f] > 0)
      .map((f) => (f === 'time' ? `${this.bits.time} bits of ${this.unitMs} ms` : `${this.bits[f]} ${f}`))
      .join(' | ');
  }

  /** Most IDs one worker can issue per second. */
  get idsPerSecond(): number {
    return ((this.maxSequence + 1) * 1000) / this.unitMs;
  }

  /** The time unit a moment falls in, counted from the epoch. */
  unitOf(ms: number, epochMs: number): number {
    return Math.floor((ms - epochMs) / this.unitMs);
  }

  /** The first ms past the last time unit: from then on this epoch and layout have no IDs left. */
  endMs(epochMs: number): number {
    return epochMs + (this.maxTime + 1) * this.unitMs;
  }

  yearsLeft(epochMs: number, nowMs: number): number {
    return (this.endMs(epochMs) - nowMs) / YEAR_MS;
  }

  /** The ID of one time unit, region and worker with sequence 0: add `sequence × sequenceScale`. */
  composeBase(time: number, region: number, workerId: number): bigint {
    return (
      (BigInt(time) << this.shift.time) |
      (BigInt(region) << this.shift.region) |
      (BigInt(workerId) << this.shift.worker)
    );
  }

  compose(time: number, region: number, workerId: number, sequence: number): bigint {
    return this.composeBase(time, region, workerId) | (BigInt(sequence) << this.shift.sequence);
  }

  decompose(id: bigint, epochMs: number): DecodedSnowflake {
    const field = (f: LayoutField) => Number((id >> this.shift[f]) & ((1n << BigInt(this.bits[f])) - 1n));
    const time = Number(id >> this.shift.time);
    return {
      timestampMs: epochMs + time * this.unitMs,
      time,
      region: field('region'),
      workerId: field('worker'),
      sequence: field('sequence'),
    };
  }
}

/** An ID's fields under `layout` (Leaf's unless named). */
export function decompose(
  id: bigint,
  epochMs: number,
  layout: SnowflakeLayout = SnowflakeLayout.LEAF,
): DecodedSnowflake {
  return layout.decompose(id, epochMs);
}
