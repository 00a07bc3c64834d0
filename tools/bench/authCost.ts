/**
 * What the ID routes' credential check costs per request, in-process: the handler of this checkout against the one
 * of a base commit (default: main), single IDs of one tag, with no auth, with LEAF_ID_TOKEN, and (this checkout only)
 * with a scoped access token. Rounds alternate between the builds so drift and turbo changes hit both alike; the
 * median ns per call of each is printed, with SHA-256 of a token on its own.
 *
 *   npx tsx tools/bench/authCost.ts [base-ref]     (AUTH_COST_ROUNDS, default 7; AUTH_COST_MS per round, default 700)
 *
 * The base handler is written beside the current one for the run (lib/http/.idHandler.base.ts) and removed after.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { IdAccess, newScopedToken } from '../../lib/auth/scopedTokens';
import type { Answer } from '../../lib/http/answer';
import { type IdHandler, createIdHandler } from '../../lib/http/idHandler';
import { SegmentEngine } from '../../lib/segment/engine';
import { SqliteStore } from '../../lib/store/sqlite';
import type { StoredToken } from '../../lib/store/types';

const ROUNDS = Number(process.env.AUTH_COST_ROUNDS ?? 7);
const ROUND_MS = Number(process.env.AUTH_COST_MS ?? 700);
const URL = '/api/id/segment/bench';
const ID_TOKEN = 'bench-id-token-0123456789abcdef';

/** Between chunks the loop yields one turn, so background preloads land as they would between requests. */
async function nsPerCall(handle: IdHandler, authorization: string | undefined): Promise<number> {
  let calls = 0;
  const started = process.hrtime.bigint();
  const until = started + BigInt(ROUND_MS) * 1_000_000n;
  let now = started;
  while (now < until) {
    for (let i = 0; i < 2_000; i++) {
      const a = handle('GET', URL, authorization) as Answer;
      // A buffer switch may answer with a promise now and then; the loop counts only synchronous 200s as served.
      if (!(a instanceof Promise) && a.status !== 200) throw new Error(`status ${a.status}: ${a.body}`);
    }
    calls += 2_000;
    await new Promise((resolve) => setImmediate(resolve));
    now = process.hrtime.bigint();
  }
  return Number(now - started) / calls;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  const base = process.argv[2] ?? 'main';
  const baseFile = path.join(__dirname, '../../lib/http/.idHandler.base.ts');
  fs.writeFileSync(baseFile, execFileSync('git', ['show', `${base}:lib/http/idHandler.ts`], { encoding: 'utf8' }));
  try {
    const old = (await import(baseFile)) as { createIdHandler: typeof createIdHandler };
    const store = new SqliteStore({ file: ':memory:' });
    await store.createTag({ bizTag: 'bench', step: 1_000_000 });
    const segments = new SegmentEngine({ store, refreshIntervalMs: 0 });
    await segments.start();
    const runtime = () => ({ segments, store, snowflake: null });

    const scoped = newScopedToken();
    const rows: StoredToken[] = [scoped, ...Array.from({ length: 99 }, newScopedToken)].map((t, i) => ({
      id: t.id, name: `t${i}`, tags: ['bench', `other${i}`], tokenHash: t.hash, createdAt: 0, createdBy: 'bench', revokedAt: null,
    }));
    const loaded = (idToken: string | null) => {
      const a = new IdAccess(idToken);
      a.replace(idToken === null ? [] : rows);
      return a;
    };
    const variants: Array<{ name: string; handle: IdHandler; auth: string | undefined }> = [
      { name: 'no auth, base', handle: old.createIdHandler({ runtime }), auth: undefined },
      { name: 'no auth, this', handle: createIdHandler({ runtime, access: loaded(null) }), auth: undefined },
      { name: 'LEAF_ID_TOKEN, base', handle: old.createIdHandler({ runtime, idToken: ID_TOKEN }), auth: `Bearer ${ID_TOKEN}` },
      { name: 'LEAF_ID_TOKEN, this (100 access tokens too)', handle: createIdHandler({ runtime, access: loaded(ID_TOKEN) }), auth: `Bearer ${ID_TOKEN}` },
      { name: 'access token, this (100 in the table)', handle: createIdHandler({ runtime, access: loaded(ID_TOKEN) }), auth: `Bearer ${scoped.secret}` },
    ];
    const results = new Map<string, number[]>(variants.map((v) => [v.name, []]));
    for (const v of variants) {
      await v.handle('GET', URL, v.auth); // the first call loads the tag's segment
      await nsPerCall(v.handle, v.auth); // warm-up
    }
    for (let r = 0; r < ROUNDS; r++) {
      const order = r % 2 === 0 ? variants : [...variants].reverse();
      for (const v of order) results.get(v.name)!.push(await nsPerCall(v.handle, v.auth));
    }
    let hashed = 0;
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < 200_000; i++) hashed += createHash('sha256').update(scoped.secret).digest().length;
    const hashNs = Number(process.hrtime.bigint() - t0) / 200_000;
    for (const [name, xs] of results) console.log(`${name.padEnd(46)} ${median(xs).toFixed(0).padStart(6)} ns/call  (rounds: ${xs.map((x) => x.toFixed(0)).join(' ')})`);
    console.log(`${'SHA-256 of the access token alone'.padEnd(46)} ${hashNs.toFixed(0).padStart(6)} ns  (${hashed > 0 ? 'ok' : ''})`);
    await store.close();
  } finally {
    fs.rmSync(baseFile, { force: true });
  }
}

void main();
