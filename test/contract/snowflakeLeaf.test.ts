/**
 * Snowflake beside Leaf, on a real server process: with LEAF_SNOWFLAKE_EPOCH=leaf and a floor taken from a
 * Leaf-issued ID, every ID sorts above the floor and Leaf's IDs decode; a floor the clock has not reached stops the
 * start (EX_CONFIG) with one line naming it. Leaf's IDs are built from Leaf's formula with its twepoch, never
 * through our layout code.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, spawnServer } from '../../tools/harness';
import { type ServerProcess, startServer } from '../support/serverProcess';
import { takeIds } from '../support/clientIds';

const TWEPOCH = 1288834974657n;
const leafId = (timestampMs: number, workerId: number, sequence: number): bigint =>
  ((BigInt(timestampMs) - TWEPOCH) << 22n) | (BigInt(workerId) << 12n) | BigInt(sequence);

describe('Leaf preset and floor on a running server', () => {
  let server: ServerProcess;
  // What a Leaf node handed out a few seconds ago: the last sequence of the highest worker id in that millisecond.
  const issuedAt = Date.now() - 3_000;
  const floor = leafId(issuedAt, 1023, 4095);

  beforeAll(async () => {
    server = await startServer({ LEAF_SNOWFLAKE_EPOCH: 'leaf', LEAF_SNOWFLAKE_MIN_ID: floor.toString() });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('issues IDs that all sort above the floor, in both the JSON and the Leaf-compatible route', async () => {
    const ids = [
      ...(await takeIds(`${server.url}/api/id/snowflake?count=1000`)),
      ...(await takeIds(`${server.url}/api/snowflake/get/order`)),
    ];
    expect(ids).toHaveLength(1001);
    const below = ids.filter((id) => id <= floor);
    expect(below, `IDs at or below the floor ${floor}`).toEqual([]);
    // Leaf's number line: our ID of now decodes (as Leaf would) to a time after the floor's and before now.
    const decodedMs = Number((ids.at(-1)! >> 22n) + TWEPOCH);
    expect(decodedMs).toBeGreaterThan(issuedAt);
    expect(decodedMs).toBeLessThanOrEqual(Date.now());
  });

  it.each([
    ['2015', Date.UTC(2015, 5, 1, 12, 0, 0, 123), 0, 0],
    ['2019', Date.UTC(2019, 2, 14, 1, 59, 26, 535), 1023, 4095],
    ['2024', Date.UTC(2024, 9, 30, 23, 59, 59, 999), 513, 77],
  ])('decodes a Leaf ID of %s through /api/id/snowflake/{id}', async (_year, ts, workerId, sequence) => {
    const id = leafId(ts, workerId, sequence).toString();
    const r = await fetch(`${server.url}/api/id/snowflake/${id}`);
    expect(r.status).toBe(200);
    expect(await r.json()).toEqual({
      id,
      layout: 'leaf',
      layoutBits: '41 bits of 1 ms | 10 worker | 12 sequence',
      regions: 1,
      timestamp: new Date(ts).toISOString(),
      timestampMs: ts,
      region: 0,
      workerId,
      sequence,
    });
  });

  it('reports the preset and the floor in /api/health', async () => {
    const health = (await (await fetch(`${server.url}/api/health`)).json()) as { snowflake: Record<string, unknown> };
    expect(health.snowflake).toMatchObject({
      state: 'ready',
      epoch: '2010-11-04T01:42:54.657Z',
      epochPreset: 'leaf',
      minId: floor.toString(),
    });
  });
});

describe('a floor the clock has not reached', () => {
  it('stops the start with exit 78 and one line naming the floor', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leaf-contract-'));
    const floor = leafId(Date.now() + 10 * 60_000, 0, 0); // a Leaf ID ten minutes from now
    let stderr = '';
    try {
      const child = spawnServer({
        port: await freePort(),
        env: {
          ...process.env,
          NODE_ENV: 'production',
          LEAF_SQLITE_FILE: path.join(dir, 'leaf.db'),
          LEAF_SNOWFLAKE_EPOCH: 'leaf',
          LEAF_SNOWFLAKE_MIN_ID: floor.toString(),
        },
        onOutput: (text, stream) => {
          if (stream === 'stderr') stderr += text;
        },
      });
      const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
      expect(code, stderr).toBe(78); // EX_CONFIG: a cluster primary would not restart it
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
    // Structured log lines may precede it; the person starting the node reads exactly one plain line.
    const plain = stderr.split('\n').filter((line) => line !== '' && !line.startsWith('{'));
    expect(plain).toHaveLength(1);
    expect(plain[0]).toMatch(
      new RegExp(
        `^leaf-ts: cannot start: LEAF_SNOWFLAKE_MIN_ID ${floor} is not below the IDs this node would issue: with the epoch 2010-11-04T01:42:54\\.657Z it carries \\S+Z, (9|10) min ahead of this clock \\(\\S+Z\\)$`,
      ),
    );
  }, 40_000);
});
