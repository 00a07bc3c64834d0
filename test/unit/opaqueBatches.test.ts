/**
 * @leaf-ts/client's opaque batches (lib/client/opaqueBatches.ts) are held like leases: a batch's IDs go out only
 * within the node's validMs of asking for it, then the rest is a gap; without validMs (an older node), until used up.
 */
import { describe, expect, it } from 'vitest';
import { OpaqueBatches } from '@/lib/client/opaqueBatches';
import type { LeaseSource } from '@/lib/client/leafTag';

function fakeSource(validMs: number | null) {
  let next = 1n;
  const asked: number[] = [];
  const source: LeaseSource = {
    lease: () => Promise.reject(new Error('no leases for an opaque tag')),
    take: async (_tag, count) => Array.from({ length: count }, () => next++),
    batch: async (_tag, count) => {
      asked.push(count);
      return { ids: Array.from({ length: count }, () => next++), validMs };
    },
  };
  return { source, asked };
}

describe('OpaqueBatches', () => {
  it('drops what is left of a batch once it is validMs old, counted from asking, and asks again', async () => {
    let now = 0;
    const { source, asked } = fakeSource(1_000);
    const batches = new OpaqueBatches(source, 'o', () => now);
    expect(await batches.next()).toBe(1n);
    expect(batches.next()).toBe(2n);
    now = 999;
    expect(batches.next()).toBe(3n);
    now = 1_000; // 97 of the first 100 left: a gap
    const after = batches.next();
    expect(after).toBeInstanceOf(Promise);
    expect(await after).toBe(101n);
    expect(asked).toEqual([100, 200]);
    expect(batches.take(2)).toEqual([102n, 103n]);
  });

  it('without validMs keeps a batch until it is used up', async () => {
    let now = 0;
    const { source } = fakeSource(null);
    const batches = new OpaqueBatches(source, 'o', () => now);
    expect(await batches.next()).toBe(1n);
    now = 10 ** 9;
    expect(batches.next()).toBe(2n);
    expect(batches.buffered).toBe(98);
  });
});
