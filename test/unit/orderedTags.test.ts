/**
 * Ordered tags on an in-process fleet: real engines and owner leases on one fake database and one fake clock, each
 * node's relay calling the other's ID handler. Every timing rule — the margin, a paused owner, a release — runs
 * without sleeping, and every answer goes through the real-time order check.
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

const TERMS: LeaseTerms = { leaseMs: 3_000, marginMs: 500, settleMs: 1_000 };
const POLL_MS = 200;

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
    const engine: SegmentEngine = new SegmentEngine({
      store: this.tags,
      clock: this.clock,
      refreshIntervalMs: 0,
      gate: {
        mayServe: (t) => ordered.mayServe(t),
        refusal: (t) => ordered.refusal(t),
        heardStrict: (t) => ordered.heardStrict(t),
      },
    });
    const ordered: OrderedTags = new OrderedTags({
      store,
      engine,
      self: { nodeId: name, instanceId: `${name}-instance`, address: name },
      terms: TERMS,
      pollMs: POLL_MS,
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

  /** Advances the clock in poll-sized steps, letting each step's reads and writes land. */
  async pass(ms: number): Promise<void> {
    for (let left = ms; left > 0; left -= POLL_MS) {
      this.clock.advance(Math.min(POLL_MS, left));
      await flush();
    }
  }

  report(tag: string) {
    return checkOrder(this.answers.get(tag) ?? []);
  }
}

/** The store as a stopped process sees it: calls made while paused run only when it wakes (late, as after SIGCONT). */
function pausable(store: OrderStore, node: () => Node): OrderStore {
  const hang = <T>(call: () => Promise<T>): Promise<T> =>
    node().paused ? new Promise<T>((resolve, reject) => node().held.push(() => call().then(resolve, reject))) : call();
  return {
    readOrder: () => hang(() => store.readOrder()),
    setOrdering: (...a) => hang(() => store.setOrdering(...a)),
    acquireOwner: (...a) => hang(() => store.acquireOwner(...a)),
    renewOwner: (...a) => hang(() => store.renewOwner(...a)),
    releaseOwner: (...a) => hang(() => store.releaseOwner(...a)),
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

async function strictFleet(): Promise<{ a: Node; b: Node }> {
  fleet = new Fleet();
  await fleet.order.setOrdering('strict', 'strict');
  const a = await fleet.add('a');
  const b = await fleet.add('b');
  await fleet.pass(TERMS.settleMs + POLL_MS);
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

  it('gives no owner to a tag made strict until every node has had time to hear of it', async () => {
    fleet = new Fleet();
    const a = await fleet.add('a');
    const b = await fleet.add('b');
    // Both nodes serve the tag from their own segments first.
    await fleet.take(a, 'strict');
    await fleet.take(b, 'strict');
    await fleet.order.setOrdering('strict', 'strict');
    await fleet.pass(POLL_MS);
    const early = await fleet.take(a, 'strict');
    expect(early.status).toBe(503);
    expect(early.headers['retry-after']).toBe('1');
    await fleet.pass(TERMS.settleMs);
    fleet.answers.clear();
    for (let i = 0; i < 20; i++) expect((await fleet.take(i % 2 ? a : b, 'strict')).status).toBe(200);
    // Above what either node served before: each dropped the segment it held when the tag turned strict.
    const first = fleet.report('strict');
    expect(first).toMatchObject({ violations: 0, duplicates: 0 });
    expect(Number(fleet.answers.get('strict')![0]!.ids[0])).toBeGreaterThan(20);
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
});

describe('the engine under a strict tag', () => {
  const open = { mayServe: () => true, refusal: () => new LeafError('not_owner', 'no'), heardStrict: () => undefined };

  /** An engine on one strict tag `t` of step 10; `gate` absent: nobody owns it. */
  async function strictEngine(gate?: typeof open): Promise<{ engine: SegmentEngine; tags: FakeStore }> {
    fleet = new Fleet();
    const tags = new FakeStore([{ bizTag: 't', step: 10 }]);
    const engine = new SegmentEngine({
      store: {
        listTags: async () => [{ bizTag: 't', step: 10, strict: true }],
        allocate: (t, s) => tags.allocate(t, s),
      },
      clock: fleet.clock,
      refreshIntervalMs: 0,
      gate,
    });
    await engine.start();
    return { engine, tags };
  }

  it('a request waiting on a load goes on with the new buffer when its owner starts a new epoch', async () => {
    const { engine, tags } = await strictEngine(open);
    tags.hold = true;
    const waiting = Promise.resolve(engine.nextId('t'));
    engine.restartStrict('t');
    tags.release();
    await flush();
    tags.release();
    expect(Number(await waiting)).toBeGreaterThan(10);
  });

  it('never serves a strict tag the gate refuses, nor leases a range of it', async () => {
    const { engine } = await strictEngine();
    await expect(Promise.resolve().then(() => engine.nextId('t'))).rejects.toMatchObject({ code: 'owner_unavailable' });
    expect(() => engine.leaseRanges('t', 5)).toThrow(expect.objectContaining({ code: 'strict_tag_range' }));
  });
});
