/**
 * After the load stopped: every check over what the clients saw and the nodes logged (any failure is a violation),
 * progress lines with the numbers, and the one-line summary. Sections: IDs (uniqueness, real-time order), errors
 * (statuses and codes against the fault windows), latency (baseline vs slow DB), outage (served from buffers,
 * 503s, recovery), health and logs, and no ID above the row's max_id. The formatted tag's own figures are in
 * reportFormatted.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { openStore } from '../../lib/store';
import { percentile } from '../harness';
import { defaultMigrationsDir } from '../../lib/store/migrations';
import { storeUrlTarget } from '../../lib/store/target';
import {
  expected503,
  familyOf,
  firstOkAfter,
  isSlowLoad,
  maxOf,
  realTimeOrder,
  segmentDuplicates,
  snowflakeDuplicates,
} from './checks';
import { CLIENT_TIMEOUT_MS, FORMAT_TAG, P99_FACTOR, P99_FLOOR_MS, TAG, fmt } from './config';
import type { ChaosRun } from './context';
import { type FailRecord, type Kind, MEASURED_KINDS, SEGMENT_KINDS, SNOWFLAKE_KINDS } from './record';
import { checkFormattedIds, checkFormattedMaxId, checkFormattedOutage } from './reportFormatted';

/** No duplicate ID (segment, snowflake and formatted apart), per-node real-time order, every 200 well-formed. */
export function checkIds(run: ChaosRun): { duplicates: number; orderViolations: number } {
  const { say, violate, nodes, rec } = run;
  const names = nodes.map((n) => n.name);
  const segDup = segmentDuplicates(rec);
  const snowDup = snowflakeDuplicates(rec);
  if (segDup.duplicates > 0) violate(`${segDup.duplicates} duplicate segment IDs: ${segDup.examples.join('; ')}`);
  if (snowDup.duplicates > 0) violate(`${snowDup.duplicates} duplicate snowflake IDs: ${snowDup.examples.join('; ')}`);
  const segOrder = realTimeOrder(rec.ok, SEGMENT_KINDS, names);
  const snowOrder = realTimeOrder(rec.ok, SNOWFLAKE_KINDS, names);
  say(
    `uniqueness: ${rec.segRanges.length / 2} segment ranges and ${rec.snowIds.length} snowflake IDs compared; ` +
      `real-time order per node checked for ${segOrder.checked} segment and ${snowOrder.checked} snowflake answers`,
  );
  if (segOrder.violations > 0)
    violate(
      `${segOrder.violations} segment answers below an earlier answer of the same node: ${segOrder.examples.join('; ')}`,
    );
  if (snowOrder.violations > 0)
    violate(
      `${snowOrder.violations} snowflake answers below an earlier answer of the same node: ${snowOrder.examples.join('; ')}`,
    );
  const formatted = checkFormattedIds(run);
  if (rec.badCount > 0)
    violate(`${rec.badCount} malformed or unordered 200 answers: ${rec.badAnswers.slice(0, 5).join('; ')}`);
  return {
    duplicates: segDup.duplicates + snowDup.duplicates + formatted.duplicates,
    orderViolations: segOrder.violations + snowOrder.violations + formatted.orderViolations,
  };
}

/**
 * Every non-200 against what the faults allow: 503 with an expected JSON code in the outage or after a cut (for
 * segment and formatted IDs; snowflake 503s only need an expected code).
 */
function checkErrors(run: ChaosRun): { n503: number; n5xx: number; timeouts: number; inEviction: number } {
  const { size, say, violate, nodes, rec, cuts, outage, t0, evictionWindows } = run;
  const names = nodes.map((n) => n.name);
  // A request waiting on a load when MariaDB went down fails because of the outage even if it was sent before.
  const inOutage = (f: FailRecord) =>
    outage !== null && f.recvT >= outage.stopAt && f.sendT <= outage.backAt + size.recoveryBoundS * 1000;
  const afterCut = (f: FailRecord) => cuts.some((c) => f.recvT >= c && f.sendT <= c + 3_000);
  const inEviction = (f: FailRecord) => evictionWindows.some((w) => f.recvT >= w.from && f.sendT <= w.to);
  let n503InEviction = 0;
  let formatted503InEviction = 0;
  const unexpectedFormatted503: FailRecord[] = [];
  let n5xx = 0;
  let n503 = 0;
  let timeouts = 0;
  let excusedConn = 0;
  const badConn: FailRecord[] = [];
  const unexpected503: FailRecord[] = [];
  const codes = new Map<string, number>();
  const other: FailRecord[] = [];
  for (const f of rec.fails) {
    if (f.status === 0) {
      if (f.nodeWasDown) excusedConn++;
      else if (f.code === 'timeout') timeouts++;
      else badConn.push(f);
      continue;
    }
    const family = familyOf(f.kind);
    const key = `${f.status} ${f.code || '(no code)'}${family === 'segment' ? '' : ` [${family}]`}`;
    codes.set(key, (codes.get(key) ?? 0) + 1);
    if (f.status === 503) {
      n503++;
      if (!f.jsonOk || !expected503(f.kind, f.code)) other.push(f);
      else if (family !== 'snowflake' && !inOutage(f) && !afterCut(f)) {
        if (!inEviction(f)) (family === 'segment' ? unexpected503 : unexpectedFormatted503).push(f);
        else if (family === 'segment') n503InEviction++;
        else formatted503InEviction++;
      }
    } else {
      if (f.status >= 500) n5xx++;
      other.push(f);
    }
  }
  const show = (list: FailRecord[]) =>
    list
      .slice(0, 5)
      .map(
        (f) =>
          `${names[f.node]} life ${f.life} ${f.kind} → ${f.status} ${f.code} ${f.body.slice(0, 150)} at +${fmt(f.sendT - t0)}s`,
      )
      .join('; ');
  if (timeouts > 0) violate(`${timeouts} requests hit the ${CLIENT_TIMEOUT_MS} ms client timeout`);
  if (badConn.length > 0) violate(`${badConn.length} connection errors to nodes that were up: ${show(badConn)}`);
  if (other.length > 0)
    violate(`${other.length} answers other than 200 / 503-with-an-expected-JSON-code (5xx: ${n5xx}): ${show(other)}`);
  if (unexpected503.length > 0)
    violate(`${unexpected503.length} segment 503s outside the outage: ${show(unexpected503)}`);
  if (unexpectedFormatted503.length > 0)
    violate(`${unexpectedFormatted503.length} formatted 503s outside the outage: ${show(unexpectedFormatted503)}`);
  say(
    `errors by status and code: ${[...codes].map(([k, v]) => `${k}: ${v}`).join(', ') || 'none'}; ` +
      `connection errors to nodes being killed: ${excusedConn}`,
  );
  if (evictionWindows.length > 0) {
    const why =
      run.database === 'patroni'
        ? 'no primary could commit (failover, switchover, sync standby lost)'
        : 'Galera evicted a member (writes stalled cluster-wide)';
    say(`segment 503s while ${why}: ${n503InEviction}; formatted 503s then: ${formatted503InEviction}`);
  }
  return { n503, n5xx, timeouts, inEviction: n503InEviction };
}

/** --keep-logs: every request (kind, node, life, send time, latency, status) and the phase windows, for a look afterwards. */
function writeRequestLog(run: ChaosRun): void {
  const { rec, t0, runDir, phases, cuts, kills, outage, stalls } = run;
  const lines = ['kind,node,life,sendMs,latencyMs,status'];
  for (const r of rec.ok)
    if (MEASURED_KINDS.has(r.kind))
      lines.push(`${r.kind},${r.node},${r.life},${(r.sendT - t0).toFixed(1)},${(r.recvT - r.sendT).toFixed(2)},200`);
  for (const f of rec.fails)
    lines.push(
      `${f.kind},${f.node},${f.life},${(f.sendT - t0).toFixed(1)},${(f.recvT - f.sendT).toFixed(2)},${f.status} ${f.code}`,
    );
  fs.writeFileSync(path.join(runDir, 'requests.csv'), lines.join('\n') + '\n');
  fs.writeFileSync(
    path.join(runDir, 'phases.json'),
    JSON.stringify({ t0, phases, cuts, kills, outage, stalls: stalls.stalls }, null, 1),
  );
}

/** With the slow DB, p99 stays within max(P99_FACTOR × baseline p99, P99_FLOOR_MS) and no request waited for a load. */
function checkLatency(run: ChaosRun): { p99Fast: number; p99Slow: number } {
  const { say, violate, rec, phases, stalls, logEvents, slowWaits } = run;
  let excluded = 0;
  const lat = (w: { from: number; to: number } | undefined): number[] => {
    if (w === undefined) return [];
    const out: number[] = [];
    const add = (r: { kind: Kind; sendT: number; recvT: number }) => {
      if (!MEASURED_KINDS.has(r.kind) || r.sendT < w.from || r.sendT > w.to) return;
      if (stalls.overlaps(r.sendT, r.recvT)) excluded++;
      else out.push(r.recvT - r.sendT);
    };
    rec.ok.forEach(add);
    rec.fails.forEach(add);
    return out;
  };
  const fastLat = lat(phases.baseline);
  const slowLat = lat(phases.slow);
  const inWindows = (w: { from: number; to: number } | undefined) =>
    w === undefined ? [] : stalls.stalls.filter((x) => x.to >= w.from && x.from <= w.to);
  const windowStalls = [...inWindows(phases.baseline), ...inWindows(phases.slow)];
  say(
    `harness stalls > 25 ms during the latency windows: ${windowStalls.length} (longest ${Math.max(0, ...windowStalls.map((x) => x.to - x.from)).toFixed(0)} ms); ` +
      `${excluded} requests in flight during one left out of the p99s`,
  );
  const p99Fast = percentile(fastLat, 99);
  const p99Slow = percentile(slowLat, 99);
  const bound = Math.max(P99_FACTOR * p99Fast, P99_FLOOR_MS);
  const slow = phases.slow;
  const slowLoads = slow ? logEvents.filter((e) => isSlowLoad(e, slow.from, slow.to + 3_000)) : [];
  if (phases.slow !== undefined) {
    say(
      `latency: baseline p50 ${percentile(fastLat, 50).toFixed(1)} p99 ${p99Fast.toFixed(1)} max ${maxOf(fastLat).toFixed(0)} ms (${fastLat.length} req); ` +
        `slow DB p50 ${percentile(slowLat, 50).toFixed(1)} p99 ${p99Slow.toFixed(1)} max ${maxOf(slowLat).toFixed(0)} ms (${slowLat.length} req); bound ${bound.toFixed(1)} ms; ` +
        `segment loads through the slow proxy: ${slowLoads.length} (${slowLoads.map((e) => `${e.node} ${e.fields.durationMs}ms step ${e.fields.step}`).join(', ')})`,
    );
    if (!(p99Slow <= bound))
      violate(
        `slow-DB p99 ${p99Slow.toFixed(1)} ms above max(${P99_FACTOR} × baseline p99 ${p99Fast.toFixed(1)} ms, ${P99_FLOOR_MS} ms)`,
      );
    if (slowLoads.length === 0) violate('no segment load went through the slow proxy: the slow phase tested nothing');
    const waits = slowWaits.reduce((a, b) => a + b, 0);
    if (!(waits === 0))
      violate(
        `with the slow DB, ${waits} requests found both segments empty and waited for a load (loads did not run ahead)`,
      );
  }
  return { p99Fast, p99Slow };
}

/** Each node served from its buffers during the outage, then answered 503, and recovered within the bound. */
function checkOutage(run: ChaosRun): { servedFromBuffer: number; outageS: number; recoveryS: number } {
  const { say, violate, nodes, rec } = run;
  const names = nodes.map((n) => n.name);
  let servedFromBuffer = 0;
  let outageS = 0;
  let recoveryS = 0;
  const o = run.outage as { stopAt: number; downAt: number; startAt: number; backAt: number } | null;
  if (o !== null) {
    outageS = (o.startAt - o.downAt) / 1000;
    const served = nodes.map((_, i) =>
      rec.ok.reduce(
        (s, r) =>
          r.node === i && SEGMENT_KINDS.has(r.kind) && r.sendT >= o.downAt && r.recvT <= o.startAt ? s + r.n : s,
        0,
      ),
    );
    const snowServed = nodes.map((_, i) =>
      rec.ok.reduce(
        (s, r) =>
          r.node === i && SNOWFLAKE_KINDS.has(r.kind) && r.sendT >= o.downAt && r.recvT <= o.startAt ? s + r.n : s,
        0,
      ),
    );
    servedFromBuffer = served.reduce((a, b) => a + b, 0);
    const outage503 = rec.fails.filter((f) => f.status === 503 && f.sendT >= o.downAt && f.recvT <= o.startAt);
    served.forEach((n, i) => {
      if (n === 0) violate(`${names[i]} served no segment ID from its buffers during the outage`);
      if (!outage503.some((f) => f.node === i && SEGMENT_KINDS.has(f.kind)))
        violate(`${names[i]} never answered 503 during the outage`);
    });
    const recov = nodes.map((_, i) => {
      const seg = firstOkAfter(rec, i, o.startAt, SEGMENT_KINDS);
      const snow = firstOkAfter(rec, i, o.startAt, SNOWFLAKE_KINDS);
      return {
        seg: seg === null ? NaN : Math.max(0, seg - o.backAt),
        snow: snow === null ? NaN : Math.max(0, snow - o.backAt),
      };
    });
    recoveryS = Math.max(...recov.map((r) => Math.max(r.seg, r.snow))) / 1000;
    say(
      `outage: ${outageS.toFixed(1)}s down; served from buffers: ${served.map((n, i) => `${names[i]}=${n}`).join(' ')} segment IDs, ` +
        `${snowServed.map((n, i) => `${names[i]}=${n}`).join(' ')} snowflake IDs; 503s during it: ${outage503.length}; ` +
        `recovery after the database was back (segment/snowflake): ${recov.map((r, i) => `${names[i]}=${fmt(r.seg)}s/${fmt(r.snow)}s`).join(' ')}`,
    );
    recoveryS = Math.max(recoveryS, checkFormattedOutage(run, o));
  }
  return { servedFromBuffer, outageS, recoveryS };
}

/** /api/health always answered; no segment_regressed, unexpected_error or admin_route_failed line. */
export function checkHealthAndLogs(run: ChaosRun): void {
  const { say, violate, nodes, logEvents, load } = run;
  const h = load?.health;
  if (h !== undefined) {
    say(`health: ${h.probes} probes, ${h.ok} ok (${h.degraded} degraded), ${h.failures.length} failures`);
    if (h.failures.length > 0) {
      violate(
        `/api/health failed ${h.failures.length} times: ${h.failures
          .slice(0, 5)
          .map((f) => `${f.node} ${f.status} ${f.detail}`)
          .join('; ')}`,
      );
    }
  }
  const events = new Map<string, number>();
  for (const e of logEvents)
    if (e.level === 'warn' || e.level === 'error')
      events.set(`${e.level} ${e.event}`, (events.get(`${e.level} ${e.event}`) ?? 0) + 1);
  say(`node warnings/errors logged: ${[...events].map(([k, v]) => `${k}: ${v}`).join(', ') || 'none'}`);
  const regressed = logEvents.filter((e) => e.event === 'segment_load_failed' && e.fields.code === 'segment_regressed');
  if (regressed.length > 0) violate(`${regressed.length} segment_regressed loads (the row went backwards)`);
  const unexpected = logEvents.filter((e) => e.event === 'unexpected_error' || e.event === 'admin_route_failed');
  if (unexpected.length > 0) violate(`${unexpected.length} unexpected_error log lines`);
  const loads = logEvents.filter((e) => e.event === 'segment_loaded' && e.fields.bizTag === TAG);
  const maxStep = Math.max(0, ...loads.map((e) => Number(e.fields.step)));
  say(
    `segment loads: ${loads.length}, largest step ${maxStep}; startups ${nodes.map((n) => `${n.name}=${n.startupsMs.join('/')}ms`).join(' ')}`,
  );
  const claims = logEvents.filter(
    (e) => e.event === 'segment_loaded' && String(e.fields.bizTag).startsWith(`${FORMAT_TAG}@`),
  );
  say(
    `formatted period claims: ${claims.length}, largest step ${Math.max(0, ...claims.map((e) => Number(e.fields.step)))}`,
  );
}

/** No segment ID issued above leaf_alloc's max_id (nor a formatted sequence number above its period's). */
export async function checkMaxId(run: ChaosRun): Promise<void> {
  const { say, violate, rec } = run;
  let maxIssued = 0;
  for (const r of rec.ok) if (SEGMENT_KINDS.has(r.kind) && (r.max as number) > maxIssued) maxIssued = r.max as number;
  const url = run.checkUrl();
  if (url === null) return;
  // Read through a store of the run's own dialect (MariaDB, Galera or PostgreSQL): the rows as the nodes see them.
  const store = await openStore({ ...storeUrlTarget(url), migrationsDir: defaultMigrationsDir() });
  try {
    const maxId = Number((await store.tags.getTag(TAG))?.maxId);
    say(`leaf_alloc max_id ${maxId}, highest segment ID issued ${maxIssued}`);
    if (!(maxIssued <= maxId)) violate(`an issued ID (${maxIssued}) is above the row's max_id (${maxId})`);
    await checkFormattedMaxId(run, await store.formats.listFormatPeriods(FORMAT_TAG));
  } finally {
    await store.close();
  }
}

/** Runs every check in order and returns the summary line (its PASS / FAIL is set by the caller). */
export async function analyse(run: ChaosRun): Promise<string> {
  const { rec, kills, cuts } = run;
  const { duplicates, orderViolations } = checkIds(run);
  const { n503, n5xx, timeouts, inEviction } = checkErrors(run);
  if (run.keepLogs) writeRequestLog(run);
  run.stalls.stop();
  const { p99Fast, p99Slow } = checkLatency(run);
  const { servedFromBuffer, outageS, recoveryS } = checkOutage(run);
  checkHealthAndLogs(run);
  await checkMaxId(run);

  const segTotal = rec.segIds;
  const snowTotal = rec.snowCount;
  const fmtTotal = rec.fmtIds;
  const ids = `ids=${segTotal + snowTotal + fmtTotal} (segment ${segTotal}, snowflake ${snowTotal}, formatted ${fmtTotal})`;
  const ms = (v: number) => (Number.isFinite(v) ? v.toFixed(1) : 'n/a');
  if (run.database === 'galera') {
    return (
      `chaos: db=galera ${ids} duplicates=${duplicates} ` +
      `order-violations=${orderViolations} db-kills=${run.dbKills.length} partitions=${run.partitions.length} node-kills=${kills.length} ` +
      `outage=${outageS.toFixed(1)}s served-from-buffer=${servedFromBuffer} recovery=${Number.isFinite(recoveryS) ? recoveryS.toFixed(1) : 'n/a'}s ` +
      `ids 503s=${n503} (segment 503s during an eviction ${inEviction}) 500s=${n5xx} timeouts=${timeouts} p99=${ms(p99Fast)}ms`
    );
  }
  if (run.database === 'patroni') {
    const count = (kind: string) => run.patroniFaults.filter((f) => f.kind === kind).length;
    const longest = Math.max(0, ...run.patroniFaults.map((f) => f.writableAt - f.at));
    return (
      `chaos: db=patroni ${ids} duplicates=${duplicates} order-violations=${orderViolations} ` +
      `primary-kills=${count('primary-kill')} switchovers=${count('switchover')} replica-kills=${count('replica-kill')} node-kills=${kills.length} ` +
      `longest-without-writes=${fmt(longest)}s ids 503s=${n503} (segment 503s without a writable primary ${inEviction}) 500s=${n5xx} timeouts=${timeouts} p99=${ms(p99Fast)}ms`
    );
  }
  return (
    `chaos: ${run.database === 'postgres' ? 'db=postgres ' : ''}${ids} duplicates=${duplicates} ` +
    `order-violations=${orderViolations} kills=${kills.length} cuts=${cuts.length} outage=${outageS.toFixed(1)}s ` +
    `served-from-buffer=${servedFromBuffer} recovery=${Number.isFinite(recoveryS) ? recoveryS.toFixed(1) : 'n/a'}s ids 503s=${n503} 500s=${n5xx} ` +
    `timeouts=${timeouts} p99 fast=${ms(p99Fast)}ms slow=${ms(p99Slow)}ms`
  );
}
