import { describe, expect, it } from 'vitest';
import { TagBuffer, createSegment } from '@/lib/segment/buffer';

const BACKOFF = { baseMs: 100, maxMs: 1_000 };

describe('TagBuffer transitions', () => {
  it('starts empty with the DB step as both step and floor', () => {
    const b = new TagBuffer('order', 50);
    expect(b).toMatchObject({
      minStep: 50,
      step: 50,
      current: null,
      pending: null,
      loading: null,
      lastLoadAt: undefined,
    });
    expect(b.servingSegment()).toBeNull();
    expect(b.issuedTotal()).toBe(0);
  });

  it('a first load installs the segment as current and takes its step as the floor', () => {
    const b = new TagBuffer('order', 50);
    const s = createSegment(100, 99, 'leaf-ts'); // the row's step changed since the tag list was read
    b.loadSucceeded(s, 1_000, true);
    expect(b).toMatchObject({ current: s, pending: null, minStep: 99, step: 99, lastLoadAt: 1_000 });
    expect(b.servingSegment()).toBe(s);
  });

  it('a later load keeps the floor and goes to pending while current has IDs left', () => {
    const b = new TagBuffer('order', 10);
    const first = createSegment(11, 10, 'leaf-ts');
    b.loadSucceeded(first, 1_000, true);
    const second = createSegment(31, 20, 'leaf-ts');
    b.loadSucceeded(second, 2_000, false);
    expect(b).toMatchObject({ current: first, pending: second, minStep: 10, step: 20, lastLoadAt: 2_000 });
  });

  it('switches to pending once current is used up, counting what current issued', () => {
    const b = new TagBuffer('order', 10);
    const first = createSegment(11, 10, 'leaf-ts');
    b.loadSucceeded(first, 0, true);
    b.loadSucceeded(createSegment(31, 20, 'leaf-ts'), 0, false);
    first.next = first.max + 1; // all of 2..11 served
    const next = b.servingSegment();
    expect(next).toMatchObject({ start: 12, max: 31 });
    expect(b.current).toBe(next);
    expect(b.pending).toBeNull();
    expect(b.issuedTotal()).toBe(10);
    next!.next = next!.max + 1;
    expect(b.servingSegment()).toBeNull();
    expect(b.issuedTotal()).toBe(30);
  });

  it('a load landing when current is used up becomes current at once', () => {
    const b = new TagBuffer('order', 10);
    const first = createSegment(11, 10, 'leaf-ts');
    b.loadSucceeded(first, 0, true);
    first.next = first.max + 1;
    const second = createSegment(21, 10, 'leaf-ts');
    b.loadSucceeded(second, 0, false);
    expect(b.current).toBe(second);
    expect(b.pending).toBeNull();
    expect(b.issuedTotal()).toBe(10);
  });

  it('failed loads back off exponentially up to the cap; a landed load clears the streak', () => {
    const b = new TagBuffer('order', 10);
    const load = Promise.resolve();
    const error = new Error('db down');
    b.beginLoad(load);
    expect(b.loading).toBe(load);
    b.loadFailed(error, 5_000, BACKOFF);
    expect(b).toMatchObject({ loading: null, failures: 1, retryAfter: 5_100, lastError: error });
    b.loadFailed(error, 5_000, BACKOFF);
    expect(b.retryAfter).toBe(5_200);
    b.loadFailed(error, 5_000, BACKOFF);
    b.loadFailed(error, 5_000, BACKOFF);
    b.loadFailed(error, 5_000, BACKOFF);
    expect(b).toMatchObject({ failures: 5, retryAfter: 6_000 }); // 1,600 capped at 1,000
    b.beginLoad(load);
    b.loadRecovered();
    expect(b).toMatchObject({ loading: null, failures: 0, retryAfter: 0, lastError: null });
  });

  it('counts waits and failed requests, and takes a new DB step as the floor', () => {
    const b = new TagBuffer('order', 10);
    b.countWait();
    b.countWait();
    b.countFailedRequest();
    b.setDbStep(40);
    expect(b).toMatchObject({ waits: 2, failedRequests: 1, minStep: 40, step: 10 });
  });
});
