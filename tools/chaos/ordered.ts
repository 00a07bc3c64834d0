/**
 * `npm run chaos -- --ordered [--db mariadb|postgres] [--size small|full] [--seed N]`: a strict tag (ordering strict,
 * docs/design.md#ordered-tags) and an ordinary one on three nodes, each reaching the database through its own
 * fault-injecting proxy, with HAProxy in front. Clients send to HAProxy and straight to the nodes, retrying a 503 or
 * a refused connection as a client does, and record every answer on one monotonic clock. The faults, each aimed at
 * the strict tag's owner of the moment: SIGKILL (then started again), SIGSTOP for twice the lease then SIGCONT, a
 * graceful stop (then started again), the owner cut off from the database for twice the lease, and a database outage.
 * Full size runs the list twice, shuffled. The summary line: order violations and duplicates on the strict tag (both
 * must be 0), the ownership changes, the longest time the strict tag answered nothing, and the ordinary tag's order
 * violations, which must be above 0 (the check has teeth).
 */
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs';
import { openStore } from '../../lib/store';
import { defaultMigrationsDir } from '../../lib/store/migrations';
import { storeUrlTarget } from '../../lib/store/target';
import type { LeafStore } from '../../lib/store/leafStore';
import {
  MariadbServer,
  type NodeServer,
  PostgresServer,
  ensureMariadb,
  ensurePostgres,
  freePort,
  rng,
  shuffled,
  sleep,
  startHaproxyRecipe,
  startNodeServer,
  stopAllChildren,
} from '../harness';
import { checkOrder, orderSummary } from '../harness/orderCheck';
import { runOrderLoad } from '../harness/orderLoad';
import { ChaosProxy } from './proxy';

const STRICT = 'chaos_strict';
const PLAIN = 'chaos_plain';
const LEASE_MS = 2_000;
const ORDER_ENV = { LEAF_ORDER_LEASE_MS: String(LEASE_MS), LEAF_ORDER_MARGIN_MS: '400', LEAF_ORDER_POLL_MS: '250' };
const FAULTS = ['kill', 'pause', 'stop', 'cut', 'outage'] as const;
type Fault = (typeof FAULTS)[number];
const SIZES = { small: { rounds: 1, clients: 6, budgetS: 150 }, full: { rounds: 2, clients: 10, budgetS: 300 } };

export interface OrderedArgs {
  db: 'mariadb' | 'postgres';
  size: 'small' | 'full';
  seed: number;
}

interface Node {
  name: string;
  port: number;
  proxy: ChaosProxy;
  server: NodeServer | null;
}

export async function runOrdered({ db, size: sizeName, seed }: OrderedArgs): Promise<number> {
  const size = SIZES[sizeName];
  const t0 = Date.now();
  const say = (line: string) => process.stdout.write(`[chaos ${((Date.now() - t0) / 1000).toFixed(1)}s] ${line}\n`);
  if (db === 'postgres') ensurePostgres(say);
  else ensureMariadb(say);
  const hardStop = setTimeout(
    () => {
      process.stdout.write(`chaos: ordered: hard time limit (${size.budgetS + 30}s) hit, aborting: FAIL\n`);
      process.exit(3);
    },
    (size.budgetS + 30) * 1000,
  );
  hardStop.unref();
  const random = rng(seed);
  const runDir = fs.mkdtempSync(path.join(os.tmpdir(), 'leaf-chaos-ordered-'));
  const violations: string[] = [];
  const database =
    db === 'postgres' ? await PostgresServer.create({ log: say }) : await MariadbServer.create({ log: say });
  const nodes: Node[] = [];
  let store: LeafStore | null = null;
  let haproxy: Awaited<ReturnType<typeof startHaproxyRecipe>> | null = null;
  let summary = 'chaos: ordered: did not finish';
  try {
    const url = await database.createAppUser('leaf_ordered', 'chaos');
    store = await openStore({ ...storeUrlTarget(url), migrationsDir: defaultMigrationsDir() });
    await store.tags.createTag({ bizTag: STRICT, step: 50 });
    await store.tags.createTag({ bizTag: PLAIN, step: 50 });
    await store.order.setOrdering(STRICT, 'strict');
    for (let i = 0; i < 3; i++) {
      const proxy = new ChaosProxy(`p${i + 1}`, database.port, random);
      await proxy.listen();
      nodes.push({ name: `o${i + 1}`, port: await freePort(), proxy, server: null });
    }
    const dbUrlVia = (proxy: ChaosProxy) => Object.assign(new URL(url), { port: String(proxy.port) }).toString();
    const start = async (node: Node) => {
      node.server = await startNodeServer({
        port: node.port,
        timeoutMs: 60_000,
        env: {
          ...process.env,
          NODE_ENV: 'production',
          DATABASE_URL: dbUrlVia(node.proxy),
          LEAF_NODE_ID: `chaos-${node.name}`,
          LEAF_LOG_LEVEL: 'warn',
          LEAF_SNOWFLAKE: 'off',
          ...ORDER_ENV,
        },
      });
    };
    await Promise.all(nodes.map(start));
    haproxy = await startHaproxyRecipe({
      servers: nodes.map((n) => n.port),
      dir: path.join(runDir, 'haproxy'),
      log: say,
    });
    say(
      `${db} :${database.port}; nodes ${nodes.map((n) => `${n.name} :${n.port}`).join(', ')}; haproxy :${haproxy.port}`,
    );
    const balancer = `http://127.0.0.1:${haproxy.port}`;

    let stopLoad = false;
    const load = runOrderLoad({
      targets: () => [balancer, ...nodes.filter((n) => n.server !== null).map((n) => n.server!.url)],
      tags: [STRICT, PLAIN],
      clients: size.clients,
      done: () => stopLoad,
      retryBoundMs: 30_000,
      batchEvery: 4,
      batchSize: 5,
      seed,
    });
    const owner = async (): Promise<Node> => {
      for (const until = Date.now() + 30_000; Date.now() < until; await sleep(100)) {
        const { rows, dbNowMs } = await store!.order.readOrder();
        const row = rows.find((r) => r.bizTag === STRICT);
        const node = nodes.find((n) => `127.0.0.1:${n.port}` === row?.ownerAddress);
        if (row !== undefined && row.leaseExpiresAt >= dbNowMs && node?.server != null) return node;
      }
      throw new Error('no live owner within 30 s');
    };
    const faults: Fault[] = [];
    for (let r = 0; r < size.rounds; r++) faults.push(...(r === 0 ? FAULTS : shuffled(FAULTS, random)));
    await sleep(2_000);
    for (const fault of faults) {
      const victim = fault === 'outage' ? null : await owner();
      const at = Date.now();
      await inject(fault, victim, { database, start, say });
      say(
        `${fault}${victim === null ? '' : ` of owner ${victim.name}`}: done after ${((Date.now() - at) / 1000).toFixed(1)} s`,
      );
      await sleep(1_500);
    }
    await sleep(1_500);
    stopLoad = true;
    const loads = await load;

    const strict = loads.get(STRICT)!;
    const plain = loads.get(PLAIN)!;
    const strictReport = checkOrder(strict.answers);
    const plainReport = checkOrder(plain.answers);
    const epoch = (await store.order.readOrder()).rows.find((r) => r.bizTag === STRICT)?.epoch ?? 0;
    if (strictReport.violations > 0)
      violations.push(`strict tag out of order: ${JSON.stringify(strictReport.examples, bigintText)}`);
    if (strictReport.duplicates > 0 || plainReport.duplicates > 0) violations.push('an ID given twice');
    if (Object.keys(strict.failed).length > 0 || Object.keys(plain.failed).length > 0)
      violations.push(
        `requests failed past the retry bound: ${JSON.stringify({ strict: strict.failed, plain: plain.failed })}`,
      );
    if (plainReport.violations === 0)
      violations.push('the ordinary tag never went backwards: the check proved nothing');
    if (epoch < faults.length) violations.push(`only ${epoch} owners for ${faults.length} faults`);
    summary =
      `chaos: ordered db=${db} size=${sizeName} seed=${seed} ${orderSummary(strictReport)} ` +
      `ownership-changes=${epoch - 1} longest-unavailable=${strict.longestGapMs}ms retries=${strict.retries} ` +
      `ordinary-order-violations=${plainReport.violations} faults=${faults.join(',')}`;
  } catch (error) {
    violations.push(`harness error: ${(error as Error).stack ?? String(error)}`);
  } finally {
    for (const node of nodes) node.server?.child.kill('SIGCONT');
    await Promise.all(nodes.map((n) => n.server?.stop().catch(() => undefined)));
    await Promise.all(nodes.map((n) => n.proxy.close()));
    await haproxy?.stop().catch(() => undefined);
    await store?.close().catch(() => undefined);
    await database.destroy().catch(() => undefined);
    await stopAllChildren(0);
    fs.rmSync(runDir, { recursive: true, force: true });
    clearTimeout(hardStop);
  }
  for (const v of violations) say(`VIOLATION: ${v}`);
  process.stdout.write(`${summary}: ${violations.length === 0 ? 'PASS' : `FAIL (${violations.length} violations)`}\n`);
  return violations.length === 0 ? 0 : 1;
}

interface FaultTools {
  database: MariadbServer | PostgresServer;
  start: (node: Node) => Promise<void>;
  say: (line: string) => void;
}

/** One fault and its repair; the clients keep sending throughout. */
async function inject(fault: Fault, victim: Node | null, { database, start, say }: FaultTools): Promise<void> {
  const server = victim?.server;
  if (fault === 'outage') {
    await database.stop();
    say('database down: the strict tag answers 503 once its owner cannot renew; nothing out of order');
    await sleep(LEASE_MS + 1_000);
    await database.start();
    return;
  }
  if (victim === null || server == null) throw new Error(`no owner for ${fault}`);
  if (fault === 'kill' || fault === 'stop') {
    victim.server = null; // no new requests go straight to it
    if (fault === 'kill') server.child.kill('SIGKILL');
    await server.stop();
    await sleep(500);
    await start(victim);
  } else if (fault === 'pause') {
    server.child.kill('SIGSTOP');
    await sleep(2 * LEASE_MS);
    server.child.kill('SIGCONT');
  } else {
    // Cut off: every answer from the database held far past the lease, the connections it had dropped.
    victim.proxy.setLatency({ minMs: 60_000, maxMs: 60_000 });
    victim.proxy.cutAll();
    await sleep(2 * LEASE_MS);
    victim.proxy.setLatency(null);
    victim.proxy.cutAll();
  }
}

function bigintText(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? String(value) : value;
}
