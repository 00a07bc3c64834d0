/**
 * Clients of ordered tags, as a user's would be: each sends one request at a time to a node of its choosing,
 * retries a documented retryable answer (503, a refused connection) within a bound, and records every answer as
 * (sent, received, IDs) on this process's monotonic clock for the real-time order check (orderCheck.ts).
 */
import http from 'node:http';
import type { TimedAnswer } from './orderCheck';
import { rng } from './rng';

export interface OrderLoadOptions {
  /** Where requests may go now (nodes come and go during a run). */
  targets: () => readonly string[];
  tags: readonly string[];
  clients: number;
  /** Clients stop when this turns true. */
  done: () => boolean;
  /** A request retried for longer than this is a failure (counted, never hidden). */
  retryBoundMs: number;
  /** Every `batchEvery`-th request asks for a batch of `batchSize`. */
  batchEvery?: number;
  batchSize?: number;
  seed?: number;
}

export interface TagLoad {
  answers: TimedAnswer[];
  /** Requests that got no 200 within the retry bound, by what they got last. */
  failed: Record<string, number>;
  retries: number;
  /** The longest time between two answers of the tag, over all clients (ms): its worst unavailability. */
  longestGapMs: number;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });

export async function runOrderLoad(o: OrderLoadOptions): Promise<Map<string, TagLoad>> {
  const loads = new Map<string, TagLoad>(
    o.tags.map((t) => [t, { answers: [], failed: {}, retries: 0, longestGapMs: 0 }]),
  );
  const random = rng(o.seed ?? 29);
  const client = async (k: number): Promise<void> => {
    for (let n = 0; !o.done(); n++) {
      const tag = o.tags[(k + n) % o.tags.length] as string;
      const count = o.batchEvery !== undefined && n % o.batchEvery === 0 ? (o.batchSize ?? 10) : 0;
      await takeOnce(tag, count, loads.get(tag) as TagLoad, o, random);
    }
  };
  await Promise.all(Array.from({ length: o.clients }, (_, k) => client(k)));
  for (const load of loads.values()) load.longestGapMs = longestGap(load.answers);
  return loads;
}

async function takeOnce(tag: string, count: number, load: TagLoad, o: OrderLoadOptions, random: () => number) {
  const started = performance.now();
  let last = 'none';
  for (let attempt = 0; performance.now() - started < o.retryBoundMs; attempt++) {
    const targets = o.targets();
    const base = targets[Math.floor(random() * targets.length)];
    if (base === undefined) break;
    const { got, answer } = await timedGet(base, tag, count);
    if (answer !== null) {
      load.answers.push(answer);
      return;
    }
    last = got.status === 0 ? 'no answer' : `${got.status} ${errorCode(got.body)}`;
    if (got.status !== 0 && got.status !== 503) break; // not retryable
    load.retries++;
    await new Promise((r) => setTimeout(r, Math.min(100, 10 * 2 ** Math.min(attempt, 4))));
  }
  load.failed[last] = (load.failed[last] ?? 0) + 1;
}

/** One request to `base` as a client sends it, timed; null when it got no 200. */
export async function timedTake(base: string, tag: string, count = 0): Promise<TimedAnswer | null> {
  return (await timedGet(base, tag, count)).answer;
}

/** One request, what came back, and the timed answer when it was a 200. */
async function timedGet(base: string, tag: string, count: number) {
  const sentAt = performance.now();
  const got = await get(`${base}/api/id/segment/${tag}${count === 0 ? '' : `?count=${count}`}`);
  const receivedAt = performance.now();
  const answer: TimedAnswer | null = got.status === 200 ? { sentAt, receivedAt, ids: idsOf(got.body) } : null;
  return { got, answer };
}

function idsOf(body: string): bigint[] {
  const parsed = JSON.parse(body) as { id?: string; ids?: string[] };
  return (parsed.ids ?? [parsed.id as string]).map(BigInt);
}

function get(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve) => {
    const req = http.get(url, { agent, timeout: 5_000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      res.on('error', () => resolve({ status: 0, body: '' }));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve({ status: 0, body: '' }));
  });
}

function errorCode(body: string): string {
  try {
    return (JSON.parse(body) as { error?: { code?: string } }).error?.code ?? '';
  } catch {
    return '';
  }
}

function longestGap(answers: readonly TimedAnswer[]): number {
  const times = answers.map((a) => a.receivedAt).sort((a, b) => a - b);
  let gap = 0;
  for (let i = 1; i < times.length; i++) gap = Math.max(gap, (times[i] as number) - (times[i - 1] as number));
  return Math.round(gap);
}
