/**
 * What the ID routes' credential check costs per request, in-process: the handler of this checkout against the one
 * of a base commit (default: main), single IDs of one tag, with no auth, with LEAF_ID_TOKEN, and (this checkout only)
 * with a scoped access token. Rounds alternate between the builds so drift and turbo changes hit both alike; the
 * median ns per call of each is printed, with SHA-256 of a token on its own. Each round of each variant runs in a
 * process of its own, as a server has one configuration: sharing one process lets one variant's inline caches and
 * inlining decisions colour another's.
 *
 *   npx tsx tools/bench/authCost.ts [base-ref]     (AUTH_COST_ROUNDS, default 7; AUTH_COST_MS per round, default 1000)
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
import type { StoredToken } from '../../lib/auth/tokenStore';

const ROUNDS = Number(process.env.AUTH_COST_ROUNDS ?? 7);
const ROUND_MS = Number(process.env.AUTH_COST_MS ?? 1000);
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

const VARIANTS = [
  'no auth, base',
  'no auth, this',
  'LEAF_ID_TOKEN, base',
  'LEAF_ID_TOKEN, this (100 access tokens too)',
  'access token, this (100 in the table)',
] as const;
const BASE_FILE = path.join(__dirname, '../../lib/http/.idHandler.base.ts');

/** One variant in this process: its ns per call after a warm-up, on stdout. */
async function child(variant: number): Promise<void> {
  const old = (await import(BASE_FILE)) as { createIdHandler: typeof createIdHandler };
  const store = new SqliteStore({ file: ':memory:' });
  await store.tags.createTag({ bizTag: 'bench', step: 1_000_000 });
  const segments = new SegmentEngine({ store: store.tags, refreshIntervalMs: 0 });
  await segments.start();
  const runtime = () => ({ segments, store, snowflake: null });
  const scoped = newScopedToken();
  const rows: StoredToken[] = [scoped, ...Array.from({ length: 99 }, newScopedToken)].map((t, i) => ({
    id: t.id,
    name: `t${i}`,
    tags: ['bench', `other${i}`],
    tokenHash: t.hash,
    createdAt: 0,
    createdBy: 'bench',
    revokedAt: null,
  }));
  const loaded = (idToken: string | null) => {
    const a = new IdAccess(idToken);
    a.replace(idToken === null ? [] : rows);
    return a;
  };
  const [handle, auth]: [IdHandler, string | undefined] = [
    () => [old.createIdHandler({ runtime }), undefined] as const,
    () => [createIdHandler({ runtime, access: loaded(null) }), undefined] as const,
    () => [old.createIdHandler({ runtime, idToken: ID_TOKEN }), `Bearer ${ID_TOKEN}`] as const,
    () => [createIdHandler({ runtime, access: loaded(ID_TOKEN) }), `Bearer ${ID_TOKEN}`] as const,
    () => [createIdHandler({ runtime, access: loaded(ID_TOKEN) }), `Bearer ${scoped.secret}`] as const,
  ][variant]!() as [IdHandler, string | undefined];
  await handle('GET', URL, auth); // the first call loads the tag's segment
  await nsPerCall(handle, auth); // warm-up
  const ns = await nsPerCall(handle, auth);
  let hashed = 0;
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < 200_000; i++) hashed += createHash('sha256').update(scoped.secret).digest().length;
  const hashNs = Number(process.hrtime.bigint() - t0) / 200_000;
  process.stdout.write(JSON.stringify({ ns, hashNs: hashed > 0 ? hashNs : NaN }) + '\n');
  await store.close();
}

async function main(): Promise<void> {
  const base = process.argv[2] ?? 'main';
  fs.writeFileSync(BASE_FILE, execFileSync('git', ['show', `${base}:lib/http/idHandler.ts`], { encoding: 'utf8' }));
  try {
    const results = VARIANTS.map(() => [] as number[]);
    const hashes: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const order = VARIANTS.map((_, i) => i);
      if (r % 2 === 1) order.reverse();
      for (const i of order) {
        const out = execFileSync(process.execPath, ['--import', 'tsx', __filename, '--child', String(i)], {
          encoding: 'utf8',
        });
        const { ns, hashNs } = JSON.parse(out.trim().split('\n').pop()!) as { ns: number; hashNs: number };
        results[i]!.push(ns);
        hashes.push(hashNs);
      }
    }
    VARIANTS.forEach((name, i) => {
      const xs = results[i]!;
      console.log(
        `${name.padEnd(46)} ${median(xs).toFixed(0).padStart(6)} ns/call  (rounds: ${xs.map((x) => x.toFixed(0)).join(' ')})`,
      );
    });
    console.log(`${'SHA-256 of the access token alone'.padEnd(46)} ${median(hashes).toFixed(0).padStart(6)} ns`);
  } finally {
    fs.rmSync(BASE_FILE, { force: true });
  }
}

const childAt = process.argv.indexOf('--child');
void (childAt === -1 ? main() : child(Number(process.argv[childAt + 1])));
