/**
 * Chaos suite: `tsx tools/chaos/run.ts [--db mariadb|galera|postgres|patroni] [--lb haproxy] [--size small|full] [--seed N] [--keep-logs]`.
 *
 * With `--ordered` (and `--db mariadb` or `postgres`) it is the strict-tag run instead (ordered.ts): the owner of a
 * strict tag killed, paused, stopped and cut off from the database, and a database outage, under the real-time order check.
 *
 * With `--seams` it is the seams run (seams/run.ts): two regions, nodes and both packages, every ID path, a seeded
 * schedule of admin operations and faults, one checker; `--seconds N` / `--minutes N`, `--db sqlite|servers`.
 *
 * With `--regions` it is two regions that share no database (regions.ts): region 0 on MariaDB, region 1 on
 * PostgreSQL, nodes killed and each database stopped in turn; no duplicate over the union, the other region at its
 * rate. `--regions --control` numbers both regions 0 and passes only when duplicates are found.
 *
 * With `--lb haproxy` the clients reach the nodes through HAProxy running ops/haproxy/haproxy.cfg (lbScenario.ts):
 * nodes SIGKILLed and stopped gracefully, then started again, one at a time; the report (reportBalanced.ts) counts
 * every request that did not get a 200 — none may fail outside a SIGKILL — besides the usual ID checks.
 *
 * With `--db galera` the database is a 3-node Galera cluster and the faults are its own (galeraScenario.ts): Galera
 * nodes SIGKILLed and restarted, one cut off from the others as a non-primary minority, the whole cluster down past
 * the buffers and bootstrapped again. With `--db postgres` it is one PostgreSQL (tools/harness/postgres.ts) in MariaDB's
 * place, with the same faults (its outage a fast shutdown, then a start on the same data dir and port).
 *
 * With `--db patroni` the database is a throwaway 3-node Patroni cluster in synchronous_mode (tools/harness/patroni.ts)
 * and every node has the multi-host URL, each in its own host order (patroniScenario.ts): in seeded random order, the
 * primary SIGKILLed (a new leader awaited, the dead node restarted to rejoin), a switchover, a replica SIGKILLed and
 * restarted, and leaf-ts nodes killed; no full outage. While no primary can commit (a failover takes ~10 s) 503s
 * are allowed if the buffers ran dry, counted apart; duplicates and order are as strict as ever. What follows
 * describes the default, one MariaDB.
 *
 * A private MariaDB (tools/harness/mariadb.ts), one tag with a small DB step, three leaf-ts nodes (server.ts, each
 * with its own LEAF_NODE_ID and port), each behind its own fault-injecting TCP proxy to MariaDB (tools/chaos/proxy.ts),
 * and a daily formatted tag with a small step (config.ts FORMAT). Paced client loops load the segment routes
 * (single, ?count=N, Leaf plain text), snowflake and the formatted route (single, ?count=N) across the nodes while
 * the harness runs, in order:
 *
 *   warmup    steps grow (dynamic step doubles per load)
 *   baseline  fast DB: p99 of the client requests
 *   slow      every DB → node chunk held 200 ms–2 s at random: p99 must stay within max(5 × baseline p99, 100 ms),
 *             and no request may find both segments empty (the engine's `waits`, read from the admin API)
 *   kills     SIGKILL a random node at random moments, restart it on the same port; proxy connection cuts between
 *   outage    MariaDB stopped (SIGTERM, a real stop) past the nodes' buffers: they serve from memory, then answer
 *             503 JSON; MariaDB started again on the same port and datadir: every node serves again by itself
 *   tail      normal load
 *
 * Then the checks (any violation → exit code 1): no duplicate ID (segment, snowflake and formatted separately, over
 * every node and lifetime; formatted per date); per node, IDs increase in real time (a request sent after an answer
 * arrived gets higher IDs, across restarts too; formatted within a date); every batch strictly increasing; every
 * formatted ID of the pattern with the zone's date; no 5xx but 503, no 4xx, every error JSON; no client timeout (3 s)
 * and no connection error except to a node being killed; segment and formatted 503s only during the outage (or
 * right after a proxy cut); each node served segment and formatted IDs from its buffers during the outage, then
 * answered 503, and recovered within the bound; /api/health always 200; no ID above its row's max_id; no node
 * died unasked.
 *
 * MariaDB is stopped for real (SIGTERM, the process exits; then started again on the same datadir and port) rather
 * than frozen with SIGSTOP: a stop drops every pooled connection and refuses reconnects, so each node's pool must
 * notice dead connections and reconnect to a new server process by itself. A freeze only exercises timeouts, which
 * the slow-DB phase (and test/integration/outage.test.ts, which does SIGSTOP) already cover.
 *
 * Progress goes to stdout as it happens; the last line is the summary. The budget (small 115 s, full 290 s; Galera
 * 190 / 420 s, Patroni 200 / 450 s) excludes a first-time `apt-get install` of the database; past budget + 30 s the process exits no matter what.
 *
 * This file is the orchestration; beside it: config.ts (constants, sizes, arguments), context.ts (the run's
 * shared state), cluster.ts (MariaDB, proxies, nodes, load), scenario.ts (the fault schedule), report.ts (the
 * checks and the summary line), and the pieces they use (node.ts, proxy.ts, load.ts, record.ts, checks.ts,
 * engineStats.ts, stalls.ts).
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ensureMariadb, ensurePatroniPackages, ensurePostgres } from '../harness';
import { startBalancedCluster, startCluster, startGaleraCluster, startLoad, startPatroniCluster } from './cluster';
import { BudgetExceeded, GALERA_SIZES, LB_SIZES, PATRONI_SIZES, REPO_ROOT, SIZES, parseArgs } from './config';
import { createRun } from './context';
import { analyse } from './report';
import { analyseBalanced } from './reportBalanced';
import { runBalancedScenario } from './lbScenario';
import { runGaleraScenario } from './galeraScenario';
import { runPatroniScenario } from './patroniScenario';
import { runScenario } from './scenario';
import { runOrdered } from './ordered';
import { runRegions } from './regions';
import { parseSeamsArgs, recheck, runSeams } from './seams/run';

async function main(): Promise<number> {
  const argv = process.argv.slice(2);
  if (argv.includes('--seams') && argv.includes('--check')) {
    const file = argv[argv.indexOf('--check') + 1] ?? '';
    const without = argv.includes('--without') ? (argv[argv.indexOf('--without') + 1] ?? '').split(',') : [];
    const legacy = argv.includes('--legacy-after') ? Number(argv[argv.indexOf('--legacy-after') + 1]) : undefined;
    return recheck(file, without, legacy);
  }
  if (argv.includes('--seams')) return runSeams(parseSeamsArgs(argv));
  const ordered = argv.includes('--ordered');
  const regions = argv.includes('--regions');
  const control = argv.includes('--control');
  const {
    size: sizeName,
    seed,
    keepLogs,
    db,
    lb,
  } = parseArgs(argv.filter((a) => !['--ordered', '--regions', '--control'].includes(a)));
  if (regions) return runRegions({ size: sizeName, seed, control });
  if (control) throw new Error('--control goes with --regions');
  if (ordered) {
    if (db !== 'mariadb' && db !== 'postgres')
      throw new Error(`--ordered runs on --db mariadb or postgres (got ${db})`);
    return runOrdered({ db, size: sizeName, seed });
  }
  const galera = db === 'galera';
  const patroni = db === 'patroni';
  const balanced = lb === 'haproxy';
  const size = (galera ? GALERA_SIZES : patroni ? PATRONI_SIZES : balanced ? LB_SIZES : SIZES)[sizeName];
  const log = (line: string) => process.stdout.write(`[chaos] ${line}\n`);
  // May apt-get install once; not part of the budget.
  if (patroni) ensurePatroniPackages(log);
  else if (db === 'postgres') ensurePostgres(log);
  else ensureMariadb(log);

  if (!fs.existsSync(path.join(REPO_ROOT, '.next', 'BUILD_ID'))) {
    process.stderr.write('chaos: no Next build found (.next/BUILD_ID); run `npx next build` first\n');
    return 2;
  }

  const runId = randomBytes(6).toString('hex');
  const runDir = fs.mkdtempSync(path.join(os.tmpdir(), `leaf-chaos-${runId}-`));
  const run = createRun({ size, seed, keepLogs, runId, runDir, db, lb });
  const { say, violate, violations } = run;
  say(`db=${db}${balanced ? ` lb=${lb}` : ''} size=${sizeName} seed=${seed} budget=${size.budgetS}s logs=${runDir}`);

  // Past the budget (plus teardown time), stop no matter what: the exit hooks SIGKILL the nodes and mariadbd.
  const hardStop = setTimeout(
    () => {
      process.stdout.write(`chaos: hard time limit (${size.budgetS + 30}s) hit, aborting: FAIL\n`);
      process.exit(3);
    },
    (size.budgetS + 30) * 1000,
  );
  hardStop.unref();
  run.stalls.start();

  let status: ReturnType<typeof setInterval> | null = null;
  let exitCode: number;
  let summary: string;
  try {
    await (galera
      ? startGaleraCluster(run)
      : patroni
        ? startPatroniCluster(run)
        : balanced
          ? startBalancedCluster(run)
          : startCluster(run));
    status = startLoad(run);
    await (galera
      ? runGaleraScenario(run)
      : patroni
        ? runPatroniScenario(run)
        : balanced
          ? runBalancedScenario(run)
          : runScenario(run));
  } catch (error) {
    if (error instanceof BudgetExceeded) violate(`time budget of ${size.budgetS}s exceeded`);
    else violate(`harness error: ${(error as Error).stack ?? String(error)}`);
  } finally {
    if (status !== null) clearInterval(status);
    run.tearingDown = true;
    if (run.load !== null) await run.load.stop();
    say('load stopped; checking');
    try {
      summary = await (balanced ? analyseBalanced(run) : analyse(run));
    } catch (error) {
      violate(`analysis failed: ${(error as Error).stack ?? String(error)}`);
      summary = `chaos: analysis failed: FAIL`;
    }
    await Promise.all(run.nodes.map((n) => n.stop().catch(() => undefined)));
    run.nodes.forEach((n) => n.close());
    await Promise.all(run.proxies.map((p) => p.close()));
    await run.haproxy?.stop().catch(() => undefined);
    if (run.db !== null) await run.db.destroy().catch(() => undefined);
    if (run.galera !== null) await run.galera.destroy().catch(() => undefined);
    if (run.patroni !== null) await run.patroni.destroy().catch(() => undefined);
    exitCode = violations.length === 0 ? 0 : 1;
    if (exitCode === 0 && !keepLogs) fs.rmSync(runDir, { recursive: true, force: true });
    else say(`node logs kept in ${runDir}`);
    process.stdout.write(
      summary.replace(/: (PASS|FAIL)$/, '') +
        `: ${exitCode === 0 ? 'PASS' : `FAIL (${violations.length} violations)`}\n`,
    );
    clearTimeout(hardStop);
  }
  return exitCode;
}

let interrupted = false;
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.on(sig, () => {
    if (interrupted) process.exit(130);
    interrupted = true;
    process.stdout.write(`chaos: ${sig}, stopping (again to force)\n`);
    // The harness's exit hooks SIGKILL what is left (nodes, mariadbd).
    setTimeout(() => process.exit(130), 100);
  });
}

main().then(
  (code) => process.exit(code),
  (error) => {
    process.stderr.write(`chaos: ${(error as Error).stack ?? String(error)}\n`);
    process.exit(2);
  },
);
