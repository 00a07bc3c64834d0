/**
 * Meituan Leaf's Java segment server (SegmentIDGenImpl + IDAllocDaoImpl), claim for claim, for the mixed-fleet test:
 * a "Java Leaf node" beside leaf-ts nodes on one leaf_alloc table. What it must copy exactly, from the Leaf source
 * (see /work/shared/seeds and github.com/Meituan-Dianping/Leaf):
 *
 * - the claim: two statements in one transaction (MyBatis `openSession()`, autocommit off) —
 *   `UPDATE leaf_alloc SET max_id = max_id + step WHERE biz_tag = ?` (or `max_id + #{step}` with the dynamic step),
 *   then `SELECT biz_tag, max_id, step FROM leaf_alloc WHERE biz_tag = ?`, then COMMIT;
 * - the range: `value = maxId − buffer.step`, `max = maxId`, an ID is `value++` while `value < max`, i.e.
 *   `[maxId − step, maxId − 1]`;
 * - the dynamic step: the first two loads take the DB step (`!initOk`, then `updateTimestamp == 0`); later ones
 *   double within 15 min of the previous (cap 1,000,000), keep it within 30 min, else halve (not below the DB
 *   step), and the custom-step UPDATE adds exactly that;
 * - the double buffer: the next segment is loaded in the background once less than 90% of the current one is idle,
 *   the buffer switches when the current one is used up and the next is ready.
 *
 * What it leaves out: the thread pool and the spin-wait (one load promise per tag instead), and error IDs — a
 * failure throws. It knows nothing of leaf_semantics, as the real Java server does not.
 */
import mysql, { type Pool, type PoolConnection } from 'mysql2/promise';

/** SegmentIDGenImpl.MAX_STEP */
export const LEAF_MAX_STEP = 1_000_000;
/** SegmentIDGenImpl.SEGMENT_DURATION: 15 minutes. */
export const LEAF_SEGMENT_DURATION_MS = 15 * 60 * 1000;

/** Leaf's Segment: `value` is the next ID, `max` the claim's max_id (exclusive). */
interface Segment {
  value: number;
  max: number;
  step: number;
}

/** Leaf's SegmentBuffer. */
interface SegmentBuffer {
  key: string;
  segments: [Segment, Segment];
  currentPos: 0 | 1;
  nextReady: boolean;
  initOk: boolean;
  /** threadRunning: the background load, while it runs. */
  loading: Promise<void> | null;
  step: number;
  minStep: number;
  updateTimestamp: number;
}

interface LeafAlloc {
  key: string;
  maxId: number;
  step: number;
}

/** One claim as the test records it: the statement's max_id and the range this claimer serves from it. */
export interface JavaClaim {
  bizTag: string;
  maxId: number;
  step: number;
}

export class LeafJavaClaimer {
  private readonly pool: Pool;
  private readonly now: () => number;
  private readonly cache = new Map<string, SegmentBuffer>();
  private readonly initializing = new Map<string, Promise<void>>();
  /** Every claim it made, in order. */
  readonly claims: JavaClaim[] = [];

  constructor(options: { url: string; connectionLimit?: number; now?: () => number }) {
    this.pool = mysql.createPool({
      uri: options.url,
      connectionLimit: options.connectionLimit ?? 4,
      supportBigNumbers: true,
      bigNumberStrings: true,
    });
    this.now = options.now ?? Date.now;
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.cache.values()].map((b) => b.loading));
    await this.pool.end();
  }

  /** SegmentIDGenImpl.get: one ID of `key`. */
  async get(key: string): Promise<number> {
    let buffer = this.cache.get(key);
    if (buffer === undefined) {
      buffer = newBuffer(key);
      this.cache.set(key, buffer);
    }
    if (!buffer.initOk) await this.init(buffer);
    return this.getIdFromSegmentBuffer(buffer);
  }

  /** The synchronized init block: one first load per buffer. */
  private init(buffer: SegmentBuffer): Promise<void> {
    let pending = this.initializing.get(buffer.key);
    if (pending === undefined) {
      pending = this.updateSegmentFromDb(buffer.key, buffer.segments[buffer.currentPos], buffer)
        .then(() => {
          buffer.initOk = true;
        })
        .finally(() => this.initializing.delete(buffer.key));
      this.initializing.set(buffer.key, pending);
    }
    return pending;
  }

  /** SegmentIDGenImpl.updateSegmentFromDb */
  private async updateSegmentFromDb(key: string, segment: Segment, buffer: SegmentBuffer): Promise<void> {
    let leafAlloc: LeafAlloc;
    if (!buffer.initOk) {
      leafAlloc = await this.updateMaxIdAndGetLeafAlloc(key);
      buffer.step = leafAlloc.step;
      buffer.minStep = leafAlloc.step;
    } else if (buffer.updateTimestamp === 0) {
      leafAlloc = await this.updateMaxIdAndGetLeafAlloc(key);
      buffer.updateTimestamp = this.now();
      buffer.step = leafAlloc.step;
      buffer.minStep = leafAlloc.step;
    } else {
      const duration = this.now() - buffer.updateTimestamp;
      let nextStep = buffer.step;
      if (duration < LEAF_SEGMENT_DURATION_MS) {
        if (nextStep * 2 <= LEAF_MAX_STEP) nextStep = nextStep * 2;
      } else if (duration < LEAF_SEGMENT_DURATION_MS * 2) {
        // keep
      } else {
        nextStep = nextStep / 2 >= buffer.minStep ? Math.trunc(nextStep / 2) : nextStep;
      }
      leafAlloc = await this.updateMaxIdByCustomStepAndGetLeafAlloc(key, nextStep);
      buffer.updateTimestamp = this.now();
      buffer.step = nextStep;
      buffer.minStep = leafAlloc.step;
    }
    // "must set value before set max"
    segment.value = leafAlloc.maxId - buffer.step;
    segment.max = leafAlloc.maxId;
    segment.step = buffer.step;
    this.claims.push({ bizTag: key, maxId: leafAlloc.maxId, step: buffer.step });
  }

  /** IDAllocDaoImpl.updateMaxIdAndGetLeafAlloc: the row's own step. */
  private updateMaxIdAndGetLeafAlloc(tag: string): Promise<LeafAlloc> {
    return this.inTransaction(tag, 'UPDATE leaf_alloc SET max_id = max_id + step WHERE biz_tag = ?', [tag]);
  }

  /** IDAllocDaoImpl.updateMaxIdByCustomStepAndGetLeafAlloc: the dynamic step. */
  private updateMaxIdByCustomStepAndGetLeafAlloc(tag: string, step: number): Promise<LeafAlloc> {
    return this.inTransaction(tag, 'UPDATE leaf_alloc SET max_id = max_id + ? WHERE biz_tag = ?', [step, tag]);
  }

  /** openSession(); update; selectOne(getLeafAlloc); commit(); close(). */
  private async inTransaction(tag: string, update: string, params: unknown[]): Promise<LeafAlloc> {
    const conn: PoolConnection = await this.pool.getConnection();
    try {
      await conn.beginTransaction();
      try {
        await conn.query(update, params);
        const [rows] = await conn.query('SELECT biz_tag, max_id, step FROM leaf_alloc WHERE biz_tag = ?', [tag]);
        const row = (rows as Array<{ biz_tag: string; max_id: string; step: number }>)[0];
        if (row === undefined) throw new Error(`Leaf: no leaf_alloc row for ${tag}`);
        await conn.commit();
        return { key: row.biz_tag, maxId: Number(row.max_id), step: row.step };
      } catch (error) {
        await conn.rollback().catch(() => undefined);
        throw error;
      }
    } finally {
      conn.release();
    }
  }

  /** SegmentIDGenImpl.getIdFromSegmentBuffer, with the background load as a promise. */
  private async getIdFromSegmentBuffer(buffer: SegmentBuffer): Promise<number> {
    for (;;) {
      const segment = buffer.segments[buffer.currentPos];
      if (!buffer.nextReady && segment.max - segment.value < 0.9 * segment.step && buffer.loading === null) {
        const next = buffer.segments[buffer.currentPos === 0 ? 1 : 0];
        buffer.loading = this.updateSegmentFromDb(buffer.key, next, buffer).then(
          () => {
            buffer.nextReady = true;
            buffer.loading = null;
          },
          () => {
            buffer.loading = null;
          },
        );
      }
      const value = segment.value++;
      if (value < segment.max) return value;
      // waitAndSleep: for the background load, if one runs.
      if (buffer.loading !== null) await buffer.loading;
      const current = buffer.segments[buffer.currentPos];
      const retry = current.value++;
      if (retry < current.max) return retry;
      if (!buffer.nextReady) throw new Error(`Leaf: both two segments in ${buffer.key} are not ready`);
      buffer.currentPos = buffer.currentPos === 0 ? 1 : 0;
      buffer.nextReady = false;
    }
  }
}

function newBuffer(key: string): SegmentBuffer {
  const empty = (): Segment => ({ value: 0, max: 0, step: 0 });
  return {
    key,
    segments: [empty(), empty()],
    currentPos: 0,
    nextReady: false,
    initOk: false,
    loading: null,
    step: 0,
    minStep: 0,
    updateTimestamp: 0,
  };
}
