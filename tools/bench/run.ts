/**
 * `npm run bench`: leaf-ts next to its ceilings and next to the approaches Leaf replaced, one bounded run (≤ 6 min
 * in all, a hard cap), every row on the same machine with the same autocannon settings:
 *  - leaf-ts fast lane, `/api/id/segment/demo` single and `?count=1000`, on the embedded SQLite, on MariaDB and on a
 *    3-node Galera cluster (tools/harness/galera.ts, multi-host DATABASE_URL), with segment loads per second and
 *    the p50 / p99 of one load; then direct claims (MysqlStore.allocate) on MariaDB and Galera (claims.ts);
 *    the same with LEAF_WORKERS=2 (node:cluster, both cores); `/api/id/snowflake`; the plain Next route handler;
 *  - the ceilings: bare node:http (tools/bench/bareServer.ts) and a constant Next route (app/api/bench/constant, served
 *    only with LEAF_BENCH_ROUTES=on);
 *  - the approaches Leaf replaced, each a bare node:http server (tools/bench/altServer.ts) answering the same JSON shape:
 *    one InnoDB AUTO_INCREMENT INSERT per ID, the Flickr ticket server (MyISAM REPLACE INTO + LAST_INSERT_ID()),
 *    Redis INCR, crypto.randomUUID();
 *  - in-process: SegmentEngine takeIds/nextId, SnowflakeGenerator.nextId next to @sapphire/snowflake.
 * MariaDB is a private mariadbd (tools/harness/mariadb.ts), Redis a private redis-server (tools/harness/redis.ts); both on
 * 127.0.0.1, free ports, own temp dirs, stopped by PID. Every server is its own child process (killed by PID at the
 * end, on error and on SIGINT); the load generator is autocannon, run programmatically in this process (one
 * thread), so it shares the machine's cores with the server under test.
 * Prints progress, then one markdown table, also written to tools/bench/results.md.
 * This file is the orchestration; the steps live beside it: config.ts (settings), build.ts, services.ts (MariaDB,
 * Redis, Galera), servers.ts, rows.ts (the rows), measure.ts (autocannon), cpu.ts, metrics.ts, ids.ts (checks),
 * claims.ts (direct claims), inProcessRows.ts, plan.ts (fitting the hard cap), render.ts (results.md), format.ts.
 *
 * Settings (env): BENCH_CONNECTIONS (50), BENCH_DURATION (s measured per run; default 5, shortened uniformly for
 * every row when the plan would not fit the 6-min cap), BENCH_ROUNDS (2 runs per row, in alternating order),
 * BENCH_WARMUP (2 s before every run), BENCH_PIPELINING (1), BENCH_INPROC_MS (3000), BENCH_CLAIMS (2000 direct claims
 * per database), BENCH_CLAIM_CONCURRENCY (4), BENCH_REBUILD=1 forces
 * `next build` first (a build also runs when .next lacks the bench's constant route).
 * Exit code 1 when a correctness check fails (errors, non-2xx, malformed or repeated IDs); missed targets only warn.
 * No top-level await: package.json has no "type": "module", so tsx runs this file as CommonJS.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startRedis, stopAllChildren } from '../harness';
import { ensureBuild, gitDescribe } from './build';
import {
  ALT_POOL,
  CONNECTIONS,
  DEFAULT_DURATION_S,
  DURATION_FIXED,
  HARD_CAP_MS,
  PIPELINING,
  RESULTS_FILE,
  ROOT,
  ROUNDS,
  WARMUP_S,
  progress,
  settings,
  t0,
  tmpDir,
} from './config';
import { measureInProcess } from './inProcessRows';
import { finishHttpRow, measureOnce } from './measure';
import { planDuration } from './plan';
import { type Meta, render } from './render';
import { failures, rows } from './results';
import { ROW_GROUPS, httpRows } from './rows';
import { leafServer, startServer, stopServer, waitForWorkers } from './servers';
import { createMariaTag, dbs, startGalera, startMaria } from './services';
import { measureClaims } from './claims';

/** Stops every child process (servers, in-process child, redis-server), then mariadbd and the Galera nodes, and removes the temp dir. */
async function cleanup(): Promise<void> {
  await stopAllChildren(5_000);
  if (dbs.galera !== null) {
    const g = dbs.galera;
    dbs.galera = null;
    await g.destroy().catch(() => undefined);
  }
  if (dbs.maria !== null) {
    const m = dbs.maria;
    dbs.maria = null;
    await m.destroy().catch(() => m.killSync());
  }
  fs.rmSync(tmpDir, { recursive: true, force: true });
}

async function main(): Promise<void> {
  const meta: Meta = {
    date: new Date().toISOString(),
    cpu: os.cpus()[0]?.model.trim() ?? 'unknown',
    cores: os.cpus().length,
    load: os.loadavg().map((l) => l.toFixed(2)).join(' '),
    loadEnd: '',
    git: gitDescribe(),
    build: '',
    maria: '',
    galera: '',
    redis: '',
    duration: '',
    totalS: 0,
  };
  progress(
    `leaf-ts bench (bounded: ≤ ${HARD_CAP_MS / 60_000} min in all, hard cap): ${CONNECTIONS} connections, pipelining ${PIPELINING}, ` +
      `per row ${ROUNDS} × (${WARMUP_S} s warm-up + ${DURATION_FIXED ? settings.durationS : `≤ ${DEFAULT_DURATION_S}`} s measured); ` +
      `${meta.cores}× ${meta.cpu}, node ${process.version}, load average ${meta.load}`,
  );
  meta.build = await ensureBuild();

  const db = await startMaria();
  meta.maria = `MariaDB ${db.version}`;
  const redis = await startRedis(path.join(tmpDir, 'redis'), (line) => progress(line));
  dbs.redis = redis;
  meta.redis = redis.version;
  const mariaPid = dbs.maria?.pid;
  if (mariaPid === undefined) throw new Error('mariadbd has no PID');
  const galera = await startGalera();
  meta.galera = galera.version;

  const [bare, fast, plain, mariaLeaf, galeraLeaf, cluster, autoinc, flickr, redisAlt, uuid] = await Promise.all([
    startServer('bare node:http', 'tools/bench/bareServer.ts', {}),
    leafServer('leaf-ts fast lane (SQLite)', {}),
    leafServer('plain Next (LEAF_FAST_LANE=off, LEAF_BENCH_ROUTES=on)', { LEAF_FAST_LANE: 'off', LEAF_BENCH_ROUTES: 'on' }),
    leafServer('leaf-ts fast lane (MariaDB)', { DATABASE_URL: db.leafUrl }, [mariaPid]),
    leafServer('leaf-ts fast lane (Galera, 3 nodes)', { DATABASE_URL: galera.leafUrl }, galera.pids),
    leafServer('leaf-ts fast lane (SQLite, LEAF_WORKERS=2)', { LEAF_WORKERS: '2' }),
    startServer('auto-increment (InnoDB)', 'tools/bench/altServer.ts', { ALT_MODE: 'autoinc', ALT_MYSQL_URL: db.altUrl, ALT_MYSQL_POOL: String(ALT_POOL) }, [mariaPid]),
    startServer('Flickr tickets (MyISAM)', 'tools/bench/altServer.ts', { ALT_MODE: 'flickr', ALT_MYSQL_URL: db.altUrl, ALT_MYSQL_POOL: String(ALT_POOL) }, [mariaPid]),
    startServer('Redis INCR', 'tools/bench/altServer.ts', { ALT_MODE: 'redis', ALT_REDIS_URL: redis.url }, redis.child.pid === undefined ? [] : [redis.child.pid]),
    startServer('crypto.randomUUID()', 'tools/bench/altServer.ts', { ALT_MODE: 'uuid' }),
  ]);
  const servers = [bare, fast, plain, mariaLeaf, galeraLeaf, cluster, autoinc, flickr, redisAlt, uuid];
  await createMariaTag(mariaLeaf);
  await createMariaTag(galeraLeaf);
  await waitForWorkers(cluster);

  const table = httpRows({ bare, fast, plain, mariaLeaf, galeraLeaf, cluster, autoinc, flickr, redisAlt, uuid });
  meta.duration = planDuration(Object.keys(table).length * ROUNDS);
  for (let round = 0; round < ROUNDS; round++) {
    for (const group of ROW_GROUPS) {
      for (const key of round % 2 === 0 ? group : [...group].reverse()) await measureOnce(table[key], round);
    }
  }
  for (const key of Object.keys(table)) rows.push(finishHttpRow(table[key]));
  await Promise.all(
    servers.map(async (s) => {
      if (s.child.exitCode !== null || s.child.signalCode !== null) failures.push(`${s.name} exited during the run`);
      if (s.logLines > 0) progress(`${s.name}: ${s.logLines} log lines at warn or above; last:\n${s.tail.join('\n')}`);
      await stopServer(s);
    }),
  );
  await redis.stop();
  dbs.redis = null;
  await measureClaims([
    { key: 'claims-maria', scenario: 'direct claims: `MysqlStore.allocate(tag, 1000)`, single MariaDB (claims/s)', url: db.leafUrl, pids: [mariaPid] },
    { key: 'claims-galera', scenario: 'direct claims: `MysqlStore.allocate(tag, 1000)`, 3-node Galera, multi-host URL (claims/s)', url: galera.leafUrl, pids: galera.pids },
  ]);
  const g = dbs.galera;
  if (g !== null) {
    await g.destroy();
    dbs.galera = null;
    progress(`galera: stopped PIDs ${galera.pids.join(', ')}`);
  }
  const maria = dbs.maria;
  if (maria !== null) {
    const pid = maria.pid;
    await maria.destroy();
    dbs.maria = null;
    progress(`mariadb: stopped PID ${pid}`);
  }

  await measureInProcess();

  meta.loadEnd = os.loadavg().map((l) => l.toFixed(2)).join(' ');
  meta.totalS = (Date.now() - t0) / 1000;
  const { md, missed } = render(meta);
  fs.writeFileSync(RESULTS_FILE, md);
  console.log('\n' + md);
  progress(`wrote ${path.relative(ROOT, RESULTS_FILE)}; total ${((Date.now() - t0) / 1000).toFixed(1)} s (cap ${HARD_CAP_MS / 60_000} min); load average now ${meta.loadEnd}`);
  if (missed.length > 0) progress(`targets missed: ${missed.join('; ')}`);
  if (failures.length > 0) {
    progress(`FAIL: ${failures.join('; ')}`);
    process.exitCode = 1;
  }
}

const hardCap = setTimeout(() => {
  progress(`hard cap of ${HARD_CAP_MS / 60_000} min reached; stopping`);
  void cleanup().finally(() => process.exit(2));
}, HARD_CAP_MS);
hardCap.unref();

let interrupted = false;
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.on(sig, () => {
    if (interrupted) return;
    interrupted = true;
    progress(`${sig}: stopping child processes`);
    void cleanup().finally(() => process.exit(130));
  });
}
// Last resort (e.g. process.exit elsewhere): the harness's exit hooks SIGKILL every server, mariadbd and redis-server.

main()
  .catch((error: unknown) => {
    progress(`ERROR: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  })
  .finally(async () => {
    clearTimeout(hardCap);
    await cleanup();
  });
