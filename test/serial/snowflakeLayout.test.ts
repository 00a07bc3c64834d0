/**
 * Snowflake layouts with real server processes (production build) on one SQLite file: a node started with
 * LEAF_SNOWFLAKE_LAYOUT=sonyflake shows its layout and lifetime in /api/health, issues IDs that the npm `sonyflake`
 * package decodes to its worker id, and decodes them itself the same way. A second node with Leaf's layout on the
 * same database exits 78 with one line naming both layouts; a node whose layout runs out within a year exits 78
 * with one line naming the date.
 */
import type { ChildProcess } from 'node:child_process';
import { Sonyflake } from 'sonyflake';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_EPOCH_MS } from '../../lib/snowflake/layout';
import { type NodeServer, cleanEnv, launchServer, startNodeServer, stopChild } from '../../tools/harness';
import { type TempDir, tempDir } from '../support/context';

const TOKEN = 'snowflake-layout-admin-token';

let tmp: TempDir;
let env: NodeJS.ProcessEnv;
const started: ChildProcess[] = [];

beforeAll(() => {
  tmp = tempDir('leaf-it-layout-');
  env = {
    ...cleanEnv(),
    NODE_ENV: 'production',
    LEAF_SQLITE_FILE: tmp.file('leaf.db'),
    LEAF_ADMIN_TOKEN: TOKEN,
    LEAF_LOG_LEVEL: 'warn',
  } as NodeJS.ProcessEnv;
});
afterAll(async () => {
  await Promise.all(started.map((c) => stopChild(c, 0, { signal: 'SIGKILL' })));
  tmp?.remove();
});

/** Starts a server with `extra` and resolves with 'up' once healthy, or its exit code, and its output. */
async function launch(extra: Record<string, string>): Promise<{ outcome: 'up' | number; out: string }> {
  const server = await launchServer({ ...env, ...extra });
  started.push(server.child);
  return { outcome: await server.outcome, out: server.out() };
}

async function getJson<T>(server: NodeServer, path: string): Promise<T> {
  const r = await fetch(`${server.url}${path}`, {
    headers: { authorization: `Bearer ${TOKEN}` },
    signal: AbortSignal.timeout(10_000),
  });
  expect(r.status, path).toBe(200);
  return (await r.json()) as T;
}

interface Health {
  snowflake: {
    state: string;
    workerId: number | null;
    layout: string;
    layoutBits: string;
    endsAt: string;
    yearsLeft: number;
  };
}

describe('snowflake layouts on real nodes (SQLite)', () => {
  it('a sonyflake node: health names the layout and its end; its IDs decode the same here and in npm sonyflake', async () => {
    const node = await startNodeServer({
      env: { ...env, LEAF_NODE_ID: 'sony', LEAF_SNOWFLAKE_LAYOUT: 'sonyflake' },
      timeoutMs: 60_000,
    });
    started.push(node.child);
    const health = await getJson<Health>(node, '/api/health');
    expect(health.snowflake).toMatchObject({
      layout: 'sonyflake',
      layoutBits: '39 bits of 10 ms | 8 sequence | 16 worker',
      endsAt: new Date(DEFAULT_EPOCH_MS + 2 ** 39 * 10).toISOString(),
    });
    expect(health.snowflake.yearsLeft).toBeGreaterThan(170);
    const workerId = health.snowflake.workerId;
    expect(workerId).not.toBeNull();
    const { ids } = await getJson<{ ids: string[] }>(node, '/api/id/snowflake?count=600'); // over two 10 ms units
    for (let i = 1; i < ids.length; i++) expect(BigInt(ids[i]!) > BigInt(ids[i - 1]!)).toBe(true);
    for (const id of ids.filter((_, i) => i % 50 === 0 || i === ids.length - 1)) {
      const theirs = Sonyflake.decompose(id, { epoch: 0 }); // its time in Sony's 10 ms units
      expect(theirs.machineId).toBe(workerId);
      const ours = await getJson<Record<string, unknown>>(node, `/api/id/snowflake/${id}`);
      expect(ours).toEqual({
        id,
        layout: 'sonyflake',
        layoutBits: '39 bits of 10 ms | 8 sequence | 16 worker',
        regions: 1,
        timestamp: new Date(DEFAULT_EPOCH_MS + theirs.timestamp * 10).toISOString(),
        timestampMs: DEFAULT_EPOCH_MS + theirs.timestamp * 10,
        region: 0,
        workerId,
        sequence: theirs.sequence,
      });
    }
  }, 120_000);

  it("a node with Leaf's layout on the sonyflake fleet's database exits 78 naming both", async () => {
    const { outcome, out } = await launch({ LEAF_NODE_ID: 'leafy' });
    expect(outcome, out).toBe(78);
    expect(out).toMatch(
      /^leaf-ts: cannot start: This node's snowflake layout leaf \(41 bits of 1 ms \| 10 worker \| 12 sequence\) with epoch 2026-01-01T00:00:00\.000Z differs from the fleet's, sonyflake \(39 bits of 10 ms \| 8 sequence \| 16 worker\) with epoch 2026-01-01T00:00:00\.000Z, recorded by sony at /m,
    );
  }, 120_000);

  it('a layout with 100 days left exits 78 naming the day it runs out', async () => {
    const end = Date.now() + 100 * 86_400_000;
    const epoch = end - 2 ** 39; // 39 bits of ms from here end in 100 days
    const { outcome, out } = await launch({
      LEAF_NODE_ID: 'short',
      LEAF_SNOWFLAKE_LAYOUT: 'time=39,worker=10,sequence=12',
      LEAF_SNOWFLAKE_EPOCH: String(epoch),
    });
    expect(outcome, out).toBe(78);
    expect(out).toMatch(
      new RegExp(
        `^leaf-ts: cannot start: LEAF_SNOWFLAKE_LAYOUT time=39,region=0,worker=10,sequence=12,unit=1ms with LEAF_SNOWFLAKE_EPOCH \\S+ runs out in (99|100) days, at ${new Date(end).toISOString().slice(0, 16)}`,
        'm',
      ),
    );
  }, 120_000);
});
