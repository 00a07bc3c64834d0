/**
 * The claim log against a recorded history (issue 41): two server.ts nodes, a LeafClient leasing from them, and an
 * embedded process, on one SQLite file, serve one tag through a kill -9 and restart, graceful stops that give back,
 * an embedded close and re-open, and a client pause past its leases' validity. Every ID is recorded with the moments
 * around its serve. Checked: no ID twice; each ID's serve lies in the window of a logged claim holding it; for 300
 * seeded windows the issued answer holds every ID served inside; the HTTP routes answer the same. Control: one
 * claim's row removed, as if never written, and the checker names its IDs.
 */
import Database from 'better-sqlite3';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { claimsBetween } from '../../lib/claims/claimLog';
import { createLeaf } from '../../lib/embedded';
import { LeafClient } from '../../lib/client';
import { SqliteStore } from '../../lib/store/sqlite';
import { type NodeServer, startNodeServer, stopAllChildren, stopChild } from '../../tools/harness';
import { takeIds } from '../support/clientIds';
import { type TempDir, tempDir } from '../support/context';
import { type Served, checkClaimLog } from '../support/claimLogCheck';

const TAG = 'when';
const ID_TOKEN = 'claim-log-id';
const ADMIN_TOKEN = 'claim-log-admin-token-0123456789';
/** Short, so the run has leases that expire and windows that end before the last claims. */
const LEASE_VALID_MS = 1_500;
const SEED = 41;

let tmp: TempDir;
beforeAll(() => {
  tmp = tempDir('leaf-it-claimlog-');
});
afterAll(async () => {
  await stopAllChildren(0);
  tmp?.remove();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

it('every ID served lies in the claim log answer for every window that holds its serve', async () => {
  const file = tmp.file('when.db');
  const store = new SqliteStore({ file });
  await store.tags.createTag({ bizTag: TAG, step: 60 });
  const node = (name: string, port?: number) =>
    startNodeServer({
      port,
      env: {
        ...process.env,
        NODE_ENV: 'production',
        LEAF_SQLITE_FILE: file,
        LEAF_ID_TOKEN: ID_TOKEN,
        LEAF_ADMIN_TOKEN: ADMIN_TOKEN,
        LEAF_NODE_ID: name,
        LEAF_LOG_LEVEL: 'warn',
        LEAF_SNOWFLAKE: 'off',
        LEAF_RANGE_LEASE_VALID_MS: String(LEASE_VALID_MS),
      } as NodeJS.ProcessEnv,
      timeoutMs: 60_000,
    });
  const served: Served[] = [];
  const record = (ids: readonly bigint[], sentAt: number, by: string) => {
    const gotAt = Date.now();
    for (const id of ids) served.push({ id, sentAt, gotAt, by });
  };
  let [a, b] = await Promise.all([node('when-a'), node('when-b')]);
  let embedded = await createLeaf({ databaseUrl: `file:${file}`, name: 'when-embedded' });
  const client = new LeafClient({ urls: [a.url, b.url], token: ID_TOKEN, minLease: 20, leaseTargetMs: 300 });
  let seed = SEED;
  const pick = () => (seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648;
  const http = async (n: NodeServer, by: string) => {
    const count = pick() < 0.5 ? 1 : 1 + Math.floor(pick() * 40);
    const sentAt = Date.now();
    const ids = await takeIds(`${n.url}/api/id/segment/${TAG}${count > 1 ? `?count=${count}` : ''}`, {
      headers: { authorization: `Bearer ${ID_TOKEN}` },
    });
    record(ids, sentAt, by);
  };
  // As a caller of the client does: `unavailable` (both nodes down a moment, one restarting) is tried again, bounded.
  const clientId = async (): Promise<bigint> => {
    for (let attempt = 0; ; attempt++) {
      try {
        const id = client.nextId(TAG);
        return typeof id === 'bigint' ? id : await id;
      } catch (error) {
        if ((error as { code?: string }).code !== 'unavailable' || attempt >= 50) throw error;
        await sleep(100);
      }
    }
  };
  const phase = async (rounds: number) => {
    for (let i = 0; i < rounds; i++) {
      const r = pick();
      if (r < 0.25) await http(a, 'a');
      else if (r < 0.5) await http(b, 'b');
      else if (r < 0.75) {
        for (let k = 1 + Math.floor(pick() * 10); k > 0; k--) {
          const sentAt = Date.now();
          const id = embedded.nextId(TAG);
          record([typeof id === 'bigint' ? id : await id], sentAt, 'embedded');
        }
      } else {
        for (let k = 1 + Math.floor(pick() * 10); k > 0; k--) {
          const sentAt = Date.now();
          record([await clientId()], sentAt, 'client');
        }
      }
      if (pick() < 0.3) await sleep(Math.floor(pick() * 25));
    }
  };
  try {
    await phase(60);
    await stopChild(b.child, 0, { signal: 'SIGKILL' }); // its buffered segments stay open in the log
    b = await node('when-b', b.port);
    await phase(60);
    await a.stop(); // gives back: its tail is claimed again by others
    a = await node('when-a', a.port);
    await phase(60);
    await embedded.close();
    embedded = await createLeaf({ databaseUrl: `file:${file}`, name: 'when-embedded' });
    await phase(40);
    await sleep(LEASE_VALID_MS + 200); // the client's leases expire while it holds them
    await phase(60);
  } finally {
    client.close();
    await embedded.close();
  }

  const ids = served.map((s) => s.id);
  expect(new Set(ids).size, 'an ID served twice').toBe(ids.length);
  const verdict = await checkClaimLog(store.claims, TAG, served, { windows: 300, seed: SEED });
  const by = (who: string) => served.filter((s) => s.by === who).length;
  console.log(
    `claim log: ${served.length} IDs (a ${by('a')}, b ${by('b')}, client ${by('client')}, embedded ${by('embedded')}); ` +
      `unexplained=${verdict.unexplained.length} missed-in-windows=${verdict.missedInWindows} over ${verdict.windows} ` +
      `windows; mean claims answered ${verdict.meanClaims.toFixed(2)}, of which with no ID served in the window ` +
      `${verdict.meanExcessClaims.toFixed(2)} (open-ended: ${verdict.meanOpenExcessClaims.toFixed(2)})`,
  );
  expect(verdict.unexplained.slice(0, 5)).toEqual([]);
  expect(verdict.missedInWindows).toBe(0);

  // The routes answer what the store does.
  const from = new Date(served[100]!.sentAt).toISOString();
  const to = new Date(served[200]!.gotAt).toISOString();
  const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
  const issued = await fetch(`${a.url}/api/admin/tags/${TAG}/issued?from=${from}&to=${to}`, { headers: admin });
  expect(issued.status).toBe(200);
  const body = (await issued.json()) as { ranges: Array<{ first: string; last: string }>; claims: number };
  const live = await claimsBetween(store.claims, TAG, Date.parse(from), Date.parse(to));
  expect(body.claims).toBe(live.length);
  const decoded = await fetch(`${a.url}/api/admin/tags/${TAG}/decode/${served[150]!.id}`, { headers: admin });
  const decodedBody = (await decoded.json()) as { issued: Array<{ claimer: string; first: string; last: string }> };
  expect(decodedBody.issued.length).toBeGreaterThan(0);
  const bad = await fetch(`${a.url}/api/admin/tags/${TAG}/issued?from=${to}&to=${from}`, { headers: admin });
  expect(bad.status).toBe(400);
  await Promise.all([a.stop(), b.stop()]);

  // Control: a claim holding served IDs, held by no other row, loses its row as if its write had been dropped.
  const all = await claimsBetween(store.claims, TAG, Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER);
  const alone = all.find(
    (c) =>
      served.some((s) => s.id >= c.first && s.id <= c.last) &&
      !all.some((o) => o !== c && o.first <= c.last && o.last >= c.first),
  );
  expect(alone, 'no claim to drop').toBeDefined();
  const raw = new Database(file);
  raw.prepare('DELETE FROM leaf_claim WHERE biz_tag = ? AND first_id = ?').run(TAG, alone!.first);
  raw.close();
  const control = await checkClaimLog(store.claims, TAG, served, { windows: 300, seed: SEED });
  const lost = served.filter((s) => s.id >= alone!.first && s.id <= alone!.last).length;
  console.log(
    `claim log control (the row of ${alone!.first}..${alone!.last} dropped, ${lost} served IDs in it): ` +
      `unexplained=${control.unexplained.length} missed-in-windows=${control.missedInWindows}`,
  );
  expect(control.unexplained.length).toBe(lost);
  expect(control.missedInWindows).toBeGreaterThan(0);
  await store.close();
}, 180_000);
