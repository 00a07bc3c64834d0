/**
 * `npm run bench`: leaf-ts next to its ceilings and next to the approaches Leaf replaced, one bounded run (≤ 6 min
 * in all, a hard cap), every row on the same machine with the same autocannon settings:
 *  - leaf-ts fast lane, `/api/id/segment/demo` single and `?count=1000`, on the embedded SQLite, on MariaDB and on a
 *    3-node Galera cluster (tools/harness/galera.ts, multi-host DATABASE_URL), with segment loads per second and
 *    the p50 / p99 of one load; then direct claims (the store's allocate) on SQLite, MariaDB and Galera (claims.ts);
 *    the same with LEAF_WORKERS=2 (node:cluster, both cores); `/api/id/snowflake`; the plain Next route handler;
 *  - the ceilings: bare node:http (tools/bench/bareServer.ts) and a constant Next route (app/api/bench/constant, served
 *    only with LEAF_BENCH_ROUTES=on);
 *  - the approaches Leaf replaced, each a bare node:http server (tools/bench/altServer.ts) answering the same JSON shape:
 *    one InnoDB AUTO_INCREMENT INSERT per ID, the Flickr ticket server (MyISAM REPLACE INTO + LAST_INSERT_ID()),
 *    Redis INCR, crypto.randomUUID();
 *  - above 2^53: the SQLite fast lane's single and batch rows again for a tag at max_id 10^17 (rows.ts wideRows), the
 *    ratio to the rows below 2^53; left out, with the server's refusal in a note, where the version cannot issue them;
 *  - the client: `LeafClient.nextId` and `take(tag, 1000)` in a child process of their own (clientLoop.ts, clientRows.ts)
 *    leasing from the SQLite fast-lane server, with the server's lease requests per second, CPU and segment loads meanwhile;
 *  - in-process: SegmentEngine takeIds, SnowflakeGenerator.nextId next to @sapphire/snowflake (inProcess.ts); then one
 *    source per fresh child process through one loop (idLoop.ts): a bare counter, engine.nextId and the tag handle
 *    engine.tag(tag).next() (ratios to the counter; the handle is left out, with a note, where the engine has no
 *    `tag`), and the no-service alternatives UUID v7 (`uuid`) and ULID (`ulid`) with their size in an index;
 *  - restarts: IDs skipped per graceful restart with LEAF_GIVE_BACK=off and on (restartRows.ts, three servers in turn
 *    on one SQLite file).
 * MariaDB is a private mariadbd (tools/harness/mariadb.ts), Redis a private redis-server (tools/harness/redis.ts); both on
 * 127.0.0.1, free ports, own temp dirs, stopped by PID. Every server is its own child process (killed by PID at the
 * end, on error and on SIGINT); the load generator is autocannon, run programmatically in this process (one
 * thread), so it shares the machine's cores with the server under test.
 * Prints progress, then one markdown table, also written to tools/bench/results.md.
 * This file is the orchestration; the steps live beside it: config.ts (settings), build.ts, services.ts (MariaDB,
 * PostgreSQL, Redis, Galera, Patroni), servers.ts, rows.ts (the rows), measure.ts (autocannon), cpu.ts, metrics.ts, ids.ts (checks),
 * claims.ts (direct claims), clientRows.ts + clientLoop.ts (the client), inProcessRows.ts + inProcess.ts + idLoop.ts,
 * plan.ts (fitting the hard cap), render.ts (results.md), format.ts.
 *
 * Settings (env): BENCH_CONNECTIONS (50), BENCH_DURATION (s measured per run; default 5, shortened uniformly for
 * every row when the plan would not fit the 6-min cap), BENCH_ROUNDS (2 runs per row, in alternating order),
 * BENCH_WARMUP (2 s before every run), BENCH_PIPELINING (1), BENCH_INPROC_MS (3000), BENCH_CLAIMS (2000 direct claims
 * per database), BENCH_CLAIM_CONCURRENCY (4), BENCH_ONLY (a comma list of row groups: http, claims, wide, client, restart, inproc;
 * default all; e.g. BENCH_ONLY=client,inproc starts only the SQLite fast-lane server, BENCH_ONLY=claims only a MariaDB
 * and a PostgreSQL for the direct claims on SQLite, MariaDB and PostgreSQL (each beside its claim-log twin), BENCH_ONLY=dialects MariaDB and PostgreSQL side by side and, for the direct
 * claims only, a 3-node synchronous Patroni cluster (claims-patroni, started after the HTTP rows), and a partial run prints its table
 * without writing results.md), BENCH_REBUILD=1 forces
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
  FORMAT_PATTERN,
  FORMAT_TAG,
  HARD_CAP_MS,
  ONLY_GROUPS,
  PIPELINING,
  RESULTS_FILE,
  ROOT,
  ROUNDS,
  WARMUP_S,
  progress,
  settings,
  t0,
  WIDE_MAX_ID,
  WIDE_TAG,
  OPAQUE_KEY,
  OPAQUE_TAG,
  runs,
  tmpDir,
} from './config';
import { measureInProcess, measureLoops } from './inProcessRows';
import { type HttpRow, finishHttpRow, measureOnce } from './measure';
import { planDuration } from './plan';
import { type Meta, render } from './render';
import { failures, notes, rows } from './results';
import {
  ROW_GROUPS,
  dialectRows,
  fastRows,
  formattedRows,
  httpRows,
  orderedRows,
  slowClientRows,
  wideRows,
  opaqueRows,
} from './rows';
import { type Server, leafServer, startServer, stopServer, waitForWorkers } from './servers';
import {
  createFormat,
  createMariaTag,
  createTag,
  dbs,
  orderedSetup,
  startGalera,
  startMaria,
  startPatroni,
  startPostgresDb,
} from './services';
import { type ClaimTarget, measureClaims, mysqlClaims, postgresClaims, sqliteClaims } from './claims';
import { measureClient } from './clientRows';
import { measureRestarts } from './restartRows';

/** The direct claims on a fresh SQLite file (WAL) of the bench's temp dir, in this process. */
function sqliteClaim(): ClaimTarget {
  return sqliteClaims(
    'claims-sqlite',
    'direct claims: `allocate(tag, 1000)`, SQLite file (WAL), in this process (claims/s)',
    tmpDir,
  );
}

/** The direct claims on the bench's PostgreSQL. */
function pgClaim(url: string, pid: number): ClaimTarget {
  return postgresClaims('claims-pg', 'direct claims: `allocate(tag, 1000)`, single PostgreSQL (claims/s)', url, [pid]);
}

/** Stops every child process (servers, in-process child, redis-server), then mariadbd, PostgreSQL, the Galera and Patroni nodes, and removes the temp dir. */
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
  if (dbs.postgres !== null) {
    const p = dbs.postgres;
    dbs.postgres = null;
    await p.destroy().catch(() => undefined);
  }
  if (dbs.patroni !== null) {
    const p = dbs.patroni;
    dbs.patroni = null;
    await p.destroy().catch(() => undefined);
  }
  fs.rmSync(tmpDir, { recursive: true, force: true });
}

async function main(): Promise<void> {
  const meta: Meta = {
    date: new Date().toISOString(),
    cpu: os.cpus()[0]?.model.trim() ?? 'unknown',
    cores: os.cpus().length,
    load: os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' '),
    loadEnd: '',
    git: gitDescribe(),
    build: '',
    maria: '',
    postgres: '',
    galera: '',
    patroni: '',
    redis: '',
    duration: '',
    totalS: 0,
  };
  progress(
    `leaf-ts bench (bounded: ≤ ${HARD_CAP_MS / 60_000} min in all, hard cap): ${CONNECTIONS} connections, pipelining ${PIPELINING}, ` +
      `per row ${ROUNDS} × (${WARMUP_S} s warm-up + ${DURATION_FIXED ? settings.durationS : `≤ ${DEFAULT_DURATION_S}`} s measured); ` +
      `${meta.cores}× ${meta.cpu}, node ${process.version}, load average ${meta.load}`,
  );
  const http = runs('http');
  const dialects = !http && runs('dialects');
  const needFast =
    http ||
    dialects ||
    runs('wide') ||
    runs('formatted') ||
    runs('ordered') ||
    runs('client') ||
    runs('restart') ||
    runs('slow');
  // server.ts starts Next (the console and the non-fast routes) beside the fast lane: every leaf-ts server needs the build.
  meta.build = needFast ? await ensureBuild() : 'not needed (BENCH_ONLY=inproc)';

  let mariaPid: number | undefined;
  let claimTargets: ClaimTarget[] = [];
  let table: Record<string, HttpRow> = {};
  let servers: Server[] = [];
  let fast: Server | null = null;
  if (http) {
    const db = await startMaria();
    meta.maria = `MariaDB ${db.version}`;
    const redis = await startRedis(path.join(tmpDir, 'redis'), (line) => progress(line));
    dbs.redis = redis;
    meta.redis = redis.version;
    mariaPid = dbs.maria?.pid;
    if (mariaPid === undefined) throw new Error('mariadbd has no PID');
    const pgDb = await startPostgresDb();
    meta.postgres = pgDb.version;
    const galera = await startGalera();
    meta.galera = galera.version;

    const [bare, fastLane, plain, mariaLeaf, pgLeaf, galeraLeaf, cluster, autoinc, flickr, redisAlt, uuid] =
      await Promise.all([
        startServer('bare node:http', 'tools/bench/bareServer.ts', {}),
        leafServer('leaf-ts fast lane (SQLite)', { LEAF_OPAQUE_KEY: OPAQUE_KEY }),
        leafServer('plain Next (LEAF_FAST_LANE=off, LEAF_BENCH_ROUTES=on)', {
          LEAF_FAST_LANE: 'off',
          LEAF_BENCH_ROUTES: 'on',
        }),
        leafServer('leaf-ts fast lane (MariaDB)', { DATABASE_URL: db.leafUrl }, [mariaPid]),
        leafServer('leaf-ts fast lane (PostgreSQL)', { DATABASE_URL: pgDb.leafUrl }, [pgDb.pid]),
        leafServer('leaf-ts fast lane (Galera, 3 nodes)', { DATABASE_URL: galera.leafUrl }, galera.pids),
        leafServer('leaf-ts fast lane (SQLite, LEAF_WORKERS=2)', { LEAF_WORKERS: '2' }),
        startServer(
          'auto-increment (InnoDB)',
          'tools/bench/altServer.ts',
          { ALT_MODE: 'autoinc', ALT_MYSQL_URL: db.altUrl, ALT_MYSQL_POOL: String(ALT_POOL) },
          [mariaPid],
        ),
        startServer(
          'Flickr tickets (MyISAM)',
          'tools/bench/altServer.ts',
          { ALT_MODE: 'flickr', ALT_MYSQL_URL: db.altUrl, ALT_MYSQL_POOL: String(ALT_POOL) },
          [mariaPid],
        ),
        startServer(
          'Redis INCR',
          'tools/bench/altServer.ts',
          { ALT_MODE: 'redis', ALT_REDIS_URL: redis.url },
          redis.child.pid === undefined ? [] : [redis.child.pid],
        ),
        startServer('crypto.randomUUID()', 'tools/bench/altServer.ts', { ALT_MODE: 'uuid' }),
      ]);
    servers = [bare, fastLane, plain, mariaLeaf, pgLeaf, galeraLeaf, cluster, autoinc, flickr, redisAlt, uuid];
    fast = fastLane;
    await createMariaTag(mariaLeaf);
    await createMariaTag(pgLeaf);
    await createMariaTag(galeraLeaf);
    await waitForWorkers(cluster);
    table = httpRows({
      bare,
      fast: fastLane,
      plain,
      mariaLeaf,
      pgLeaf,
      galeraLeaf,
      cluster,
      autoinc,
      flickr,
      redisAlt,
      uuid,
    });
    claimTargets = [
      ...(runs('claims') ? [sqliteClaim()] : []),
      mysqlClaims('claims-maria', 'direct claims: `allocate(tag, 1000)`, single MariaDB (claims/s)', db.leafUrl, [
        mariaPid,
      ]),
      pgClaim(pgDb.leafUrl, pgDb.pid),
      mysqlClaims(
        'claims-galera',
        'direct claims: `allocate(tag, 1000)`, 3-node Galera, multi-host URL (claims/s)',
        galera.leafUrl,
        galera.pids,
      ),
    ];
  } else if (dialects) {
    // MariaDB and PostgreSQL side by side: the same server.ts on each, single and ?count=1000, then their direct claims.
    const db = await startMaria();
    meta.maria = `MariaDB ${db.version}`;
    mariaPid = dbs.maria?.pid;
    if (mariaPid === undefined) throw new Error('mariadbd has no PID');
    const pgDb = await startPostgresDb();
    meta.postgres = pgDb.version;
    const [mariaLeaf, pgLeaf] = await Promise.all([
      leafServer('leaf-ts fast lane (MariaDB)', { DATABASE_URL: db.leafUrl }, [mariaPid]),
      leafServer('leaf-ts fast lane (PostgreSQL)', { DATABASE_URL: pgDb.leafUrl }, [pgDb.pid]),
    ]);
    servers = [mariaLeaf, pgLeaf];
    await createMariaTag(mariaLeaf);
    await createMariaTag(pgLeaf);
    table = dialectRows(mariaLeaf, pgLeaf);
    claimTargets = [
      mysqlClaims('claims-maria', 'direct claims: `allocate(tag, 1000)`, single MariaDB (claims/s)', db.leafUrl, [
        mariaPid,
      ]),
      pgClaim(pgDb.leafUrl, pgDb.pid),
    ];
  } else if (runs('claims')) {
    const db = await startMaria();
    meta.maria = `MariaDB ${db.version}`;
    mariaPid = dbs.maria?.pid;
    if (mariaPid === undefined) throw new Error('mariadbd has no PID');
    // PostgreSQL too: the claim log's cost is judged on every database it runs on (issue 41).
    const pgDb = await startPostgresDb();
    meta.postgres = pgDb.version;
    claimTargets = [
      sqliteClaim(),
      mysqlClaims('claims-maria', 'direct claims: `allocate(tag, 1000)`, single MariaDB (claims/s)', db.leafUrl, [
        mariaPid,
      ]),
      pgClaim(pgDb.leafUrl, pgDb.pid),
    ];
  }
  if (
    !http &&
    (runs('wide') || runs('opaque') || runs('formatted') || runs('ordered') || runs('client') || runs('slow'))
  ) {
    fast = await leafServer('leaf-ts fast lane (SQLite)', { LEAF_OPAQUE_KEY: OPAQUE_KEY });
    servers = [fast];
    if (runs('wide') || runs('opaque') || runs('formatted') || runs('ordered') || runs('slow')) table = fastRows(fast);
  }
  if (fast !== null && runs('slow')) Object.assign(table, slowClientRows(fast));
  if (fast !== null && runs('ordered')) {
    const relay = await orderedSetup(fast, notes);
    if (relay !== null) {
      servers.push(relay);
      Object.assign(table, orderedRows(fast, relay));
    }
  }
  if (fast !== null && runs('formatted')) {
    const refused = await createFormat(fast, {
      bizTag: FORMAT_TAG,
      pattern: FORMAT_PATTERN,
      resetPeriod: 'daily',
      timeZone: 'UTC',
      step: 1000,
      description: 'npm run bench: formatted IDs',
    });
    if (refused === null) Object.assign(table, formattedRows(fast));
    else {
      notes.push(`The formatted-ID rows (tag \`${FORMAT_TAG}\`) are skipped: ${refused}`);
      progress(`formatted rows skipped: ${refused}`);
    }
  }
  if (fast !== null && runs('opaque')) {
    const refused = await createTag(fast, {
      bizTag: OPAQUE_TAG,
      step: 1000,
      encoding: 'opaque',
      description: 'npm run bench: opaque IDs',
    });
    if (refused === null) Object.assign(table, opaqueRows(fast));
    else {
      notes.push(`The opaque rows (tag \`${OPAQUE_TAG}\`) are skipped: ${refused}`);
      progress(`opaque rows skipped: ${refused}`);
    }
  }
  if (fast !== null && runs('wide')) {
    // Refused until this version issues IDs past 2^53 (issue 10): the rows are then left out, with the reason.
    const refused = await createTag(fast, {
      bizTag: WIDE_TAG,
      step: 1000,
      maxId: WIDE_MAX_ID,
      description: 'npm run bench: IDs above 2^53',
    });
    if (refused === null) Object.assign(table, wideRows(fast));
    else {
      notes.push(
        `The rows above 2^53 (tag \`${WIDE_TAG}\` at max_id ${WIDE_MAX_ID}, next to fast-single and fast-batch) are skipped: ${refused}`,
      );
      progress(`wide rows skipped: ${refused}`);
    }
  }

  const groups = ROW_GROUPS.map((group) => group.flatMap((key) => table[key] ?? []));
  if (Object.keys(table).length > 0) meta.duration = planDuration(Object.keys(table).length * ROUNDS);
  for (let round = 0; round < ROUNDS; round++) {
    for (const group of groups) {
      for (const row of round % 2 === 0 ? group : [...group].reverse()) await measureOnce(row, round);
    }
  }
  for (const row of groups.flat()) rows.push(finishHttpRow(row));
  if (fast !== null && runs('client')) await measureClient(fast);
  await Promise.all(
    servers.map(async (s) => {
      if (s.child.exitCode !== null || s.child.signalCode !== null) failures.push(`${s.name} exited during the run`);
      if (s.logLines > 0) progress(`${s.name}: ${s.logLines} log lines at warn or above; last:\n${s.tail.join('\n')}`);
      await stopServer(s);
    }),
  );
  if (dbs.redis !== null) {
    await dbs.redis.stop();
    dbs.redis = null;
  }
  if (dialects) {
    // Only now, after the HTTP rows (its agents and etcd would have loaded the machine), and beside the single PostgreSQL.
    const patroni = await startPatroni();
    meta.patroni = patroni.version;
    claimTargets.push(
      postgresClaims(
        'claims-patroni',
        'direct claims: `allocate(tag, 1000)`, 3-node Patroni (synchronous_mode), multi-host URL (claims/s)',
        patroni.leafUrl,
        patroni.pids,
      ),
    );
  }
  if (claimTargets.length > 0) await measureClaims(claimTargets);
  if (runs('restart')) await measureRestarts();
  const g = dbs.galera;
  if (g !== null) {
    const pids = g.nodes.map((n) => n.pid).join(', ');
    await g.destroy();
    dbs.galera = null;
    progress(`galera: stopped PIDs ${pids}`);
  }
  const p = dbs.patroni;
  if (p !== null) {
    await p.destroy();
    dbs.patroni = null;
    progress('patroni: cluster destroyed');
  }
  const maria = dbs.maria;
  if (maria !== null) {
    const pid = maria.pid;
    await maria.destroy();
    dbs.maria = null;
    progress(`mariadb: stopped PID ${pid}`);
  }
  const postgres = dbs.postgres;
  if (postgres !== null) {
    const pid = postgres.pid;
    await postgres.destroy();
    dbs.postgres = null;
    progress(`postgres: stopped PID ${pid}`);
  }

  if (runs('inproc')) {
    await measureInProcess();
    await measureLoops();
  }

  meta.loadEnd = os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
  meta.totalS = (Date.now() - t0) / 1000;
  const { md, missed } = render(meta);
  // A partial run (BENCH_ONLY) prints its table but leaves the committed results alone.
  const whole = ONLY_GROUPS.every(runs);
  if (whole) fs.writeFileSync(RESULTS_FILE, md);
  console.log('\n' + md);
  progress(
    `${whole ? 'wrote' : 'BENCH_ONLY: did not write'} ${path.relative(ROOT, RESULTS_FILE)}; total ${((Date.now() - t0) / 1000).toFixed(1)} s (cap ${HARD_CAP_MS / 60_000} min); load average now ${meta.loadEnd}`,
  );
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
