import { describe, expect, it } from 'vitest';
import { NodeRegistry } from '@/lib/fleet/registry';
import { decodeSnapshot } from '@/lib/fleet/snapshotCodec';
import type { NodeSnapshot } from '@/lib/fleet/types';
import type { Logger } from '@/lib/log';
import type { NodeStore } from '@/lib/fleet/nodeStore';
import { FakeNodeStore } from '../support/fakeNodeStore';
import { FakeClock, flush } from '../support/fakes';

const HEARTBEAT = 3_000;
const GONE = 10_000;
const PRUNE = 3_600_000;

function recordingLogger(): Logger & {
  events: Array<{ level: string; event: string; fields?: Record<string, unknown> }>;
} {
  const events: Array<{ level: string; event: string; fields?: Record<string, unknown> }> = [];
  return { events, log: (level, event, fields) => events.push({ level, event, fields }) };
}

function snapshotWith(tags: number, issued = 0): NodeSnapshot {
  const out: NodeSnapshot = { snowflake: { state: 'ready', workerId: 7, leaseExpiresAt: null }, tags: {} };
  for (let i = 0; i < tags; i++)
    out.tags[`tag${i}`] = { buffered: 1_000, step: 1_000, ratePerSec: 0, next: 'ready', issued, current: 0 };
  return out;
}

/** A process's view of the store that can be killed (kill -9: every later call fails, nothing says goodbye). */
function killable(store: NodeStore): { store: NodeStore; kill(): void } {
  let dead = false;
  const view = {} as Record<string, unknown>;
  for (const name of [
    'registerNode',
    'takeOverNode',
    'beatNode',
    'stopNode',
    'getNode',
    'listNodes',
    'pruneNodes',
  ] as const) {
    view[name] = (...args: unknown[]) =>
      dead
        ? Promise.reject(new Error('killed'))
        : (store[name] as (...a: unknown[]) => Promise<unknown>).apply(store, args);
  }
  return { store: view as unknown as NodeStore, kill: () => (dead = true) };
}

async function startKillable(
  clock: FakeClock,
  store: FakeNodeStore,
  nodeId = 'h:3000',
): Promise<{ reg: NodeRegistry; kill(): void }> {
  const k = killable(store);
  const reg = makeRegistry(clock, k.store, { nodeId });
  await reg.start();
  return { reg, kill: k.kill };
}

function makeRegistry(
  clock: FakeClock,
  store: NodeStore,
  opts: Partial<{
    nodeId: string;
    address: string;
    snapshot: () => NodeSnapshot;
    onLost: () => void;
    logger: Logger;
  }> = {},
) {
  return new NodeRegistry({
    store,
    clock,
    nodeId: opts.nodeId ?? 'h:3000',
    address: opts.address ?? '10.0.0.1:3000',
    version: '1.2.3',
    heartbeatMs: HEARTBEAT,
    goneMs: GONE,
    pruneMs: PRUNE,
    snapshot: opts.snapshot ?? (() => snapshotWith(2)),
    onLost: opts.onLost,
    logger: opts.logger,
  });
}

/** Advances the fake clock in small steps, letting the store's promises settle between them. */
async function run(clock: FakeClock, ms: number, stepMs = 250): Promise<void> {
  for (let t = 0; t < ms; t += stepMs) {
    clock.advance(Math.min(stepMs, ms - t));
    await flush();
  }
}

async function rejection(p: Promise<unknown>): Promise<Error & { code?: string }> {
  try {
    await p;
  } catch (e) {
    return e as Error & { code?: string };
  }
  throw new Error('expected a rejection');
}

describe('NodeRegistry: registration and identity', () => {
  it('registers a new node as up, with its address, version and snapshot', async () => {
    const clock = new FakeClock();
    const store = new FakeNodeStore(clock);
    const reg = makeRegistry(clock, store);
    await reg.start();
    const row = store.rows.get('h:3000');
    expect(row).toMatchObject({
      instanceId: reg.instanceId,
      address: '10.0.0.1:3000',
      version: '1.2.3',
      state: 'up',
      heartbeatAt: clock.now(),
    });
    expect(decodeSnapshot(row!.snapshot).tags.tag1?.buffered).toBe(1_000);
    expect(reg.registration).toBe('up');
  });

  it('refuses to start while a live twin heartbeats the id, naming its address and instance, and never writes the row', async () => {
    const clock = new FakeClock();
    const store = new FakeNodeStore(clock);
    const twin = makeRegistry(clock, store);
    await twin.start();
    const second = makeRegistry(clock, store, { address: '10.0.0.2:3000' });
    const started = clock.now();
    const refused = rejection(second.start());
    await run(clock, second.watchMs + 500);
    const err = await refused;
    expect(err.code).toBe('invalid_config');
    expect(err.message).toMatch(
      new RegExp(
        `^node id "h:3000" is live in another process at 10\\.0\\.0\\.1:3000 \\(instance ${twin.instanceId}, heartbeat \\d s ago\\); give each node its own LEAF_NODE_ID$`,
      ),
    );
    expect(clock.now() - started).toBeLessThanOrEqual(second.watchMs + 500);
    expect(store.rows.get('h:3000')?.instanceId).toBe(twin.instanceId);
    expect(second.registration).toBe('registering');
    expect(twin.registration).toBe('up');
  });

  it('takes over the row of a process that died without a goodbye after watching it for one heartbeat and a bit', async () => {
    const clock = new FakeClock();
    const store = new FakeNodeStore(clock);
    const { reg: dead, kill } = await startKillable(clock, store);
    kill();
    const logger = recordingLogger();
    const restarted = makeRegistry(clock, store, { logger });
    const started = clock.now();
    let up = false;
    const starting = restarted.start().then(() => (up = true));
    await run(clock, restarted.watchMs - 250);
    expect(up).toBe(false);
    await run(clock, 500);
    await starting;
    expect(clock.now() - started).toBeLessThanOrEqual(restarted.watchMs + 250);
    expect(clock.now() - started).toBeLessThan(GONE);
    expect(store.rows.get('h:3000')?.instanceId).toBe(restarted.instanceId);
    expect(logger.events.find((e) => e.event === 'node_registered')?.fields).toMatchObject({
      tookOverFrom: dead.instanceId,
    });
  });

  it('takes a stopped row, or one silent past LEAF_NODE_GONE_MS, at once', async () => {
    const clock = new FakeClock();
    const store = new FakeNodeStore(clock);
    const first = makeRegistry(clock, store);
    await first.start();
    await first.stop();
    expect(store.rows.get('h:3000')?.state).toBe('stopped');
    const { reg: second, kill } = await startKillable(clock, store); // no clock advance needed
    expect(store.rows.get('h:3000')?.instanceId).toBe(second.instanceId);
    kill();
    clock.advance(GONE + 1);
    const third = makeRegistry(clock, store);
    await third.start();
    expect(store.rows.get('h:3000')?.instanceId).toBe(third.instanceId);
  });

  it('ten processes starting at once with one id: exactly one is up, the other nine refuse', async () => {
    const clock = new FakeClock();
    const store = new FakeNodeStore(clock);
    const regs = Array.from({ length: 10 }, (_, i) => makeRegistry(clock, store, { address: `10.0.0.${i + 1}:3000` }));
    const outcomes = regs.map((r) =>
      r.start().then(
        () => 'up',
        (e: { code?: string }) => e.code,
      ),
    );
    await run(clock, 3 * regs[0]!.watchMs);
    const results = await Promise.all(outcomes);
    expect(results.filter((r) => r === 'up')).toHaveLength(1);
    expect(results.filter((r) => r === 'invalid_config')).toHaveLength(9);
    const winner = regs[results.indexOf('up')]!;
    expect(store.rows.get('h:3000')?.instanceId).toBe(winner.instanceId);
    // The winner keeps its row: no one took it while they watched.
    await run(clock, 2 * HEARTBEAT);
    expect(winner.registration).toBe('up');
  });
});

describe('NodeRegistry: heartbeat', () => {
  it('beats every LEAF_NODE_HEARTBEAT_MS with one row write, rewriting the snapshot only when it changed', async () => {
    const clock = new FakeClock();
    const store = new FakeNodeStore(clock);
    let issued = 0;
    const reg = makeRegistry(clock, store, { snapshot: () => snapshotWith(10_000, issued) });
    await reg.start();
    const writes = store.writes;
    await run(clock, 3 * HEARTBEAT, HEARTBEAT);
    expect(store.writes - writes).toBe(3);
    expect(store.snapshotWrites).toBe(1); // the first beat after registration; then nothing changed
    issued = 5;
    await run(clock, HEARTBEAT, HEARTBEAT);
    expect(store.writes - writes).toBe(4);
    expect(store.snapshotWrites).toBe(2);
    expect(store.rows.get('h:3000')?.heartbeatAt).toBe(clock.now());
  });

  it('a failed beat is logged once per outage, and the recovery once', async () => {
    const clock = new FakeClock();
    const store = new FakeNodeStore(clock);
    const logger = recordingLogger();
    const reg = makeRegistry(clock, store, { logger });
    await reg.start();
    store.failWith = new Error('down');
    await run(clock, 10 * HEARTBEAT, HEARTBEAT);
    store.failWith = null;
    await run(clock, 2 * HEARTBEAT, HEARTBEAT);
    const events = logger.events.map((e) => e.event).filter((e) => e.startsWith('node_heartbeat'));
    expect(events).toEqual(['node_heartbeat_failed', 'node_heartbeat_recovered']);
    expect(logger.events.find((e) => e.event === 'node_heartbeat_recovered')?.fields).toMatchObject({
      failedBeats: 10,
    });
    expect(reg.registration).toBe('up'); // nobody took the id meanwhile: the row is ours again
  });

  it('a beat that finds the row taken by another process stops heartbeating and tells its owner once, never fighting', async () => {
    const clock = new FakeClock();
    const store = new FakeNodeStore(clock);
    let lost = 0;
    const reg = makeRegistry(clock, store, { onLost: () => lost++ });
    await reg.start();
    store.failWith = new Error('partitioned');
    await run(clock, GONE + HEARTBEAT, HEARTBEAT);
    store.failWith = null;
    const other = makeRegistry(clock, store);
    await other.start(); // silent past goneMs: taken at once
    await run(clock, 3 * HEARTBEAT, HEARTBEAT);
    expect(reg.registration).toBe('lost');
    expect(lost).toBe(1);
    expect((await reg.whenLost())?.instanceId).toBe(other.instanceId);
    expect(store.rows.get('h:3000')?.instanceId).toBe(other.instanceId);
    expect(other.registration).toBe('up');
  });

  it('graceful stop marks the row stopped at once and ends the beats', async () => {
    const clock = new FakeClock();
    const store = new FakeNodeStore(clock);
    const reg = makeRegistry(clock, store);
    await reg.start();
    await reg.stop();
    expect(store.rows.get('h:3000')?.state).toBe('stopped');
    const writes = store.writes;
    await run(clock, 3 * HEARTBEAT, HEARTBEAT);
    expect(store.writes).toBe(writes);
    expect(clock.pendingTimers).toBe(0);
  });

  it('prunes rows gone or stopped for longer than LEAF_NODE_PRUNE_MS, at most once a minute', async () => {
    const clock = new FakeClock();
    const store = new FakeNodeStore(clock);
    const old = makeRegistry(clock, store, { nodeId: 'old:1' });
    await old.start();
    await old.stop();
    (await startKillable(clock, store, 'stale:1')).kill();
    const live = makeRegistry(clock, store, { nodeId: 'live:1' });
    await live.start();
    await run(clock, PRUNE - HEARTBEAT, 30_000);
    expect([...store.rows.keys()].sort()).toEqual(['live:1', 'old:1', 'stale:1']);
    await run(clock, 2 * 60_000, HEARTBEAT);
    expect([...store.rows.keys()]).toEqual(['live:1']);
  });
});

describe('NodeRegistry: reading the fleet', () => {
  it('shows up, gone (heartbeat older than LEAF_NODE_GONE_MS on the database clock) and stopped, sorted by node id', async () => {
    const clock = new FakeClock();
    const store = new FakeNodeStore(clock);
    const b = await startKillable(clock, store, 'b:1');
    const a = makeRegistry(clock, store, { nodeId: 'a:1' });
    const c = makeRegistry(clock, store, { nodeId: 'c:1' });
    await Promise.all([a.start(), c.start()]);
    b.kill();
    await c.stop();
    await run(clock, GONE - HEARTBEAT, HEARTBEAT);
    expect((await a.nodes()).map((n) => [n.nodeId, n.state])).toEqual([
      ['a:1', 'up'],
      ['b:1', 'up'],
      ['c:1', 'stopped'],
    ]);
    await run(clock, 2 * HEARTBEAT, HEARTBEAT);
    const views = await a.nodes();
    expect(views.map((n) => [n.nodeId, n.state])).toEqual([
      ['a:1', 'up'],
      ['b:1', 'gone'],
      ['c:1', 'stopped'],
    ]);
    expect(views[0]).toMatchObject({ address: '10.0.0.1:3000', version: '1.2.3' });
    expect(clock.now() - Date.parse(views[0]!.lastHeartbeat)).toBeLessThan(HEARTBEAT);
    expect(clock.now() - Date.parse(views[1]!.lastHeartbeat)).toBeGreaterThan(GONE);
    expect(views[0]?.tags.tag0).toEqual({
      buffered: 1_000,
      step: 1_000,
      ratePerSec: 0,
      next: 'ready',
      issued: 0,
      current: 0,
      runwaySeconds: null,
    });
    expect(await a.stateCounts()).toEqual({ up: 1, gone: 1, stopped: 1 });
  });

  it('shares reads: at most one list per second', async () => {
    const clock = new FakeClock();
    const store = new FakeNodeStore(clock);
    let lists = 0;
    const listNodes = store.listNodes.bind(store);
    store.listNodes = (w) => {
      lists++;
      return listNodes(w);
    };
    const reg = makeRegistry(clock, store);
    await reg.start();
    await Promise.all([reg.nodes(), reg.nodes(), reg.nodes()]);
    clock.advance(999);
    await reg.nodes();
    expect(lists).toBe(1);
    clock.advance(1);
    await reg.nodes();
    expect(lists).toBe(2);
  });
});
