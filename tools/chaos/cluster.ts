/**
 * The cluster under test: a private MariaDB (or with --db postgres a PostgreSQL; tools/harness) with one tag of a small
 * DB step, and NODES leaf-ts nodes, each behind its own fault-injecting proxy to it — or, with --db galera (--db patroni), a
 * 3-node Galera (synchronous Patroni) cluster that every node reaches through its multi-host URL; then a formatted tag created through the first node's admin API,
 * and the paced load over them, with a status line every 5 s.
 */
import path from 'node:path';
import { openStore } from '../../lib/store';
import { defaultMigrationsDir } from '../../lib/store/migrations';
import { storeUrlTarget } from '../../lib/store/target';
import {
  GaleraCluster,
  MariadbServer,
  PatroniCluster,
  PostgresServer,
  describeRoles,
  freePort,
  startHaproxyRecipe,
  waitForServers,
} from '../harness';
import { ADMIN_TOKEN, CLIENT_TIMEOUT_MS, DB_STEP, FORMAT, FORMAT_TAG, NODES, REPO_ROOT, TAG } from './config';
import type { ChaosRun } from './context';
import { Load, type LoadTarget, SERVED_BY } from './load';
import { LeafNode } from './node';
import { ChaosProxy } from './proxy';

/** Creates the chaos tag through a short-lived store on `url` (MariaDB, Galera or PostgreSQL). */
async function createTag(run: ChaosRun, url: string, where: string): Promise<void> {
  const setupStore = await openStore({ ...storeUrlTarget(url), migrationsDir: defaultMigrationsDir() });
  try {
    await setupStore.tags.createTag({ bizTag: TAG, step: DB_STEP, description: 'chaos harness' });
  } finally {
    await setupStore.close();
  }
  run.say(`tag "${TAG}" created with step ${DB_STEP} on ${where}`);
}

/**
 * Creates the formatted tag as an operator would, with POST /api/admin/formats on the first node; the others
 * learn of it at their first request for it (an unknown tag re-reads the format list).
 */
async function createFormat(run: ChaosRun): Promise<void> {
  const node = run.nodes[0];
  if (node === undefined) throw new Error(`no node to create formatted tag "${FORMAT_TAG}" on`);
  const response = await fetch(`http://127.0.0.1:${node.port}/api/admin/formats`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ bizTag: FORMAT_TAG, ...FORMAT, description: 'chaos harness' }),
    signal: AbortSignal.timeout(10_000),
  });
  if (response.status !== 201)
    throw new Error(
      `POST /api/admin/formats on ${node.name}: ${response.status} ${(await response.text()).slice(0, 300)}`,
    );
  run.say(
    `formatted tag "${FORMAT_TAG}" created on ${node.name}: ${FORMAT.pattern}, ${FORMAT.resetPeriod} in ${FORMAT.timeZone}, step ${FORMAT.step}`,
  );
}

/** Starts the run's MariaDB with the tag created on it; its app user's URL. */
async function startMariadb(run: ChaosRun): Promise<{ db: MariadbServer; url: string }> {
  const db = await MariadbServer.create({ log: (l) => run.say(`mariadb: ${l}`) });
  run.db = db;
  const url = await db.createAppUser('leaf_chaos', 'chaos');
  run.checkUrl = () => (db.isRunning ? url : null);
  await createTag(run, url, `MariaDB pid ${db.pid} port ${db.port}`);
  return { db, url };
}

/** `--db postgres`: the run's PostgreSQL (tools/harness/postgres.ts) with the tag created on it; its app user's URL. */
async function startPostgres(run: ChaosRun): Promise<{ db: PostgresServer; url: string }> {
  const db = await PostgresServer.create({ log: (l) => run.say(`postgres: ${l}`) });
  run.db = db;
  const url = await db.createAppUser('leaf_chaos', 'chaos');
  run.checkUrl = () => (db.isRunning ? url : null);
  await createTag(run, url, `PostgreSQL pid ${db.pid} port ${db.port}`);
  return { db, url };
}

/** Starts the database (MariaDB, or PostgreSQL), creates the tag, and starts every node behind its proxy (healthy before it returns). */
export async function startCluster(run: ChaosRun): Promise<void> {
  const { random, proxies } = run;
  const { db, url } = run.database === 'postgres' ? await startPostgres(run) : await startMariadb(run);
  const urls: string[] = [];
  for (let i = 0; i < NODES; i++) {
    const proxy = new ChaosProxy(`p${i + 1}`, db.port, random);
    await proxy.listen();
    proxies.push(proxy);
    const dbUrl = new URL(url);
    dbUrl.port = String(proxy.port);
    urls.push(dbUrl.toString());
  }
  await startNodes(run, urls, (i) => `via proxy :${proxies[i]?.port ?? '?'}`);
}

/**
 * `--lb haproxy`: MariaDB, the tag, the nodes straight to it, and HAProxy running the recipe in front of them (its
 * addresses on loopback, plus a header naming the node that answered, so each answer is still checked per node).
 */
export async function startBalancedCluster(run: ChaosRun): Promise<void> {
  const { say, nodes, runDir } = run;
  const { url } = await startMariadb(run);
  await startNodes(run, Array<string>(NODES).fill(url), () => 'straight to MariaDB', {
    LEAF_TRUSTED_PROXIES: '127.0.0.1',
  });
  const haproxy = await startHaproxyRecipe({
    servers: nodes.map((n) => n.port),
    dir: path.join(runDir, 'haproxy'),
    log: (l) => say(l),
    backendLines: [`http-response set-header ${SERVED_BY} %[srv_name]`],
  });
  run.haproxy = haproxy;
  const names = nodes.map((_, i) => `leaf${i + 1}`);
  if (!(await waitForServers(haproxy, names, 'UP', 10_000)))
    throw new Error(`haproxy did not mark every node UP: ${JSON.stringify((await haproxy.stats()).servers)}`);
  say(
    `haproxy :${haproxy.port} in front of ${nodes.map((n, i) => `${names[i]}=${n.name} :${n.port}`).join(', ')}: all UP`,
  );
}

/**
 * `--db galera`: a 3-node Galera cluster (tools/harness), the tag, and every node on the multi-host URL in its own
 * host order — node i prefers Galera node i — straight to the database (no proxy: the faults are the database's).
 */
export async function startGaleraCluster(run: ChaosRun): Promise<void> {
  const cluster = await GaleraCluster.create({ log: (l) => run.say(`galera: ${l}`) });
  run.galera = cluster;
  const database = await cluster.createDatabase('leaf_chaos');
  run.checkUrl = () => {
    const live = cluster.nodes.findIndex((n) => n.isRunning && !n.isPaused);
    return live === -1 ? null : cluster.urlFor(live, database.name);
  };
  await startOnMultiHostUrl(
    run,
    cluster.nodes.length,
    (order) => cluster.multiHostUrl(order, database.name),
    'g',
    `Galera (${cluster.hosts.join(', ')})`,
  );
}

/**
 * `--db patroni`: a 3-node Patroni cluster in synchronous_mode (tools/harness/patroni.ts), the tag, and every node on
 * the multi-host URL in its own host order, straight to the database. The store writes only to the writable
 * primary, so the multi-host URL is also how the report reads max_id from whichever node is primary by then.
 */
export async function startPatroniCluster(run: ChaosRun): Promise<void> {
  const cluster = await PatroniCluster.create({ nodes: 3, synchronous: true, log: (l) => run.say(`patroni: ${l}`) });
  run.patroni = cluster;
  run.checkUrl = () => (cluster.nodes.some((n) => n.isRunning) ? cluster.url() : null);
  const hosts = cluster.nodes.map((_, i) => cluster.host(i)).join(', ');
  await startOnMultiHostUrl(
    run,
    cluster.nodes.length,
    (order) => cluster.url(order),
    'pg',
    `Patroni (${describeRoles(await cluster.roles())}; ${hosts})`,
  );
}

/** The tag, then every leaf-ts node on the multi-host URL with the hosts rotated so node i prefers database node i. */
async function startOnMultiHostUrl(
  run: ChaosRun,
  hostCount: number,
  url: (order: number[]) => string,
  hostPrefix: string,
  where: string,
): Promise<void> {
  const orders = Array.from({ length: NODES }, (_, i) =>
    Array.from({ length: hostCount }, (_, k) => (i + k) % hostCount),
  );
  const first = orders[0];
  if (first === undefined) throw new Error(`no host order for node 1 (NODES is ${NODES})`);
  await createTag(run, url(first), where);
  await startNodes(
    run,
    orders.map((order) => url(order)),
    (i) => `hosts in order ${orders[i]?.map((k) => `${hostPrefix}${k + 1}`).join(',') ?? '?'}`,
  );
}

/** Starts NODES leaf-ts nodes, node i on `urls[i]` (healthy before it returns), and creates the formatted tag. */
async function startNodes(
  run: ChaosRun,
  urls: string[],
  describe: (i: number) => string,
  extraEnv: Record<string, string> = {},
): Promise<void> {
  const { say, violate, nodes, logEvents, runId, runDir } = run;
  for (let i = 0; i < NODES; i++) {
    const name = `n${i + 1}`;
    const url = urls[i];
    if (url === undefined) throw new Error(`no database URL for ${name} (${urls.length} URLs for ${NODES} nodes)`);
    nodes.push(
      new LeafNode({
        name,
        port: await freePort(),
        repoRoot: REPO_ROOT,
        runId,
        logFile: path.join(runDir, `${name}.log`),
        env: {
          DATABASE_URL: url,
          LEAF_NODE_ID: `chaos-${name}`,
          LEAF_ADMIN_TOKEN: ADMIN_TOKEN,
          LEAF_LOG_LEVEL: 'info',
          ...extraEnv,
        },
        onLog: (e) => {
          logEvents.push(e);
          if (e.event === 'unexpected_error' || e.event === 'admin_route_failed')
            say(`${e.node}: ${e.event} ${JSON.stringify(e.fields).slice(0, 300)}`);
        },
        onUnexpectedExit: (n, code, signal) => {
          if (!run.tearingDown) violate(`${n.name} exited unasked (code ${code}, signal ${signal}):\n${n.logTail(15)}`);
        },
      }),
    );
  }
  const startups = await Promise.all(nodes.map((n) => n.start()));
  say(`nodes up: ${nodes.map((n, i) => `${n.name} :${n.port} ${describe(i)} (${startups[i]} ms)`).join(', ')}`);
  await createFormat(run);
}

/** The client loops, churn loops and health prober over the nodes; returns the 5-s status line's timer. */
export function startLoad(run: ChaosRun): ReturnType<typeof setInterval> {
  const { size, random, say, nodes, rec, haproxy } = run;
  const balanced = haproxy !== null;
  // Through the balancer: one target that is always up; each answer is the node's whose name HAProxy put on it.
  const targets: LoadTarget[] = balanced
    ? [{ name: 'haproxy', port: haproxy.port, state: 'up', life: 1, wasDownDuring: () => false }]
    : nodes;
  const servedBy = (name: string | undefined) => {
    const node = name === undefined ? -1 : Number(/^leaf(\d+)$/.exec(name)?.[1] ?? 0) - 1;
    const leaf = nodes[node];
    return leaf === undefined ? null : { node, life: leaf.life };
  };
  const load = new Load({
    targets,
    servedBy: balanced ? servedBy : undefined,
    recorder: rec,
    tag: TAG,
    formatTag: FORMAT_TAG,
    timeoutMs: CLIENT_TIMEOUT_MS,
    random,
  });
  run.load = load;
  load.startClients(size.loops, size.ratePerLoop);
  load.startChurn(balanced ? size.churnPerNode * nodes.length : size.churnPerNode);
  load.startHealth(500);
  let last = { ...load.counters };
  const status = setInterval(() => {
    const c = load.counters;
    const d = (k: keyof typeof c) => c[k] - last[k];
    say(
      `  load: ${Math.round(d('sent') / 5)} req/s, last 5 s: 200=${d('ok')} 503=${d('s503')} other=${d('other')} ` +
        `conn-errors=${d('connErrors')} timeouts=${d('timeouts')}; ids so far segment=${rec.segIds} snowflake=${rec.snowCount} formatted=${rec.fmtIds}; ` +
        `nodes ${nodes.map((n) => `${n.name}:${n.state}`).join(' ')}`,
    );
    last = { ...c };
  }, 5_000);
  status.unref();
  return status;
}
