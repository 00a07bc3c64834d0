/**
 * The bench's private databases (tools/harness): a throwaway MariaDB with a database for leaf-ts and one for the
 * alternatives' tables, and a throwaway redis-server; both on 127.0.0.1, free ports, under the bench's temp dir; a
 * PostgreSQL, a 3-node Galera and a 3-node Patroni cluster for the rows that compare dialects and clusters.
 */
import fs from 'node:fs';
import path from 'node:path';
import {
  GaleraCluster,
  MariadbServer,
  PatroniCluster,
  PostgresServer,
  type RedisServer,
  describeRoles,
  psql,
  withDatabase,
} from '../harness';
import { ADMIN_TOKEN, ORDERED_TAG, TAG, progress, sleep, tmpDir } from './config';
import { probe } from './ids';
import { type Server, leafServer } from './servers';

/** What is running now, for the end of the run and for cleanup on error or signal. */
export const dbs: {
  maria: MariadbServer | null;
  redis: RedisServer | null;
  galera: GaleraCluster | null;
  postgres: PostgresServer | null;
  patroni: PatroniCluster | null;
} = {
  maria: null,
  redis: null,
  galera: null,
  postgres: null,
  patroni: null,
};

/** The tables of the approaches Leaf replaced (tools/bench/altServer.ts), made by tools/bench/run.ts on the bench's MariaDB. */
export const ALT_DDL = [
  'CREATE TABLE id_autoinc (id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY) ENGINE=InnoDB',
  // Flickr's ticket server, as published: MyISAM, since REPLACE INTO on InnoDB deadlocks under concurrency.
  "CREATE TABLE tickets64 (id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT, stub CHAR(1) NOT NULL DEFAULT '', PRIMARY KEY (id), UNIQUE KEY stub (stub)) ENGINE=MyISAM",
];

export interface MariaInfo {
  version: string;
  leafUrl: string;
  altUrl: string;
}

/** The bench's private mariadbd: a database for leaf-ts (its migrations run at its start) and one for the alternatives. */
export async function startMaria(): Promise<MariaInfo> {
  const started = Date.now();
  const maria = await MariadbServer.create({ baseDir: tmpDir, log: (line) => progress(`mariadb: ${line}`) });
  dbs.maria = maria;
  const leafUrl = await maria.createAppUser('leaf_bench', 'leaf_bench');
  const altUrl = withDatabase(leafUrl, 'leaf_bench_alt');
  const out = (await maria.rootQuery([
    'SELECT VERSION() AS v',
    'CREATE DATABASE leaf_bench_alt CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci',
    'USE leaf_bench_alt',
    ...ALT_DDL,
    "SELECT table_name AS t, engine AS e FROM information_schema.tables WHERE table_schema = 'leaf_bench_alt' ORDER BY table_name",
  ])) as unknown[];
  const versionRow = (out[0] as Array<{ v: string }>)[0];
  if (versionRow === undefined) throw new Error('mariadb: SELECT VERSION() returned no row');
  const version = versionRow.v;
  const engines = out[out.length - 1] as Array<{ t: string; e: string }>;
  const engine = (t: string) => engines.find((x) => x.t === t)?.e;
  if (engine('id_autoinc') !== 'InnoDB' || engine('tickets64') !== 'MyISAM') {
    throw new Error(`alternative tables have the wrong engines: ${JSON.stringify(engines)}`);
  }
  await maria.rootQuery(["INSERT INTO leaf_bench_alt.tickets64 (stub) VALUES ('a')"]);
  progress(
    `mariadb: ${version} PID ${maria.pid} on 127.0.0.1:${maria.port}; leaf_bench (leaf-ts) and leaf_bench_alt (id_autoinc InnoDB, tickets64 MyISAM) ready in ${Date.now() - started} ms`,
  );
  return { version, leafUrl, altUrl };
}

export interface PostgresInfo {
  version: string;
  leafUrl: string;
  pid: number;
}

/**
 * The bench's private PostgreSQL (tools/harness/postgres.ts, its data dir in the system's temp dir like MariaDB's in
 * the bench's, the same durability: each commit's WAL written to the OS, not fsynced), with a database for leaf-ts.
 */
export async function startPostgresDb(): Promise<PostgresInfo> {
  const started = Date.now();
  // Not in the bench's temp dir: that one is root's alone (0700), and postgres runs as its own user.
  const server = await PostgresServer.create({ log: (line) => progress(`postgres: ${line}`) });
  dbs.postgres = server;
  const leafUrl = await server.createAppUser('leaf_bench', 'leaf_bench');
  const [row] = await psql(server.superuserConninfo(), "SELECT current_setting('server_version')");
  const version = row?.[0];
  if (version === undefined) throw new Error('postgres: SELECT current_setting(server_version) returned no row');
  if (server.pid === undefined) throw new Error('postgres has no PID');
  progress(
    `postgres: ${version} PID ${server.pid} on 127.0.0.1:${server.port}; leaf_bench ready in ${Date.now() - started} ms`,
  );
  return { version: `PostgreSQL ${version}`, leafUrl, pid: server.pid };
}

/** A 3-node cluster (Galera or Patroni) as the bench uses it. */
export interface ClusterInfo {
  version: string;
  /** DATABASE_URL for leaf-ts: every node of the cluster, node 1 first (the store writes to the first writable one). */
  leafUrl: string;
  /** The nodes' database PIDs: their CPU belongs to the cluster's rows (every node applies every write). */
  pids: number[];
}

/**
 * A throwaway 3-node Galera cluster (tools/harness/galera.ts: node 1 bootstrapped, nodes 2 and 3 joined by SST, all
 * Synced), with a database of its own for leaf-ts (its migrations run at its start), next to the single MariaDB.
 */
export async function startGalera(): Promise<ClusterInfo> {
  const started = Date.now();
  const cluster = await GaleraCluster.create({ nodes: 3, baseDir: tmpDir, log: (line) => progress(`galera: ${line}`) });
  dbs.galera = cluster;
  const db = await cluster.createDatabase('leaf_bench');
  const leafUrl = cluster.multiHostUrl([0, 1, 2], db.name);
  const first = cluster.nodes[0];
  if (first === undefined) throw new Error('galera: the cluster has no node 1');
  const out = (await first.rootQuery([
    'SELECT VERSION() AS v',
    "SHOW GLOBAL STATUS LIKE 'wsrep_provider_version'",
  ])) as unknown[];
  const versionRow = (out[0] as Array<{ v: string }>)[0];
  if (versionRow === undefined) throw new Error('galera: SELECT VERSION() returned no row');
  const version = `${versionRow.v}, Galera ${(out[1] as Array<{ Value: string }>)[0]?.Value ?? '?'}`;
  const pids = cluster.nodes.map((n) => n.pid).filter((p): p is number => p !== undefined);
  if (pids.length !== 3) throw new Error(`galera: ${pids.length} of 3 nodes have a PID`);
  progress(
    `galera: ${version}, 3 nodes (PIDs ${pids.join(', ')}) on ${cluster.hosts.join(', ')}; database ${db.name} ready in ${Date.now() - started} ms`,
  );
  return { version, leafUrl, pids };
}

/**
 * A throwaway 3-node Patroni cluster in synchronous_mode (tools/harness/patroni.ts: etcd, one primary, one sync and one
 * async standby), its app database reached by the multi-host URL as leaf-ts uses it. Its "database" PIDs are the
 * three postmasters (with their backends, walsenders and walreceivers when measured), not Patroni's agents or etcd.
 */
export async function startPatroni(): Promise<ClusterInfo> {
  const started = Date.now();
  const cluster = await PatroniCluster.create({
    nodes: 3,
    synchronous: true,
    log: (line) => progress(`patroni: ${line}`),
  });
  dbs.patroni = cluster;
  const primary = await cluster.waitForLeader();
  const [row] = await cluster.query(primary, "SELECT current_setting('server_version')");
  const version = row?.[0];
  if (version === undefined) throw new Error('patroni: SELECT current_setting(server_version) returned no row');
  // postmaster.pid's first line; the file is the postgres user's, readable by root as the bench runs.
  const pids = cluster.nodes.map((n) =>
    Number(fs.readFileSync(path.join(n.paths.dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]),
  );
  if (!pids.every((p) => Number.isInteger(p) && p > 0)) throw new Error(`patroni: postmaster PIDs ${pids.join(', ')}`);
  progress(
    `patroni: PostgreSQL ${version}, ${describeRoles(await cluster.roles())}; postmasters ${pids.join(', ')}; ready in ${Date.now() - started} ms`,
  );
  return { version: `PostgreSQL ${version} under Patroni (synchronous_mode)`, leafUrl: cluster.url(), pids };
}

/** Creates the `demo` tag (DB step 1000, as SQLite's default tag) through the admin API, then checks it serves. */
export async function createMariaTag(server: Server): Promise<void> {
  const refused = await createTag(server, { bizTag: TAG, step: 1000, description: 'npm run bench' });
  if (refused !== null) throw new Error(refused);
}

/**
 * Creates a tag through POST /api/admin/tags and waits until it serves. Returns null when it does, or the
 * server's refusal (a 4xx, e.g. a max_id this version cannot issue) for the caller to report; throws otherwise.
 */
export async function createTag(
  server: Server,
  body: {
    bizTag: string;
    step: number;
    maxId?: string;
    description: string;
    ordering?: 'strict';
    encoding?: 'opaque';
  },
): Promise<string | null> {
  const refused = await postAdmin(server, '/api/admin/tags', body);
  if (refused !== null) return refused;
  const started = Date.now();
  for (;;) {
    try {
      await probe(`${server.base}/api/id/segment/${body.bizTag}`, 'seq', body.bizTag);
      progress(
        `${server.name}: tag ${body.bizTag} created (step ${body.step}${body.maxId === undefined ? '' : `, max_id ${body.maxId}`}) and serving`,
      );
      return null;
    } catch (error) {
      // Created but not served (say, an ID past what this version can issue): refused as well, not a crash.
      const why = error instanceof Error ? error.message : String(error);
      if (/: HTTP 4\d\d /.test(why) || Date.now() - started > 10_000)
        return `${server.name}: tag ${body.bizTag} created but not served: ${why}`;
      await sleep(200);
    }
  }
}

/** POST `body` to an admin route: null when created; the server's refusal (4xx) as a sentence; throws otherwise. */
async function postAdmin(server: Server, route: string, body: object): Promise<string | null> {
  const r = await fetch(`${server.base}${route}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await r.text();
  const what = `${server.name}: POST ${route} ${JSON.stringify(body)} answered ${r.status}: ${text.slice(0, 300)}`;
  if (r.status >= 400 && r.status < 500) return what;
  if (r.status !== 200 && r.status !== 201) throw new Error(what);
  return null;
}

/**
 * POST /api/admin/formats, then one formatted ID: null, or why not (a version without formatted IDs answers 404),
 * so the rows are skipped with the reason instead of failing the run.
 */
export async function createFormat(
  server: Server,
  body: { bizTag: string; pattern: string; resetPeriod: string; timeZone: string; step: number; description: string },
): Promise<string | null> {
  const refused = await postAdmin(server, '/api/admin/formats', body);
  if (refused !== null) return refused;
  await probe(`${server.base}/api/id/formatted/${body.bizTag}`, 'formatted', body.bizTag);
  progress(`${server.name}: formatted tag ${body.bizTag} (${body.pattern}, ${body.resetPeriod}) created and serving`);
  return null;
}

/**
 * The ordered rows' set-up: a strict tag created on `owner` and served by it (which makes it the owner), and a second
 * node on the same SQLite file that relays to it; null (with the reason in `notes`) when refused.
 */
export async function orderedSetup(owner: Server, notes: string[]): Promise<Server | null> {
  const refused = await createTag(owner, {
    bizTag: ORDERED_TAG,
    step: 1000,
    ordering: 'strict',
    description: 'npm run bench: a strict tag',
  });
  if (refused !== null || owner.sqliteFile === undefined || owner.child.pid === undefined) {
    notes.push(`The strict-tag rows are skipped: ${refused ?? 'the owner has no SQLite file of its own'}`);
    return null;
  }
  const relay = await leafServer(
    'leaf-ts fast lane (SQLite, a second node relaying the strict tag)',
    { LEAF_SQLITE_FILE: owner.sqliteFile },
    [owner.child.pid],
  );
  await probe(`${relay.base}/api/id/segment/${ORDERED_TAG}`, 'seq', ORDERED_TAG);
  progress(`${relay.name}: relays ${ORDERED_TAG} to ${owner.name}`);
  return relay;
}
