/**
 * Store outage: an engine over MysqlStore on a dedicated throwaway mariadbd, and over PostgresStore on a dedicated
 * throwaway PostgreSQL (started here, not the shared ones).
 * The server goes away (stopped, or frozen with SIGSTOP); the engine keeps serving from its two buffers while IDs
 * remain, then fails fast with a typed LeafError (never hangs), and once the server is back it recovers by itself,
 * continuing strictly above every ID it issued before.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isLeafError } from '../../lib/errors';
import { SegmentEngine } from '../../lib/segment/engine';
import { MysqlStore } from '../../lib/store/mysql';
import { PostgresStore } from '../../lib/store/postgres';
import type { LeafStore } from '../../lib/store/leafStore';
import { mariadbAvailable, sleep, waitFor, within } from '../support/context';
import { MariadbServer, PostgresServer } from '../../tools/harness';
import type { Id } from '../../lib/segment/id';

const TAG = 'outage';
const STEP = 500;
/**
 * Liveness bound for any single engine call while the store is down (the engine's own wait is 1 s, a query's 1 s):
 * generous, so a loaded machine cannot break it, and still far from a call that waits for the store to come back.
 */
const CALL_BOUND_MS = 20_000;
/** Bound for the engine to serve again after the server is back. */
const RECOVERY_BOUND_MS = 60_000;

const log = (line: string) => process.stderr.write(`[outage] ${line}\n`);

/** A dedicated server of either kind: stopped and started again, frozen and thawed. */
interface OutageServer {
  readonly pid: number | undefined;
  readonly isRunning: boolean;
  stop(): Promise<void>;
  start(): Promise<void>;
  pause(): void;
  resume(): void;
  destroy(): Promise<void>;
}

const servers: Array<{ name: string; skip: boolean; open(): Promise<{ server: OutageServer; store: LeafStore }> }> = [
  {
    name: 'dedicated mariadbd',
    skip: !mariadbAvailable(),
    async open() {
      const server = await MariadbServer.create({ log });
      const url = await server.createAppUser('leaf_outage', 'outage');
      return {
        server,
        store: await MysqlStore.open({ url, connectionLimit: 2, connectTimeoutMs: 1_000, queryTimeoutMs: 1_000 }),
      };
    },
  },
  {
    name: 'dedicated postgres',
    skip: false,
    async open() {
      const server = await PostgresServer.create({ log });
      const url = await server.createAppUser('leaf_outage', 'outage');
      return {
        server,
        store: await PostgresStore.open({ url, connectionLimit: 2, connectTimeoutMs: 1_000, queryTimeoutMs: 1_000 }),
      };
    },
  },
];

describe.each(servers)('store outage ($name)', ({ skip, open }) => {
  let server: OutageServer;
  let store: LeafStore;
  let engine: SegmentEngine;
  let last: Id = 0;

  beforeAll(async () => {
    if (skip) return;
    ({ server, store } = await open());
    await store.tags.createTag({ bizTag: TAG, step: STEP });
    engine = new SegmentEngine({
      store: store.tags,
      refreshIntervalMs: 0,
      loadWaitMs: 1_000,
      retryBaseMs: 50,
      retryMaxMs: 500,
    });
    await engine.start();
  });

  afterAll(async () => {
    engine?.stop();
    // The pool may hold connections to a dead server: closing is bounded, never awaited forever.
    await within(5_000, store?.close(), 'store.close').catch(() => {});
    await server?.destroy();
  });

  /** Serves until both buffers are full (current in use, pending loaded, nothing in flight). */
  async function fillBothBuffers(): Promise<number> {
    const ids = await engine.takeIds(TAG, 100);
    for (const id of ids) {
      expect(id).toBeGreaterThan(last);
      last = id;
    }
    await waitFor(
      10_000,
      () => {
        const s = engine.snapshot(TAG);
        return s?.pending !== null && s?.loading === false ? true : undefined;
      },
      'the pending segment',
    );
    const s = engine.snapshot(TAG)!;
    return s.current!.remaining + s.pending!.step;
  }

  /** Takes IDs one by one until the engine fails; each call is bounded. Returns how many it served and the error. */
  async function drain(limit: number): Promise<{ served: number; code: string; failMs: number }> {
    let served = 0;
    for (;;) {
      const t = Date.now();
      try {
        const id = await within(CALL_BOUND_MS, engine.nextId(TAG), 'engine.next during the outage');
        expect(id).toBeGreaterThan(last);
        last = id;
        served++;
        if (served > limit)
          throw new Error(`served ${served} IDs with the store down, more than the ${limit} buffered`);
      } catch (error) {
        if (!isLeafError(error)) throw error;
        return { served, code: error.code, failMs: Date.now() - t };
      }
    }
  }

  /** Bounded failures while the store stays down: next() and take() both. */
  async function expectFastFailures(): Promise<void> {
    for (let i = 0; i < 3; i++) {
      const calls: Array<() => Promise<unknown>> = [
        async () => engine.nextId(TAG),
        async () => engine.takeIds(TAG, 10),
      ];
      for (const call of calls) {
        const outcome = await within(CALL_BOUND_MS, Promise.resolve().then(call), 'engine call during the outage').then(
          () => 'served',
          (e: unknown) => (isLeafError(e) ? e.code : `not a LeafError: ${String(e)}`),
        );
        expect(['store_unavailable', 'segment_unavailable']).toContain(outcome);
      }
    }
  }

  /** Polls the engine (no manual reset of anything) until it serves again; checks the IDs continue above `last`. */
  async function expectRecovery(): Promise<number> {
    const t = Date.now();
    const first = await waitFor(
      RECOVERY_BOUND_MS,
      async () => {
        try {
          return await within(CALL_BOUND_MS, engine.nextId(TAG), 'engine.next during recovery');
        } catch (error) {
          if (!isLeafError(error)) throw error;
          return undefined;
        }
      },
      'engine recovery',
      100,
    );
    const recoveredMs = Date.now() - t;
    expect(first).toBeGreaterThan(last);
    last = first;
    // Several segments' worth, so recovery includes fresh loads and preloads, strictly increasing throughout.
    const more = await within(30_000, engine.takeIds(TAG, STEP * 5), 'take after recovery');
    for (const id of more) {
      expect(id).toBeGreaterThan(last);
      last = id;
    }
    return recoveredMs;
  }

  it.skipIf(skip)(
    'server stopped: serves the buffered IDs, then fails fast with a LeafError; recovers after restart',
    async () => {
      const buffered = await fillBothBuffers();
      const pid = server.pid;
      await server.stop();
      expect(server.isRunning).toBe(false);

      const { served, code, failMs } = await drain(buffered);
      expect(served, 'every buffered ID is still served').toBe(buffered);
      expect(['store_unavailable', 'segment_unavailable']).toContain(code);
      await expectFastFailures();

      await server.start();
      const recoveredMs = await expectRecovery();
      log(
        `stop: served ${served} buffered IDs with server ${pid} down, then ${code} in ${failMs} ms; recovered ${recoveredMs} ms after restart`,
      );
    },
  );

  it.skipIf(skip)(
    'server frozen (SIGSTOP, connections hang): serves the buffered IDs, then fails within bounds; recovers on SIGCONT',
    async () => {
      const buffered = await fillBothBuffers();
      server.pause();
      try {
        const { served, code, failMs } = await drain(buffered);
        expect(served, 'every buffered ID is still served').toBe(buffered);
        expect(['store_unavailable', 'segment_unavailable']).toContain(code);
        await expectFastFailures();
        // Let a few background retries time out against the frozen server too.
        await sleep(1_500);
        server.resume();
        const recoveredMs = await expectRecovery();
        log(
          `freeze: served ${served} buffered IDs, then ${code} in ${failMs} ms; recovered ${recoveredMs} ms after SIGCONT`,
        );
      } finally {
        server.resume();
      }
    },
  );
});
