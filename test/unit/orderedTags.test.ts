/**
 * Ordered tags on an in-process fleet: real engines, owner leases and acknowledgements on one fake database and one
 * fake clock, each node's relay calling the other's ID handler. Every timing rule — the margin, a paused owner, a
 * release, a change to strict waiting for every node — runs without sleeping, and every answer sent after the
 * change completed goes through the real-time order check.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { LeafError } from '../../lib/errors';
import type { Answer } from '../../lib/http/answer';
import { createIdHandler } from '../../lib/http/idHandler';
import type { IdRuntime } from '../../lib/http/issue';
import { silentLogger } from '../../lib/log';
import type { Relayed } from '../../lib/ordered/forwarder';
import { OrderedTags } from '../../lib/ordered/orderedTags';
import type { LeaseTerms, OrderStore } from '../../lib/ordered/orderStore';
import { SegmentEngine } from '../../lib/segment/engine';
import type { LeafStore } from '../../lib/store/leafStore';
import { type TimedAnswer, checkOrder } from '../../tools/harness/orderCheck';
import { FakeOrderStore } from '../support/fakeOrderStore';
import { FakeClock, FakeStore, flush } from '../support/fakes';

const TERMS: LeaseTerms = { leaseMs: 3_000, marginMs: 500 };
const POLL_MS = 200;
const CLIENT_VOUCH_MS = 2_000;

interface Node {
  name: string;
  /** A stopped process: its store calls wait in `held` and it answers nobody. */
  paused: boolean;
  held: Array<() => void>;
  ordered: OrderedTags;
  engine: SegmentEngine;
  get(path: string): Promise<Answer>;
}

class Fleet {
  readonly clock = new FakeClock();
  readonly tags = new FakeStore([
    { bizTag: 'strict', step: 10 },
    { bizTag: 'plain', step: 10 },
  ]);
  readonly order = new FakeOrderStore(this.clock);
  readonly nodes = new Map<string, Node>();
  readonly answers = new Map<string, TimedAnswer[]>();

  constructor() {
    this.order.tags.add('strict').add('plain');
  }

  async add(name: string): Promise<Node> {
    const store = pausable(this.order, () => node);
    const engine: SegmentEngine = new SegmentEngine({ store: this.tags, clock: this.clock, refreshIntervalMs: 0 });
    const ordered: OrderedTags = new OrderedTags({
      store,
      engine,
      self: { nodeId: name, instanceId: `${name}-instance`, address: name },
      identity: { host: 'test', procKey: `test:${name}` },
      terms: TERMS,
      pollMs: POLL_MS,
      pruneMs: 86_400_000,
      clientVouchMs: CLIENT_VOUCH_MS,
      clock: this.clock,
      monotonic: () => this.clock.now(),
      logger: silentLogger,
      forward: (address, path) => this.relay(address, path),
    });
    const rt = { segments: engine, ordered, snowflake: null, store: {} as LeafStore } satisfies IdRuntime;
    const handler = createIdHandler({ runtime: () => rt, clock: this.clock });
    const node: Node = {
      name,
      paused: false,
      held: [],
      ordered,
      engine,
      get: async (path) => (await handler('GET', path)) as Answer,
    };
    this.nodes.set(name, node);
    await engine.start();
    await ordered.start();
    return node;
  }

  private async relay(address: string, path: string): Promise<Relayed> {
    const node = this.nodes.get(address);
    if (node === undefined || node.paused)
      throw new LeafError('owner_unavailable', `${address} did not answer`, { retryAfterSeconds: 1 });
    const answer = await node.get(path);
    return { status: answer.status, contentType: String(answer.headers['content-type']), body: answer.body };
  }

  /** One request through `node`, recorded on the fake clock (each request is its own instant). */
  async take(node: Node, tag: string, count = 0): Promise<Answer> {
    const sentAt = this.clock.now();
    this.clock.advance(1);
    const answer = await node.get(`/api/id/segment/${tag}${count === 0 ? '' : `?count=${count}`}`);
    const receivedAt = this.clock.now();
    this.clock.advance(1);
    if (answer.status === 200) {
      const body = JSON.parse(answer.body) as { id?: string; ids?: string[] };
      const ids = (body.ids ?? [body.id as string]).map(BigInt);
      const list = this.answers.get(tag) ?? [];
      list.push({ sentAt, receivedAt, ids });
      this.answers.set(tag, list);
    }
    return answer;
  }

  /** `take` as a client does: a 503 is retried a poll later, within a bound (the retried attempts served nothing). */
  async takeOk(node: Node, tag: string, count = 0): Promise<void> {
    for (let attempt = 0; attempt < 40; attempt++) {
      const answer = await this.take(node, tag, count);
      if (answer.status === 200) return;
      if (answer.status !== 503) throw new Error(`${answer.status} ${answer.body}`);
      await this.pass(POLL_MS);
    }
    throw new Error(`${tag} through ${node.name}: still 503 after 40 attempts`);
  }

  /** Advances the clock in poll-sized steps, letting each step's reads and writes land. */
  async pass(ms: number): Promise<void> {
    for (let left = ms; left > 0; left -= POLL_MS) {
      this.clock.advance(Math.min(POLL_MS, left));
      await flush();
    }
  }

  /** The order check over the requests sent once the tag's last change to strict completed (all, for other tags). */
  report(tag: string) {
    const completeAt = this.order.rows.get(tag)?.completeAt ?? 0;
    const row = this.order.rows.get(tag);
    const judged = (this.answers.get(tag) ?? []).filter(
      (a) => row === undefined || row.ordering !== 'strict' || (completeAt > 0 && a.sentAt >= completeAt),
    );
    return checkOrder(judged);
  }

  /** The moment the tag's change to strict completed, or null while it is pending. */
  completedAt(tag: string): number | null {
    const at = this.order.rows.get(tag)?.completeAt ?? 0;
    return at === 0 ? null : at;
  }
}

/** The store as a stopped process sees it: calls made while paused run only when it wakes (late, as after SIGCONT). */
function pausable(store: OrderStore, node: () => Node): OrderStore {
  const hang = <T>(call: () => Promise<T>): Promise<T> =>
    node().paused ? new Promise<T>((resolve, reject) => node().held.push(() => call().then(resolve, reject))) : call();
  return {
    readOrder: () => hang(() => store.readOrder()),
    setOrdering: (...a) => hang(() => store.setOrdering(...a)),
    completeStrict: (...a) => hang(() => store.completeStrict(...a)),
    acquireOwner: (...a) => hang(() => store.acquireOwner(...a)),
    renewOwner: (...a) => hang(() => store.renewOwner(...a)),
    releaseOwner: (...a) => hang(() => store.releaseOwner(...a)),
    registerParticipant: (...a) => hang(() => store.registerParticipant(...a)),
    ackParticipant: (...a) => hang(() => store.ackParticipant(...a)),
    removeParticipant: (...a) => hang(() => store.removeParticipant(...a)),
    listParticipants: () => hang(() => store.listParticipants()),
    pruneParticipants: (...a) => hang(() => store.pruneParticipants(...a)),
  };
}

/** SIGCONT: what the process sent before it stopped reaches the database now. */
function wake(node: Node): void {
  node.paused = false;
  for (const call of node.held.splice(0)) call();
}

let fleet: Fleet;
afterEach(async () => {
  for (const node of fleet?.nodes.values() ?? []) {
    wake(node);
    await node.ordered.close(10);
  }
});

/** Passes time until the tag's change to strict completed (every node acknowledged it); fails after `ms`. */
async function untilComplete(tag: string, ms = 20 * POLL_MS): Promise<number> {
  for (let left = ms; left > 0; left -= POLL_MS) {
    const at = fleet.completedAt(tag);
    if (at !== null) return at;
    await fleet.pass(POLL_MS);
  }
  throw new Error(`the change of ${tag} to strict did not complete within ${ms} ms`);
}

async function strictFleet(): Promise<{ a: Node; b: Node }> {
  fleet = new Fleet();
  await fleet.order.setOrdering('strict', 'strict');
  const a = await fleet.add('a');
  const b = await fleet.add('b');
  await untilComplete('strict');
  return { a, b };
}

describe('a strict tag on two nodes', () => {
  it('increases across the fleet where an ordinary tag goes backwards (the check has teeth)', async () => {
    const { a, b } = await strictFleet();
    for (let i = 0; i < 60; i++) {
      const node = i % 3 === 0 ? b : a;
      expect((await fleet.take(node, 'strict')).status).toBe(200);
      expect((await fleet.take(node, 'plain', i % 2 === 0 ? 0 : 3)).status).toBe(200);
    }
    expect(fleet.report('strict')).toMatchObject({ answers: 60, violations: 0, duplicates: 0 });
    const plain = fleet.report('plain');
    expect(plain.duplicates).toBe(0);
    expect(plain.violations).toBeGreaterThan(0);
    expect(a.ordered.owned().length + b.ordered.owned().length).toBe(1);
    expect(a.ordered.forwarded + b.ordered.forwarded).toBeGreaterThan(0);
  });

  it('answers a range lease of a strict tag with 409 strict_tag_range', async () => {
    const { a } = await strictFleet();
    const answer = await a.get('/api/id/segment/strict/range?count=10');
    expect(answer.status).toBe(409);
    expect(JSON.parse(answer.body).error.code).toBe('strict_tag_range');
  });

  it('a change to strict completes when every node has acknowledged it, not after a time: a paused node holds it', async () => {
    fleet = new Fleet();
    const a = await fleet.add('a');
    const b = await fleet.add('b');
    // Both nodes serve the tag from their own segments first.
    await fleet.take(a, 'strict');
    await fleet.take(b, 'strict');
    b.paused = true;
    await fleet.order.setOrdering('strict', 'strict');
    await fleet.pass(10 * TERMS.leaseMs);
    expect(fleet.completedAt('strict')).toBeNull(); // b has not acknowledged: no owner, whatever the time
    const pending = await fleet.take(a, 'strict');
    expect(pending.status).toBe(503);
    expect(pending.headers['retry-after']).toBe('1');
    expect(JSON.parse(pending.body).error.message).toMatch(/turning strict/);
    expect(a.ordered.owned()).toEqual([]);
    wake(b);
    const completeAt = await untilComplete('strict');
    for (let i = 0; i < 20; i++) expect((await fleet.take(i % 2 ? a : b, 'strict')).status).toBe(200);
    const after = fleet.answers.get('strict')!.filter((x) => x.sentAt >= completeAt);
    // Above what either node served before: each dropped the segment it held when it applied the change.
    expect(Number(after[0]!.ids[0])).toBeGreaterThan(20);
    expect(fleet.report('strict')).toMatchObject({ answers: 20, violations: 0, duplicates: 0 });
  });
});

describe('changes of ordering while the fleet serves (the seams)', () => {
  it('strict → none → strict with the owner paused across both: its old lease and IDs never meet the next owner’s', async () => {
    const { a, b } = await strictFleet();
    for (let i = 0; i < 5; i++) await fleet.take(a, 'strict');
    expect(a.ordered.owned()).toEqual(['strict']);
    await fleet.pass(TERMS.leaseMs / 3 + 1); // a renews
    a.paused = true;
    await fleet.order.setOrdering('strict', 'none');
    await fleet.order.setOrdering('strict', 'strict');
    for (let i = 0; i < 5; i++) await fleet.take(b, 'strict'); // ordinary meanwhile, or 503 once b applied it
    await fleet.pass(TERMS.leaseMs / 2);
    expect(fleet.completedAt('strict')).toBeNull();
    wake(a); // within its old lease: it may serve its old segment, before the change completed
    for (let i = 0; i < 3; i++) await fleet.take(a, 'strict');
    await untilComplete('strict');
    for (let i = 0; i < 30; i++) await fleet.takeOk(i % 2 ? a : b, 'strict');
    expect(fleet.report('strict')).toMatchObject({ answers: 30, violations: 0, duplicates: 0 });
  });

  it('a node paused across “make strict” may serve its old buffer when it wakes, but only before the change completes', async () => {
    fleet = new Fleet();
    const a = await fleet.add('a');
    const b = await fleet.add('b');
    const c = await fleet.add('c');
    for (const n of [a, b, c]) await fleet.take(n, 'strict', 3);
    c.paused = true;
    await fleet.order.setOrdering('strict', 'strict');
    await fleet.pass(5 * TERMS.leaseMs);
    expect(fleet.completedAt('strict')).toBeNull();
    wake(c);
    // c's first request after waking is served from its old segment: the change is not complete, so no promise yet.
    expect((await fleet.take(c, 'strict')).status).toBe(200);
    await untilComplete('strict');
    for (let i = 0; i < 30; i++) expect((await fleet.take([a, b, c][i % 3]!, 'strict')).status).toBe(200);
    expect(fleet.report('strict')).toMatchObject({ answers: 30, violations: 0, duplicates: 0 });
  });

  it('the tag list never touches a tag’s ordering: a re-read after the change leaves the owner’s gate in place', async () => {
    const { a, b } = await strictFleet();
    await fleet.take(a, 'strict');
    await a.engine.refreshTags();
    await b.engine.refreshTags();
    expect(a.ordered.isStrict('strict') && b.ordered.isStrict('strict')).toBe(true);
    for (let i = 0; i < 10; i++) expect((await fleet.take(i % 2 ? a : b, 'strict')).status).toBe(200);
    expect(fleet.report('strict')).toMatchObject({ violations: 0, duplicates: 0 });
  });

  it('a tag deleted while strict and created again ordinary is ordinary; created again strict it waits for every node', async () => {
    const { a, b } = await strictFleet();
    await fleet.take(a, 'strict');
    fleet.order.deleteTag('strict');
    fleet.order.tags.add('strict');
    await fleet.pass(2 * POLL_MS);
    expect(a.ordered.isStrict('strict') || b.ordered.isStrict('strict')).toBe(false);
    expect(a.ordered.owned()).toEqual([]);
    b.paused = true;
    await fleet.order.setOrdering('strict', 'strict');
    await fleet.pass(5 * POLL_MS);
    expect(fleet.completedAt('strict')).toBeNull();
    wake(b);
    await untilComplete('strict');
  });

  it('a node acknowledges a change only once every client it vouches for has, or that client’s vouch ran out', async () => {
    fleet = new Fleet();
    const a = await fleet.add('a');
    const ask = (acked: number) =>
      a.get(`/api/id/ordering?client=client-0001&acked=${acked}`).then((r) => JSON.parse(r.body));
    expect(await ask(0)).toMatchObject({ version: 0, strict: [], vouchMs: CLIENT_VOUCH_MS, pollMs: POLL_MS });
    await fleet.order.setOrdering('strict', 'strict');
    await fleet.pass(3 * POLL_MS);
    expect(fleet.completedAt('strict')).toBeNull(); // a applied version 1; its client holds version 0
    const renewed = await ask(0);
    expect(renewed).toMatchObject({ version: 1, strict: ['strict'] });
    await fleet.pass(3 * POLL_MS);
    expect(fleet.completedAt('strict')).toBeNull();
    await ask(1); // the client dropped what it held of `strict`
    await untilComplete('strict');
    // A client that stops renewing is waited out: its vouch, and a tenth.
    await fleet.order.setOrdering('strict', 'none');
    await fleet.order.setOrdering('strict', 'strict');
    await fleet.pass(3 * POLL_MS);
    expect(fleet.completedAt('strict')).toBeNull();
    const since = fleet.clock.now();
    const completeAt = await untilComplete('strict', 2 * CLIENT_VOUCH_MS);
    expect(completeAt - since).toBeGreaterThanOrEqual(CLIENT_VOUCH_MS - 4 * POLL_MS);
    expect((await a.get('/api/id/ordering?client=client-0001&bye=1')).status).toBe(200);
  });
});

describe('handover', () => {
  it('after the owner dies: 503 until its lease and the margin ran out, then a new owner above every old ID', async () => {
    const { a, b } = await strictFleet();
    for (let i = 0; i < 5; i++) await fleet.take(a, 'strict');
    expect(a.ordered.owned()).toEqual(['strict']);
    a.paused = true; // as good as dead: answers nobody, renews nothing
    const diedAt = fleet.clock.now();
    let firstServedAt: number | null = null;
    while (firstServedAt === null) {
      const answer = await fleet.take(b, 'strict');
      if (answer.status === 200) firstServedAt = fleet.clock.now();
      else expect(JSON.parse(answer.body).error.code).toBe('owner_unavailable');
      await fleet.pass(POLL_MS);
    }
    expect(firstServedAt - diedAt).toBeGreaterThanOrEqual(TERMS.marginMs);
    expect(firstServedAt - diedAt).toBeLessThanOrEqual(TERMS.leaseMs + TERMS.marginMs + 3 * POLL_MS);
    expect(b.ordered.owned()).toEqual(['strict']);
    expect(fleet.report('strict')).toMatchObject({ violations: 0, duplicates: 0 });
  });

  it('an owner paused past its lease never serves its old segment when it wakes', async () => {
    const { a, b } = await strictFleet();
    for (let i = 0; i < 3; i++) await fleet.take(a, 'strict');
    a.paused = true;
    await fleet.pass(2 * TERMS.leaseMs);
    for (let i = 0; i < 3; i++) expect((await fleet.take(b, 'strict')).status).toBe(200);
    wake(a); // its old segment still holds IDs below b's; its late renewal has not come back yet
    for (let i = 0; i < 6; i++) expect((await fleet.take(i % 2 ? b : a, 'strict')).status).toBe(200);
    await fleet.pass(POLL_MS);
    expect(a.ordered.owned()).toEqual([]);
    expect(fleet.report('strict')).toMatchObject({ violations: 0, duplicates: 0 });
  });

  it('a graceful stop releases the lease, so the next owner starts at once', async () => {
    const { a, b } = await strictFleet();
    await fleet.take(a, 'strict');
    await a.engine.close({ giveBack: true });
    await a.ordered.close(100);
    fleet.nodes.delete('a');
    await fleet.pass(POLL_MS);
    expect((await fleet.take(b, 'strict')).status).toBe(200);
    expect(fleet.order.releases).toEqual([{ bizTag: 'strict', epoch: 1 }]);
    expect(fleet.order.participants.has('a-instance')).toBe(false); // no change waits for a stopped node
    expect(fleet.report('strict')).toMatchObject({ violations: 0, duplicates: 0 });
  });

  it('an owner cut off from the database stops serving when its lease runs out by its own clock', async () => {
    const { a } = await strictFleet();
    await fleet.take(a, 'strict');
    fleet.order.failWith = new Error('database unreachable');
    await fleet.pass(TERMS.leaseMs - TERMS.marginMs - POLL_MS);
    expect((await fleet.take(a, 'strict')).status).toBe(200); // still inside its lease
    await fleet.pass(2 * POLL_MS);
    const after = await fleet.take(a, 'strict');
    expect(after.status).toBe(503);
    expect(fleet.report('strict')).toMatchObject({ violations: 0, duplicates: 0 });
  });

  it('a refused renewal (the row moved on) stops the owner at once', async () => {
    const { a } = await strictFleet();
    await fleet.take(a, 'strict');
    fleet.order.rows.get('strict')!.epoch = 7; // an admin edit, or a successor the owner never saw
    await fleet.pass(TERMS.leaseMs / 3 + 1);
    expect(a.ordered.mayServe('strict')).toBe(false);
    expect(a.ordered.lost).toBe(1);
  });

  it('IDs that waited for a segment while the lease was lost are a gap, never an answer', async () => {
    const { a } = await strictFleet();
    await fleet.take(a, 'strict');
    fleet.tags.hold = true;
    const waiting = a.get('/api/id/segment/strict?count=30');
    await flush();
    const row = fleet.order.rows.get('strict')!;
    row.leaseExpiresAt = 0; // the row moved on (a successor's epoch): a loses the lease at its next poll
    row.epoch += 1;
    row.ownerInstance = null;
    await fleet.pass(POLL_MS);
    fleet.tags.release();
    await flush();
    fleet.tags.release();
    const answer = await waiting;
    expect(answer.status).toBe(503);
    expect(JSON.parse(answer.body).error.code).toBe('not_owner');
  });
});

describe('the engine restarting a tag', () => {
  it('a request waiting on a load across its tag’s restart is refused (not_owner, retryable) and claims nothing more', async () => {
    fleet = new Fleet();
    const tags = new FakeStore([{ bizTag: 't', step: 10 }]);
    const engine = new SegmentEngine({ store: tags, clock: fleet.clock, refreshIntervalMs: 0 });
    await engine.start();
    tags.hold = true;
    const waiting = Promise.resolve(engine.nextId('t'));
    const outcome = waiting.then(
      () => 'served',
      (e: { code?: string }) => e.code,
    );
    engine.restart('t');
    tags.release();
    await flush();
    expect(await outcome).toBe('not_owner');
    // The new buffer holds nothing: a segment claimed for that request would have outlived the change
    // (the seams run found one served after the tag went back to none, below IDs its owner had answered).
    expect(tags.allocateCalls).toHaveLength(1);
    expect(engine.snapshot('t')?.current ?? null).toBeNull();
    // The next request claims afresh.
    expect(Number(await engine.nextId('t'))).toBeGreaterThan(10);
  });
});
