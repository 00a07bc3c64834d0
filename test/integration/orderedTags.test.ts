/**
 * Ordered tags on real server.ts processes (issue 29): three nodes on one database — a SQLite file, MariaDB,
 * PostgreSQL — and clients sending to any node while the owner is killed (SIGKILL), stopped (SIGSTOP for twice the
 * lease, then SIGCONT) and stopped gracefully. Every answer goes through the real-time order check: none out of
 * order and no ID twice on the strict tag; on an ordinary tag of the same run the check must find answers out of
 * order (it has teeth).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type NodeServer, startNodeServer, stopChild } from '../../tools/harness';
import { type TimedAnswer, checkOrder, orderSummary } from '../../tools/harness/orderCheck';
import { runOrderLoad, timedTake } from '../../tools/harness/orderLoad';
import type { LeafStore } from '../../lib/store/leafStore';
import { type TempDir, sleep, tempDir, waitFor } from '../support/context';
import { serverDialects } from '../support/dialects';

const LEASE_MS = 1_500;
const ORDER_ENV = { LEAF_ORDER_LEASE_MS: String(LEASE_MS), LEAF_ORDER_MARGIN_MS: '300', LEAF_ORDER_POLL_MS: '200' };
const STRICT = 'ordered';
const PLAIN = 'unordered';

const dialects = serverDialects('ordered.db');

let tmp: TempDir;
beforeAll(() => {
  tmp = tempDir('leaf-it-ordered-');
});
afterAll(async () => {
  await dialects.drop();
  tmp?.remove();
});

const without = (node: NodeServer, nodes: readonly NodeServer[]) => nodes.filter((n) => n !== node);

/** The node leaf_order names as the strict tag's owner, once one holds a live lease (within `ms`). */
async function owner(store: LeafStore, nodes: readonly NodeServer[], ms = 20_000): Promise<NodeServer> {
  return waitFor(
    ms,
    async () => {
      const { rows, dbNowMs } = await store.order.readOrder();
      const row = rows.find((r) => r.bizTag === STRICT);
      if (row === undefined || row.leaseExpiresAt < dbNowMs) return undefined;
      return nodes.find((n) => `127.0.0.1:${n.port}` === row.ownerAddress);
    },
    'a live owner',
    50,
  );
}

describe.each(dialects.all)('a strict tag through owner faults, $name', (dialect) => {
  it('increases across three nodes through SIGKILL, SIGSTOP and a graceful stop of its owner', async (ctx) => {
    if (dialect.skip?.()) ctx.skip();
    const { store, serverEnv, close } = await dialect.open(tmp);
    const nodes: NodeServer[] = [];
    const start = async (name: string) => {
      const node = await startNodeServer({ env: serverEnv({ LEAF_NODE_ID: name, ...ORDER_ENV }), timeoutMs: 60_000 });
      nodes.push(node);
      return node;
    };
    let stopLoad = false;
    try {
      await store.tags.createTag({ bizTag: STRICT, step: 20 });
      await store.tags.createTag({ bizTag: PLAIN, step: 20 });
      await store.order.setOrdering(STRICT, 'strict');
      await Promise.all(['o1', 'o2', 'o3'].map(start));
      const load = runOrderLoad({
        targets: () => nodes.map((n) => n.url),
        tags: [STRICT, PLAIN],
        clients: 6,
        done: () => stopLoad,
        retryBoundMs: 4 * LEASE_MS,
        batchEvery: 4,
        batchSize: 5,
      });
      const faults: string[] = [];
      const lateAnswers: TimedAnswer[] = [];

      await sleep(1_000);
      const first = await owner(store, nodes);
      faults.push(`SIGKILL ${first.port}`);
      nodes.splice(nodes.indexOf(first), 1);
      await stopChild(first.child, 0, { signal: 'SIGKILL' });
      await start('o4');

      const second = await owner(store, nodes);
      expect(second).not.toBe(first);
      faults.push(`SIGSTOP ${second.port} for ${2 * LEASE_MS} ms`);
      // Clients keep sending to it while it sleeps: their requests wait, then come back 503 or via the new owner.
      second.child.kill('SIGSTOP');
      const stoppedAt = Date.now();
      // On SQLite a process stopped inside a write holds the file's write lock: then nobody can take over until it
      // wakes (docs/design.md#ordered-tags), and the probe below is left out. Elsewhere the owner sleeps until a
      // successor is seen (a liveness bound far from its normal ~2 s, so a loaded machine does not fail it).
      const sqlite = dialect.name === 'sqlite file';
      const successor = await owner(store, without(second, nodes), sqlite ? 2 * LEASE_MS - 400 : 30_000).catch(
        () => null,
      );
      let late: Array<Promise<TimedAnswer | null>> = [];
      if (successor !== null) {
        await sleep(300); // answers from the successor come back to the clients
        // Sent to the sleeping owner after those answers: it must not answer them from its old segment on waking.
        late = Array.from({ length: 4 }, () => timedTake(second.url, STRICT));
      }
      await sleep(Math.max(0, stoppedAt + 2 * LEASE_MS - Date.now()));
      second.child.kill('SIGCONT');
      for (const answer of await Promise.all(late)) if (answer !== null) lateAnswers.push(answer);
      if (!sqlite) expect(successor, 'no successor within 30 s while the owner slept').not.toBeNull();
      faults.push(
        successor === null
          ? 'no successor while it slept (SQLite write lock held)'
          : `successor ${successor.port}, ${lateAnswers.length} answers from the woken owner`,
      );
      await sleep(500);

      const third = await owner(store, nodes);
      faults.push(`SIGTERM ${third.port}`);
      nodes.splice(nodes.indexOf(third), 1);
      await third.stop();
      await sleep(1_000);
      stopLoad = true;
      const loads = await load;

      const strict = loads.get(STRICT)!;
      const plain = loads.get(PLAIN)!;
      const strictReport = checkOrder([...strict.answers, ...lateAnswers]);
      const plainReport = checkOrder(plain.answers);
      const { rows } = await store.order.readOrder();
      console.log(
        `[ordered ${dialect.name}] strict: ${orderSummary(strictReport)} longest-unavailable=${strict.longestGapMs}ms ` +
          `epoch=${rows[0]?.epoch} retries=${strict.retries} failed=${JSON.stringify(strict.failed)}; ` +
          `ordinary: ${orderSummary(plainReport)}; faults: ${faults.join(', ')}`,
      );
      expect(strictReport.examples).toEqual([]);
      expect(strictReport).toMatchObject({ violations: 0, duplicates: 0 });
      expect(strict.failed).toEqual({});
      expect(strictReport.answers).toBeGreaterThan(100);
      // Three owners at least: the first, one after the kill, one after the stop (the SIGSTOP may add one more).
      expect(rows[0]!.epoch).toBeGreaterThanOrEqual(3);
      expect(plainReport.duplicates).toBe(0);
      expect(plainReport.violations, 'the ordinary tag never went backwards: the check proves nothing').toBeGreaterThan(
        0,
      );
    } finally {
      stopLoad = true;
      for (const node of nodes) node.child.kill('SIGCONT');
      await Promise.all(nodes.map((n) => n.stop()));
      await close();
    }
  });
});
