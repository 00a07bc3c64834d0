/**
 * The formatted tag's part of the report: no formatted ID twice (per period key, across every node and lifetime),
 * per-node real-time order within a period, what each node served of it through the outage (from its buffers,
 * then 503 once the drain emptied them, then again by itself), and no sequence number above its period's max_id.
 */
import type { FormatPeriodRow } from '../../lib/format/formatStore';
import { firstOkAfter, formattedDuplicates, formattedOrder } from './checks';
import { fmt } from './config';
import type { ChaosRun, Outage } from './context';
import { FORMATTED_KINDS } from './record';

export function checkFormattedIds(run: ChaosRun): { duplicates: number; orderViolations: number } {
  const { say, violate, nodes, rec } = run;
  const dup = formattedDuplicates(rec);
  const order = formattedOrder(
    rec.ok,
    nodes.map((n) => n.name),
  );
  say(
    `formatted uniqueness: ${rec.fmtIds} IDs in ${dup.ranges} sequence ranges over ${dup.periods} period(s) compared; ` +
      `real-time order per node and period checked for ${order.checked} formatted answers`,
  );
  if (dup.duplicates > 0) violate(`${dup.duplicates} duplicate formatted IDs: ${dup.examples.join('; ')}`);
  if (order.violations > 0)
    violate(
      `${order.violations} formatted answers below an earlier answer of the same node: ${order.examples.join('; ')}`,
    );
  return { duplicates: dup.duplicates, orderViolations: order.violations };
}

/** Each node served formatted IDs from its buffers in the outage, then 503; returns the slowest recovery (s). */
export function checkFormattedOutage(run: ChaosRun, o: Outage): number {
  const { say, violate, nodes, rec } = run;
  const during = (r: { node: number; sendT: number; recvT: number }, i: number) =>
    r.node === i && r.sendT >= o.downAt && r.recvT <= o.startAt;
  const served = nodes.map((_, i) =>
    rec.ok.reduce((s, r) => (FORMATTED_KINDS.has(r.kind) && during(r, i) ? s + r.n : s), 0),
  );
  const refused = nodes.map(
    (_, i) => rec.fails.filter((f) => f.status === 503 && FORMATTED_KINDS.has(f.kind) && during(f, i)).length,
  );
  const recovery = nodes.map((_, i) => {
    const at = firstOkAfter(rec, i, o.startAt, FORMATTED_KINDS);
    return at === null ? NaN : Math.max(0, at - o.backAt);
  });
  nodes.forEach((n, i) => {
    if (served[i] === 0) violate(`${n.name} served no formatted ID from its buffers during the outage`);
    if (refused[i] === 0) violate(`${n.name} never answered 503 for formatted IDs during the outage`);
  });
  const perNode = (values: number[], show: (v: number) => string) =>
    values.map((v, i) => `${nodes[i]?.name ?? '?'}=${show(v)}`).join(' ');
  say(
    `outage, formatted: served from buffers ${perNode(served, String)} IDs; 503s during it ${perNode(refused, String)}; ` +
      `recovery after the database was back ${perNode(recovery, (v) => `${fmt(v)}s`)}`,
  );
  return Math.max(...recovery) / 1000;
}

/** The highest sequence number issued in each period is within that period's leaf_format_period.max_id. */
export async function checkFormattedMaxId(run: ChaosRun, periods: FormatPeriodRow[]): Promise<void> {
  const { say, violate, rec } = run;
  const issued = new Map<string, number>();
  for (const r of rec.ok) {
    if (r.period !== undefined && (r.max as number) > (issued.get(r.period) ?? 0))
      issued.set(r.period, r.max as number);
  }
  const maxIds = new Map(periods.map((row) => [row.periodKey, row.maxId]));
  say(
    `leaf_format_period max_id vs highest sequence issued: ${[...issued].map(([p, seq]) => `${p} ${maxIds.get(p)}/${seq}`).join(', ') || 'none issued'}`,
  );
  for (const [period, seq] of issued) {
    const maxId = maxIds.get(period);
    if (maxId === undefined || !(seq <= maxId))
      violate(`formatted sequence ${seq} of period ${period} is above its max_id (${maxId ?? 'no row'})`);
  }
}
