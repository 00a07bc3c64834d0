import { describe, expect, it } from 'vitest';
import { Coalescer } from '../../lib/ordered/coalescer';
import type { Relayed } from '../../lib/ordered/forwarder';
import { flush } from '../support/fakes';

/** An owner that answers when told, handing out increasing IDs. */
function owner() {
  let next = 1;
  const sent: number[] = [];
  const pending: Array<() => void> = [];
  const send = (count: number) =>
    new Promise<Relayed>((resolve) => {
      sent.push(count);
      pending.push(() => {
        const ids = Array.from({ length: Math.max(1, count) }, () => String(next++));
        const body = count === 0 ? `{"tag":"t","id":"${ids[0]}"}` : `{"tag":"t","ids":${JSON.stringify(ids)}}`;
        resolve({ status: 200, contentType: 'application/json', body });
      });
    });
  return { send, sent, answer: () => pending.shift()?.() };
}

describe('relaying single IDs in batches', () => {
  it('sends the first request at once and the ones that came meanwhile as one batch, in arrival order', async () => {
    const o = owner();
    const c = new Coalescer(o.send);
    const first = c.take();
    const later = [c.take(), c.take(), c.take()];
    expect(o.sent).toEqual([0]);
    o.answer();
    expect((await first).id).toBe('1');
    await flush();
    expect(o.sent).toEqual([0, 3]);
    o.answer();
    expect((await Promise.all(later)).map((r) => r.id)).toEqual(['2', '3', '4']);
  });

  it('a request made after an answer came back is in a later batch, above it', async () => {
    const o = owner();
    const c = new Coalescer(o.send);
    const a = c.take();
    o.answer();
    const answered = await a;
    const b = c.take();
    await flush();
    o.answer();
    expect(Number((await b).id)).toBeGreaterThan(Number(answered.id));
    expect(o.sent).toEqual([0, 0]);
  });

  it('hands a failed relay to every request of its batch', async () => {
    const c = new Coalescer(async () => {
      throw new Error('owner gone');
    });
    await expect(Promise.all([c.take(), c.take()])).rejects.toThrow('owner gone');
    const notOwner = new Coalescer(async () => ({ status: 503, contentType: 'application/json', body: '{}' }));
    expect((await notOwner.take()).id).toBeNull();
  });
});
