import { describe, expect, it } from 'vitest';
import { Coalescer } from '../../lib/ordered/coalescer';
import type { Relayed } from '../../lib/ordered/forwarder';
import { expandRanges, rangesOfRuns } from '../../lib/segment/idRanges';
import { flush } from '../support/fakes';

/** An owner that answers when told, handing out increasing IDs as runs (one run per answer, two past 2^53). */
function owner(start = 1n) {
  let next = start;
  const sent: number[] = [];
  const pending: Array<() => void> = [];
  const send = (count: number) =>
    new Promise<Relayed>((resolve) => {
      sent.push(count);
      pending.push(() => {
        const first = next;
        next += BigInt(count);
        const body = JSON.stringify({ tag: 't', count, ranges: [{ start: String(first), end: String(next - 1n) }] });
        resolve({ status: 200, contentType: 'application/json', body });
      });
    });
  return { send, sent, answer: () => pending.shift()?.() };
}

/** The owner's runs as the relay reads them (no regions: the IDs are the positions). */
const parse = (body: string) =>
  rangesOfRuns((JSON.parse(body) as { ranges: Array<{ start: string; end: string }> }).ranges);

const ids = (outcome: { ids: Parameters<typeof expandRanges>[0] | null }) =>
  outcome.ids === null ? null : expandRanges(outcome.ids).map(String);

describe('relaying requests of a strict tag in batches', () => {
  it('sends the first request at once and the ones that came meanwhile as one batch, split in arrival order', async () => {
    const o = owner();
    const c = new Coalescer(o.send, parse);
    const first = c.take(1);
    const later = [c.take(1), c.take(3), c.take(1)];
    expect(o.sent).toEqual([1]);
    o.answer();
    expect(ids(await first)).toEqual(['1']);
    await flush();
    expect(o.sent).toEqual([1, 5]);
    o.answer();
    expect((await Promise.all(later)).map(ids)).toEqual([['2'], ['3', '4', '5'], ['6']]);
  });

  it('a request made after an answer came back is in a later batch, above it', async () => {
    const o = owner();
    const c = new Coalescer(o.send, parse);
    const a = c.take(1);
    o.answer();
    const answered = await a;
    const b = c.take(1);
    await flush();
    o.answer();
    expect(Number(ids(await b)![0])).toBeGreaterThan(Number(ids(answered)![0]));
    expect(o.sent).toEqual([1, 1]);
  });

  it('keeps a batch within what one owner request may ask for', async () => {
    const o = owner();
    const c = new Coalescer(o.send, parse);
    const first = c.take(1);
    const rest = [c.take(6_000), c.take(6_000)];
    o.answer();
    await first;
    await flush();
    o.answer();
    await flush();
    o.answer();
    await Promise.all(rest);
    expect(o.sent).toEqual([1, 6_000, 6_000]);
  });

  it('splits IDs above 2^53 exactly', async () => {
    const o = owner(2n ** 62n);
    const c = new Coalescer(o.send, parse);
    const a = c.take(1);
    const [b, d] = [c.take(2), c.take(1)];
    o.answer();
    await a;
    await flush();
    o.answer();
    expect(ids(await b)).toEqual([String(2n ** 62n + 1n), String(2n ** 62n + 2n)]);
    expect(ids(await d)).toEqual([String(2n ** 62n + 3n)]);
  });

  it('hands a failed relay to every request of its batch', async () => {
    const c = new Coalescer(async () => {
      throw new Error('owner gone');
    }, parse);
    await expect(Promise.all([c.take(1), c.take(1)])).rejects.toThrow('owner gone');
    const notOwner = new Coalescer(async () => ({ status: 503, contentType: 'application/json', body: '{}' }), parse);
    expect((await notOwner.take(1)).ids).toBeNull();
  });
});

it('says when it is idle, so its owner can drop it', async () => {
  const o = owner();
  let idle = 0;
  const c = new Coalescer(o.send, parse, () => idle++);
  const a = c.take(1);
  const b = c.take(1);
  o.answer();
  await a;
  expect(idle).toBe(0); // b still waits
  await flush();
  o.answer();
  await b;
  await flush();
  expect(idle).toBe(1);
});
