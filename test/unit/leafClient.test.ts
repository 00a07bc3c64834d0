/**
 * The TypeScript client (lib/client) against an injected fetch that plays one or more leaf-ts nodes, on a fake
 * clock: buffering and the 10% prefetch, rate-based lease sizes, failover on errors and timeouts, unconfirmed
 * leases dropped whole, exact bigints above 2^53, close().
 */
import { describe, expect, it } from 'vitest';
import { LeafClient, LeafClientError, type FetchAnswer, type FetchLike } from '@/lib/client';
import { parseLease } from '@/lib/client/lease';
import { MAX_LEASE_GROWTH, nextLeaseSize } from '@/lib/client/leaseSize';
import { FakeClock, flush } from '../support/fakes';

type Behaviour =
  | 'ok'
  | 'fail503'
  | 'hang'
  | 'malformed'
  | 'wrongCount'
  | 'overlap'
  | 'wrongTag'
  | 'notFound'
  | 'unauthorized'
  | 'strict';

interface Call {
  url: string;
  count: number;
  headers: Record<string, string>;
  signal: AbortSignal;
}

/** A fleet of fake nodes sharing one counter per tag, as nodes on one leaf_alloc table would. */
class FakeFleet {
  readonly calls: Call[] = [];
  /** Per base URL; `ok` when unset. */
  readonly behaviour = new Map<string, Behaviour>();
  /** IDs each answer handed out, so a test can prove dropped ones never come back. */
  readonly handedOut: Array<{ url: string; start: bigint; end: bigint }> = [];
  /** Hung answers: resolve them late to show they are ignored. */
  readonly hung: Array<() => void> = [];
  /** When set, answers wait until `release()`. */
  held: Array<() => void> | null = null;
  next = 1n;
  /** Split every lease into runs of at most this many IDs (0: one run). */
  runSize = 0;
  /** A region of `stride` regions, number `region`: each position p is the ID p × stride + region. */
  stride = 1;
  region = 0;

  /** The ordering route (vouches): its own calls, answered at once unless `orderingDown`. */
  readonly orderingCalls: URL[] = [];
  orderingDown = false;
  version = 0;
  readonly strictTags = new Set<string>();
  vouchMs = 60_000;
  /** The node's LEAF_RANGE_LEASE_VALID_MS in every lease answer; null: none (a node before it). */
  validMs: number | null = null;

  readonly fetch: FetchLike = (url, init) => {
    const parsed = new URL(url);
    const base = parsed.origin;
    if (parsed.pathname === '/api/id/ordering') {
      // A server that hangs or fails does so for every route.
      const down = this.behaviour.get(base);
      if (down === 'hang') return new Promise(() => undefined);
      if (down === 'fail503') return Promise.resolve(this.ordering(parsed, 503));
      return Promise.resolve(this.ordering(parsed));
    }
    const tag = decodeURIComponent(parsed.pathname.split('/')[4] as string);
    const count = Number(parsed.searchParams.get('count'));
    this.calls.push({ url, count, headers: init.headers, signal: init.signal });
    const answer = (): FetchAnswer => this.answer(base, tag, count, parsed.pathname.endsWith('/range'));
    const behaviour = this.behaviour.get(base) ?? 'ok';
    if (behaviour === 'hang') {
      return new Promise((resolve) => this.hung.push(() => resolve(answer())));
    }
    if (this.held !== null) {
      const held = this.held;
      return new Promise((resolve) => held.push(() => resolve(answer())));
    }
    return Promise.resolve(answer());
  };

  private ordering(url: URL, status = this.orderingDown ? 503 : 200): FetchAnswer {
    this.orderingCalls.push(url);
    const body =
      status !== 200
        ? { error: { code: 'store_unavailable', message: 'down' } }
        : { version: this.version, strict: [...this.strictTags], vouchMs: this.vouchMs, pollMs: 1_000 };
    return { status, text: async () => JSON.stringify(body) };
  }

  release(): void {
    const held = this.held ?? [];
    this.held = null;
    for (const go of held) go();
  }

  private answer(base: string, tag: string, count: number, range: boolean): FetchAnswer {
    const behaviour = this.behaviour.get(base) ?? 'ok';
    const reply = (status: number, body: unknown) => ({
      status,
      text: async () => (typeof body === 'string' ? body : JSON.stringify(body)),
    });
    if (behaviour === 'strict') {
      if (range) return reply(409, { error: { code: 'strict_tag_range', message: 'strict' } });
      const ids = Array.from({ length: count }, () => String(this.next++));
      return reply(200, { tag, ids });
    }
    if (behaviour === 'fail503') return reply(503, { error: { code: 'store_unavailable', message: 'down' } });
    if (behaviour === 'notFound') return reply(404, { error: { code: 'tag_not_found', message: 'no such tag' } });
    if (behaviour === 'unauthorized') return reply(401, { error: { code: 'unauthorized', message: 'token' } });
    const start = this.next;
    const end = start + BigInt(count) - 1n;
    this.next = end + 1n;
    this.handedOut.push({ url: base, start, end });
    if (behaviour === 'malformed') return reply(200, '{"tag":"orders","count":');
    const ranges: Array<{ start: string; end: string }> = [];
    const run = BigInt(this.runSize > 0 ? this.runSize : count);
    for (let s = start; s <= end; s += run)
      ranges.push({ start: String(s), end: String(s + run - 1n < end ? s + run - 1n : end) });
    if (behaviour === 'wrongCount')
      return reply(200, { tag, count, ranges: [{ start: String(start), end: String(end + 1n) }] });
    if (behaviour === 'overlap')
      return reply(200, {
        tag,
        count,
        ranges: [
          { start: String(start), end: String(start) },
          { start: String(start), end: String(end - 1n) },
        ],
      });
    if (behaviour === 'wrongTag') return reply(200, { tag: `${tag}x`, count, ranges });
    if (this.stride > 1) {
      const at = (p: string) => String(BigInt(p) * BigInt(this.stride) + BigInt(this.region));
      const regional = ranges.map((r) => ({ start: at(r.start), end: at(r.end) }));
      return reply(200, { tag, count, stride: this.stride, ranges: regional });
    }
    return reply(200, { tag, count, ranges, ...(this.validMs === null ? {} : { validMs: this.validMs }) });
  }
}

const A = 'http://a.test:3000';
const B = 'http://b.test:3000';

function setup(options: { urls?: string[]; minLease?: number; maxLease?: number; timeoutMs?: number } = {}) {
  const fleet = new FakeFleet();
  const clock = new FakeClock();
  const client = new LeafClient({
    urls: options.urls ?? [A],
    fetch: fleet.fetch,
    clock,
    minLease: options.minLease ?? 100,
    maxLease: options.maxLease,
    timeoutMs: options.timeoutMs ?? 1_000,
    token: 'secret',
  });
  return { fleet, clock, client };
}

/** Takes `n` IDs through nextId, awaiting only when it must. */
async function drain(client: LeafClient, tag: string, n: number): Promise<bigint[]> {
  const ids: bigint[] = [];
  for (let i = 0; i < n; i++) {
    const id = client.nextId(tag);
    ids.push(typeof id === 'bigint' ? id : await id);
  }
  return ids;
}

describe('LeafClient buffering', () => {
  it('waits for the first lease, then hands out IDs synchronously from it', async () => {
    const { fleet, client } = setup();
    const first = client.nextId('orders');
    expect(first).toBeInstanceOf(Promise);
    expect(await first).toBe(1n);
    expect(fleet.calls).toHaveLength(1);
    expect(fleet.calls[0]?.count).toBe(100);
    expect(fleet.calls[0]?.url).toBe(`${A}/api/id/segment/orders/range?count=100`);
    expect(fleet.calls[0]?.headers.authorization).toBe('Bearer secret');
    for (let i = 2n; i <= 9n; i++) expect(client.nextId('orders')).toBe(i);
    expect(fleet.calls).toHaveLength(1);
  });

  it('asks for the next lease when 10% of the current one is used, and switches to it without waiting', async () => {
    const { fleet, client } = setup();
    await client.nextId('orders');
    for (let i = 0; i < 8; i++) client.nextId('orders');
    expect(fleet.calls).toHaveLength(1); // 9 of 100 used
    fleet.held = [];
    expect(client.nextId('orders')).toBe(10n); // the 10th
    expect(fleet.calls).toHaveLength(2);
    fleet.release();
    await flush();
    const rest = [];
    for (let i = 0; i < 90; i++) rest.push(client.nextId('orders'));
    expect(rest.every((id) => typeof id === 'bigint')).toBe(true);
    const switched = client.nextId('orders');
    expect(typeof switched).toBe('bigint'); // from the standby lease, no await
    expect(switched).toBe(101n);
    expect(fleet.calls).toHaveLength(2);
  });

  it('makes callers that find both buffers empty share the one request in flight', async () => {
    const { fleet, client } = setup();
    fleet.held = [];
    const waiting = [client.nextId('orders'), client.nextId('orders'), client.nextId('orders')];
    expect(fleet.calls).toHaveLength(1);
    fleet.release();
    expect(await Promise.all(waiting)).toEqual([1n, 2n, 3n]);
  });

  it('take(n) drains runs and leases in order, and asks for at least what it still needs', async () => {
    const { fleet, client } = setup();
    fleet.runSize = 30; // leases come back as several runs
    const ids = await client.take('orders', 250);
    expect(ids).toEqual(Array.from({ length: 250 }, (_, i) => BigInt(i + 1)));
    expect(fleet.calls.some((c) => c.count >= 150)).toBe(true);
    const sync = client.take('orders', 1);
    expect(Array.isArray(sync) || sync instanceof Promise).toBe(true);
    expect(() => client.take('orders', 0)).toThrow(LeafClientError);
    expect(() => client.take('orders', 1_000_001)).toThrow(/count/);
  });

  it('a tag handle hands out the same sequence as nextId, and a malformed tag is refused before any request', async () => {
    const { fleet, client } = setup();
    const orders = client.tag('orders');
    expect(client.tag('orders')).toBe(orders);
    expect(await orders.next()).toBe(1n);
    expect(client.nextId('orders')).toBe(2n);
    expect(orders.next()).toBe(3n);
    expect(() => client.nextId('bad tag/..')).toThrow(expect.objectContaining({ code: 'invalid_tag' }));
    expect(fleet.calls).toHaveLength(1);
  });
});

describe('LeafClient options and tags', () => {
  it.each([
    ['no urls', { urls: [] }],
    ['not a URL', { urls: ['10.0.0.5:3000'] }],
    ['not http', { urls: ['ftp://a.test'] }],
    ['timeoutMs 0', { urls: [A], timeoutMs: 0 }],
    ['timeoutMs unbounded', { urls: [A], timeoutMs: Infinity }],
    ['maxLease above the route limit', { urls: [A], maxLease: 10_000_001 }],
    ['minLease above maxLease', { urls: [A], minLease: 5_000, maxLease: 1_000 }],
  ])('refuses %s', (_label, options) => {
    expect(() => new LeafClient({ fetch: new FakeFleet().fetch, ...options })).toThrow(
      expect.objectContaining({ code: 'invalid_options' }),
    );
  });

  it('keeps each tag its own sequence when calls alternate between tags', async () => {
    const { fleet, client } = setup();
    const a = [await client.nextId('a')];
    const b = [await client.nextId('b')];
    for (let i = 0; i < 5; i++) {
      a.push(client.nextId('a') as bigint);
      b.push(client.nextId('b') as bigint);
    }
    expect(a).toEqual([1n, 2n, 3n, 4n, 5n, 6n]);
    expect(b).toEqual([101n, 102n, 103n, 104n, 105n, 106n]);
    expect(fleet.calls.map((c) => c.url.split('/')[6])).toEqual(['a', 'b']);
  });
});

describe('lease sizes from the observed rate', () => {
  const limits = { minLease: 100, maxLease: 1_000_000, targetMs: 30_000 };

  it.each([
    ['no lease yet: the minimum', 0, 0, 0, 100],
    ['10 IDs/s: 30 s worth', 100, 10, 1_000, 300],
    ['slow: floored at the minimum', 1_000, 1, 60_000, 100],
    ['a burst: at most MAX_LEASE_GROWTH× the last lease', 100, 10, 1, 100 * MAX_LEASE_GROWTH],
    ['fast for long: capped at the maximum', 500_000, 50_000, 100, 1_000_000],
  ])('%s', (_label, previous, used, elapsedMs, expected) => {
    expect(nextLeaseSize(limits, previous, used, elapsedMs)).toBe(expected);
  });

  it('the client sizes its prefetch from how fast the current lease went', async () => {
    const { fleet, clock, client } = setup();
    await client.nextId('orders'); // lease 1: 100
    for (let i = 0; i < 9; i++) {
      clock.advance(100);
      client.nextId('orders');
    }
    // 10 IDs in 900 ms → ~11/s → 30 s ≈ 334
    expect(fleet.calls[1]?.count).toBe(Math.ceil((10 * 30_000) / 900));
  });

  it('grows to the maximum under a steady high rate, and shrinks when the rate falls', async () => {
    const { fleet, clock, client } = setup({ maxLease: 20_000 });
    await drain(client, 'orders', 40_000); // no time passes: as fast as possible
    const sizes = fleet.calls.map((c) => c.count);
    expect(sizes.slice(0, 4)).toEqual([100, 1_000, 10_000, 20_000]);
    // Now slowly: 1 ID per second.
    const before = fleet.calls.length;
    for (let i = 0; i < 30_000 && fleet.calls.length === before; i++) {
      clock.advance(1_000);
      await flush(); // a second passes: the vouch's renewal lands
      await drain(client, 'orders', 1);
    }
    expect(fleet.calls.length).toBe(before + 1);
    expect(fleet.calls.at(-1)?.count).toBeLessThan(20_000);
  });
});

describe('failover and unconfirmed leases', () => {
  it('moves to the next server on an error answer, and starts there next time', async () => {
    const { fleet, client } = setup({ urls: [A, B] });
    fleet.behaviour.set(A, 'fail503');
    expect(await client.nextId('orders')).toBe(1n);
    expect(fleet.calls.map((c) => new URL(c.url).origin)).toEqual([A, B]);
    await drain(client, 'orders', 20);
    expect(new URL(fleet.calls.at(-1)?.url as string).origin).toBe(B);
  });

  it('moves on after timeoutMs to a server that does not answer, and ignores its late answer', async () => {
    const { fleet, clock, client } = setup({ urls: [A, B], timeoutMs: 500 });
    fleet.behaviour.set(A, 'hang');
    const id = client.nextId('orders');
    await flush();
    expect(fleet.calls).toHaveLength(1);
    clock.advance(499);
    await flush();
    expect(fleet.calls).toHaveLength(1);
    clock.advance(1);
    await flush();
    expect(fleet.calls).toHaveLength(2);
    expect(fleet.calls[0]?.signal.aborted).toBe(true);
    const first = await id;
    // A's answer arrives after all: its IDs were leased to nobody we trust, so they are never issued.
    for (const late of fleet.hung) late();
    await flush();
    const ids = [first, ...(await drain(client, 'orders', 300))];
    const lateLease = fleet.handedOut.find((h) => h.url === A);
    expect(lateLease).toBeDefined();
    expect(
      ids.some((x) => x >= (lateLease as { start: bigint }).start && x <= (lateLease as { end: bigint }).end),
    ).toBe(false);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('a request started after a server failed begins at the next one, not at the failed one', async () => {
    const { fleet, clock, client } = setup({ urls: [A, B], timeoutMs: 500 });
    fleet.behaviour.set(A, 'hang');
    const x = client.nextId('x');
    fleet.held = [];
    clock.advance(500); // A timed out; x now waits on B, which has not answered yet
    await flush();
    const y = client.nextId('y');
    await flush();
    fleet.release();
    await Promise.all([x, y]);
    expect(fleet.calls.map((c) => `${new URL(c.url).origin}${new URL(c.url).pathname.split('/')[4]}`)).toEqual([
      `${A}x`,
      `${B}x`,
      `${B}y`,
    ]);
  });

  it.each(['malformed', 'wrongCount', 'overlap', 'wrongTag'] as const)(
    'drops a %s lease whole and fails over',
    async (behaviour) => {
      const { fleet, client } = setup({ urls: [A, B] });
      fleet.behaviour.set(A, behaviour);
      const ids = await drain(client, 'orders', 50);
      const dropped = fleet.handedOut.filter((h) => h.url === A);
      expect(dropped.length).toBeGreaterThan(0);
      for (const d of dropped) expect(ids.some((x) => x >= d.start && x <= d.end)).toBe(false);
      expect(new Set(ids).size).toBe(50);
    },
  );

  it('rejects with unavailable when every server fails, and tries again on the next call', async () => {
    const { fleet, client } = setup({ urls: [A, B] });
    fleet.behaviour.set(A, 'fail503');
    fleet.behaviour.set(B, 'malformed');
    await expect(client.nextId('orders')).rejects.toMatchObject({ code: 'unavailable' });
    expect(fleet.calls).toHaveLength(2);
    fleet.behaviour.set(B, 'ok');
    expect(typeof (await client.nextId('orders'))).toBe('bigint');
  });

  it('does not fail over on 401, and reports tag_not_found when every server says so', async () => {
    const { fleet, client } = setup({ urls: [A, B] });
    fleet.behaviour.set(A, 'unauthorized');
    await expect(client.nextId('orders')).rejects.toMatchObject({ code: 'unauthorized', status: 401 });
    expect(fleet.calls).toHaveLength(1);
    fleet.behaviour.set(A, 'notFound');
    fleet.behaviour.set(B, 'notFound');
    await expect(client.nextId('nope')).rejects.toMatchObject({ code: 'tag_not_found', status: 404 });
  });

  it('reports what the servers that answered said when the others were unreachable', async () => {
    const { fleet, clock, client } = setup({ urls: [A, B], timeoutMs: 500 });
    fleet.behaviour.set(A, 'hang');
    fleet.behaviour.set(B, 'notFound');
    const id = client.nextId('nope');
    clock.advance(500);
    await expect(id).rejects.toMatchObject({ code: 'tag_not_found', status: 404 });
  });

  it('a failed prefetch is retried once half of what is left is used, without a timer', async () => {
    const { fleet, clock, client } = setup();
    await client.nextId('orders');
    const timers = clock.pendingTimers; // the vouch's renewal
    fleet.behaviour.set(A, 'fail503');
    await drain(client, 'orders', 9); // 10 used: prefetch fails
    await flush();
    expect(fleet.calls).toHaveLength(2);
    expect(clock.pendingTimers).toBe(timers);
    fleet.behaviour.set(A, 'ok');
    await drain(client, 'orders', 44); // 54 used, 46 left: not yet
    expect(fleet.calls).toHaveLength(2);
    await drain(client, 'orders', 1); // 45 left = half of 90
    expect(fleet.calls).toHaveLength(3);
  });
});

describe('a strict tag', () => {
  it('asks the service on every call once a range lease is refused, so no ID waits in a buffer', async () => {
    const { fleet, client } = setup();
    fleet.behaviour.set(A, 'strict');
    const first = await client.nextId('orders');
    const second = await client.nextId('orders');
    const batch = await client.take('orders', 3);
    expect([first, second, ...batch]).toEqual([1n, 2n, 3n, 4n, 5n]);
    // One refused lease, then one request per call: nothing was held back for a later call.
    expect(fleet.calls.map((c) => new URL(c.url).pathname.endsWith('/range'))).toEqual([true, false, false, false]);
    expect(fleet.calls.slice(1).map((c) => c.count)).toEqual([1, 1, 3]);
  });
});

describe('a tag turned strict while the client holds its leases (the vouch)', () => {
  it('drops its current and standby leases before it reports the version, then asks on every call', async () => {
    const { fleet, clock, client } = setup();
    const before = await drain(client, 'orders', 20); // a lease of 100, and the standby fetched at 10 %
    await flush();
    expect(client.tag('orders').buffered).toBeGreaterThan(80);
    fleet.version = 1;
    fleet.strictTags.add('orders');
    fleet.behaviour.set(A, 'strict');
    clock.advance(1_000); // the next renewal says so
    await flush();
    expect(client.tag('orders').buffered).toBe(0);
    // It reported version 1 only after it dropped them: the nodes acknowledge only then.
    expect(fleet.orderingCalls.at(-1)?.searchParams.get('acked')).toBe('1');
    const after = [await client.nextId('orders'), ...(await client.take('orders', 3))];
    expect(Math.min(...after.map(Number))).toBeGreaterThan(Math.max(...before.map(Number)) + 100);
    expect(fleet.calls.slice(-2).map((c) => new URL(c.url).pathname.endsWith('/range'))).toEqual([false, false]);
  });

  it('a lease that lands after the tag turned strict is dropped whole', async () => {
    const { fleet, clock, client } = setup();
    await client.nextId('orders');
    fleet.held = [];
    await drain(client, 'orders', 10); // the standby lease is asked for and held
    fleet.version = 1;
    fleet.strictTags.add('orders');
    clock.advance(1_000);
    await flush();
    fleet.release(); // the lease lands now
    await flush();
    expect(client.tag('orders').buffered).toBe(0);
  });

  it('hands out no leased ID without a live vouch, and again once a node vouches', async () => {
    const { fleet, clock, client } = setup();
    await client.nextId('orders');
    fleet.orderingDown = true;
    for (let t = 0; t < 55; t++) {
      clock.advance(1_000);
      await flush();
    }
    // 60 s of vouch less its last tenth have passed without a renewal.
    const held = client.tag('orders').buffered;
    expect(held).toBeGreaterThan(0);
    await expect(Promise.resolve().then(() => client.nextId('orders'))).rejects.toMatchObject({ code: 'unavailable' });
    fleet.orderingDown = false;
    expect(await client.nextId('orders')).toBe(2n);
  });

  it('close tells a node it holds nothing any more', async () => {
    const { fleet, client } = setup();
    await client.nextId('orders');
    client.close();
    await flush();
    expect(fleet.orderingCalls.at(-1)?.searchParams.get('bye')).toBe('1');
  });
});

describe('exact bigints', () => {
  it('hands out IDs above 2^53 exactly, up to 2^63−1', async () => {
    const { fleet, client } = setup();
    fleet.next = 2n ** 53n + 1n; // 9007199254740993: not a double
    const ids = await drain(client, 'orders', 3);
    expect(ids).toEqual([9007199254740993n, 9007199254740994n, 9007199254740995n]);
    expect(String(ids[0])).toBe('9007199254740993');
  });

  it('crosses 2^53 exactly within a run and from run to run, through nextId and take', async () => {
    const top = 2n ** 53n;
    for (const runSize of [0, 2]) {
      const { fleet, client } = setup({ minLease: 8 });
      fleet.runSize = runSize; // 0: one run straddling 2^53; 2: a run ending below it, then runs above it
      fleet.next = top - 2n;
      const ids = [...(await drain(client, 'orders', 3)), ...(await client.take('orders', 5))];
      expect(ids).toEqual([-2n, -1n, 0n, 1n, 2n, 3n, 4n, 5n].map((d) => top + d));
    }
  });

  it('accepts a lease ending at 2^63−1 and refuses one past it or not in plain decimal', () => {
    expect(
      parseLease('{"tag":"t","count":2,"ranges":[{"start":"9223372036854775806","end":"9223372036854775807"}]}', 't', 2)
        .bounds,
    ).toEqual([9223372036854775806n, 9223372036854775807n]);
    for (const [start, end] of [
      ['9223372036854775807', '9223372036854775808'],
      ['1e3', '1001'],
      ['01', '2'],
      ['-1', '0'],
    ]) {
      expect(() => parseLease(JSON.stringify({ tag: 't', count: 2, ranges: [{ start, end }] }), 't', 2)).toThrow(
        LeafClientError,
      );
    }
    expect(() => parseLease('{"tag":"t","count":2,"ranges":[{"start":1,"end":2}]}', 't', 2)).toThrow(/decimal/);
    // Consistent in itself, but not the count asked for.
    expect(() => parseLease('{"tag":"t","count":3,"ranges":[{"start":"1","end":"3"}]}', 't', 2)).toThrow(
      /not the 2 asked for/,
    );
  });
});

describe('leases of a region (a stride)', () => {
  it('hands out every ID of a strided lease, run by run, through nextId and take, and nothing between', async () => {
    const { fleet, client } = setup({ minLease: 6, maxLease: 6 });
    fleet.stride = 3;
    fleet.region = 2;
    fleet.runSize = 4; // a lease of two runs: 4 positions, then 2
    const ids = [...(await drain(client, 'orders', 5)), ...(await client.take('orders', 9))];
    const positions = Array.from({ length: 14 }, (_, i) => BigInt(i + 1));
    expect(ids).toEqual(positions.map((p) => p * 3n + 2n));
  });

  it('strided above 2^53: exact bigints', async () => {
    const { fleet, client } = setup({ minLease: 4, maxLease: 4 });
    fleet.stride = 2;
    fleet.region = 1;
    fleet.next = 2n ** 53n;
    expect(await client.take('orders', 6)).toEqual([0n, 1n, 2n, 3n, 4n, 5n].map((d) => (2n ** 53n + d) * 2n + 1n));
  });

  it('refuses a stride out of range, or a run that does not end on its stride', () => {
    const lease = (stride: unknown, start: string, end: string) =>
      JSON.stringify({ tag: 't', count: 3, stride, ranges: [{ start, end }] });
    expect(parseLease(lease(4, '5', '13'), 't', 3)).toEqual({ count: 3, stride: 4, bounds: [5n, 13n], validMs: null });
    expect(() => parseLease(lease(4, '5', '12'), 't', 3)).toThrow(/does not end on its stride/);
    expect(() => parseLease(lease(4, '5', '17'), 't', 3)).toThrow(/hold 4 IDs, not 3/);
    for (const bad of [0, 1.5, '2', 1025]) expect(() => parseLease(lease(bad, '5', '13'), 't', 3)).toThrow(/stride/);
  });
});

describe('a lease is handed out only within its validMs, counted from the request', () => {
  it('drops the current lease at its validity, and a standby past it, and asks again', async () => {
    const { fleet, clock, client } = setup();
    fleet.validMs = 5_000;
    clock.advance(1); // the fake clock starts at 0; requests are timed from here
    expect(await client.nextId('orders')).toBe(1n);
    for (let i = 0; i < 9; i++) client.nextId('orders'); // 10 used: the standby 101..200 is asked for
    await flush();
    expect(fleet.calls).toHaveLength(2);
    clock.advance(5_000); // both leases asked for 5 s ago: neither may hand out another ID
    await flush();
    const next = client.nextId('orders');
    expect(next).toBeInstanceOf(Promise); // not 11, nor the standby's first: a new lease
    expect(fleet.handedOut).toHaveLength(3);
    expect(await next).toBe(fleet.handedOut[2]?.start);
  });

  it('keeps serving a lease within its validity, and without validMs (an older node) for as long as it lasts', async () => {
    for (const validMs of [5_000, null]) {
      const { fleet, clock, client } = setup();
      fleet.validMs = validMs;
      expect(await client.nextId('orders')).toBe(1n);
      clock.advance(4_900);
      await flush();
      expect(client.nextId('orders')).toBe(2n);
      client.close();
      expect(clock.pendingTimers).toBe(0); // the expiry timer goes with the lease
    }
  });
});

describe('close()', () => {
  it('fails waiting calls and later ones with closed, aborts the request in flight, and drops what it holds', async () => {
    const { fleet, clock, client } = setup();
    await client.nextId('orders');
    fleet.held = [];
    const waiting = client.nextId('fresh');
    client.close();
    await expect(waiting).rejects.toMatchObject({ code: 'closed' });
    expect(fleet.calls.at(-1)?.signal.aborted).toBe(true);
    expect(() => client.nextId('orders')).toThrow(expect.objectContaining({ code: 'closed' }));
    expect(() => client.nextId('other')).toThrow(expect.objectContaining({ code: 'closed' }));
    expect(clock.pendingTimers).toBe(0);
    fleet.release(); // the abandoned answer lands: nothing to hand it to
    await flush();
    expect(() => client.tag('fresh').next()).toThrow(expect.objectContaining({ code: 'closed' }));
  });
});
