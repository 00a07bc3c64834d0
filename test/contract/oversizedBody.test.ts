/**
 * Oversized request bodies must reliably get their 413 JSON answer, on both lanes. A server that answers while
 * the client is still sending and then closes the socket makes the kernel reset the connection, and a client
 * often loses the answer to the reset ("connection closed without a response"). This sends every oversized
 * case 50 times in a row, several at once to keep the machine busy, and counts misses: there must be none.
 * It also checks the bounds of the drain: a body that never arrives, and one too large to wait for.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BODY_LIMITS } from '@/lib/http/bodyLimits';
import { type Case, build, raw } from '../support/rawHttp';
import { type ServerProcess, startServer } from '../support/serverProcess';
import { takeIds } from '../support/clientIds';

const TOKEN = 'oversized-admin-token-0123456789abcdef';
const RUNS = 50;
const CONCURRENCY = 4;
const MiB = 1 << 20;

const JSON_CT: Array<[string, string]> = [['Content-Type', 'application/json']];
const bigJson = (n: number) => JSON.stringify({ description: 'x'.repeat(n) });

/** The four routes that take a body, each with a 1 MiB body sent with Content-Length and chunked. */
function cases(): Case[] {
  const out: Case[] = [];
  for (const chunked of [false, true]) {
    const body = bigJson(MiB);
    out.push({
      name: 'create',
      method: 'POST',
      target: '/api/admin/tags',
      auth: true,
      headers: JSON_CT,
      body,
      chunked,
    });
    out.push({
      name: 'patch',
      method: 'PATCH',
      target: '/api/admin/tags/demo',
      auth: true,
      headers: JSON_CT,
      body,
      chunked,
    });
    out.push({
      name: 'delete',
      method: 'DELETE',
      target: '/api/admin/tags/demo',
      auth: true,
      headers: JSON_CT,
      body,
      chunked,
    });
    out.push({ name: 'login', method: 'POST', target: '/api/auth/login', headers: JSON_CT, body, chunked });
  }
  return out;
}

let fast: ServerProcess;
let nextLane: ServerProcess;
const portOf = (s: ServerProcess) => Number(new URL(s.url).port);

beforeAll(async () => {
  [fast, nextLane] = await Promise.all([
    startServer({ LEAF_ADMIN_TOKEN: TOKEN }),
    startServer({ LEAF_ADMIN_TOKEN: TOKEN, LEAF_FAST_LANE: 'off' }),
  ]);
}, 60_000);

afterAll(async () => {
  await Promise.all([fast?.stop(), nextLane?.stop()]);
});

/** Sends each case RUNS times (CONCURRENCY at once); returns one line per answer that was not a 413 JSON. */
async function hammer(port: number): Promise<string[]> {
  const jobs = cases().flatMap((c) => Array.from({ length: RUNS }, (_, run) => ({ c, run })));
  const misses: string[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < jobs.length) {
        const { c, run } = jobs[next++]!;
        const a = await raw(port, build(c, TOKEN), 15_000);
        const label = `${c.name}${c.chunked ? ' (chunked)' : ''} run ${run}`;
        if (a.noResponse || a.timedOut)
          misses.push(`${label}: no answer (${a.timedOut ? 'timed out' : 'closed'}, ${a.ms} ms)`);
        else if (a.status !== 413 || !a.body.includes('"payload_too_large"'))
          misses.push(`${label}: ${a.status} ${a.body.slice(0, 120)}`);
      }
    }),
  );
  return misses;
}

describe.each([
  ['fast lane', () => fast],
  ['Next lane (LEAF_FAST_LANE=off)', () => nextLane],
])('oversized bodies, %s', (_lane, server) => {
  it(`answers 413 JSON to every 1 MiB body, ${RUNS} times each, without one miss`, async () => {
    const misses = await hammer(portOf(server()));
    const { child } = server();
    const state = child.exitCode ?? child.signalCode ?? 'running';
    expect(misses, `the server (${state}) wrote:\n${server().logs().slice(-4_000)}`).toEqual([]);
  }, 240_000);

  it('answers 413 JSON to a keep-alive client (fetch) and keeps serving', async () => {
    for (let i = 0; i < 10; i++) {
      const r = await fetch(`${server().url}/api/admin/tags`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
        body: bigJson(MiB),
      });
      expect(r.status).toBe(413);
      expect(((await r.json()) as { error: { code: string } }).error.code).toBe('payload_too_large');
    }
    expect(await takeIds(`${server().url}/api/id/segment/demo`)).toHaveLength(1);
  }, 60_000);
});

describe('the drain is bounded', () => {
  /** Sends the head and `sent` bytes of a body declared `declared` bytes long, then waits without closing. */
  function stalled(
    port: number,
    declared: number,
    sent: number,
  ): Promise<{ answer: string; ms: number; closed: boolean }> {
    return new Promise((resolve) => {
      const started = Date.now();
      const socket = net.connect({ host: '127.0.0.1', port });
      let answer = '';
      const head = `POST /api/admin/tags HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Type: application/json\r\nContent-Length: ${declared}\r\n\r\n`;
      socket.write(head + 'x'.repeat(sent));
      socket.on('data', (d: Buffer) => (answer += d.toString('latin1')));
      socket.on('error', () => undefined);
      const giveUp = setTimeout(() => socket.destroy(), BODY_LIMITS.discardMs + 10_000);
      socket.on('close', () => {
        clearTimeout(giveUp);
        resolve({ answer, ms: Date.now() - started, closed: Date.now() - started < BODY_LIMITS.discardMs + 10_000 });
      });
    });
  }

  it('a body that stops arriving is answered and closed after the discard time, not held open', async () => {
    const r = await stalled(portOf(fast), MiB, 100);
    expect(r.closed).toBe(true);
    expect(r.ms).toBeGreaterThanOrEqual(BODY_LIMITS.discardMs - 100);
    expect(r.answer).toMatch(/^HTTP\/1\.1 413/);
    expect(r.answer).toContain('"payload_too_large"');
  }, 30_000);

  it('a body too large to drain is answered at once', async () => {
    const r = await stalled(portOf(fast), BODY_LIMITS.discardBytes + 1, 0);
    expect(r.ms).toBeLessThan(BODY_LIMITS.discardMs);
    expect(r.answer).toMatch(/^HTTP\/1\.1 413/);
  }, 30_000);
});
