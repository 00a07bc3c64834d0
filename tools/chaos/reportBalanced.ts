/**
 * `--lb haproxy`: what the clients behind the balancer saw. The ID checks are the usual ones (no duplicate, each
 * node's answers in real-time order — the balancer names the node on every answer — no ID above max_id); on top,
 * every request that did not end in a 200 is a failure, placed against the bounces: a failure while no node was
 * being SIGKILLed (a graceful stop included) is a violation; those during a SIGKILL are what HAProxy's retries could
 * not save, at most one per SIGKILL (measured: none in 3 kills with the recipe's retry-on, 23 without it). The
 * summary line: requests, failed, duplicates, p99.
 */
import { percentile } from '../harness';
import { maxOf } from './checks';
import { fmt } from './config';
import type { ChaosRun, NodeBounce } from './context';
import { MEASURED_KINDS } from './record';
import { checkHealthAndLogs, checkIds, checkMaxId } from './report';

/** A bounce's window: from the signal until the balancer had the node back (or its health answered, + 2 s). */
const window = (b: NodeBounce) => ({
  from: b.at,
  to: (Number.isFinite(b.inServiceAt) ? b.inServiceAt : b.upAt) + 2_000,
});

export async function analyseBalanced(run: ChaosRun): Promise<string> {
  const { say, violate, rec, bounces, nodes, phases, t0 } = run;
  const { duplicates, orderViolations } = checkIds(run);
  run.stalls.stop();

  const during = (how: NodeBounce['how'], sendT: number, recvT: number) =>
    bounces.some((b) => b.how === how && recvT >= window(b).from && sendT <= window(b).to);
  const failed = { kill: 0, stop: 0, other: 0 };
  const shown: string[] = [];
  const codes = new Map<string, number>();
  for (const f of rec.fails) {
    const key = f.status === 0 ? f.code : `${f.status} ${f.code || '(no code)'}`;
    codes.set(key, (codes.get(key) ?? 0) + 1);
    const where = during('kill', f.sendT, f.recvT) ? 'kill' : during('stop', f.sendT, f.recvT) ? 'stop' : 'other';
    failed[where]++;
    if (where !== 'kill' && shown.length < 5)
      shown.push(
        `${f.kind} → ${f.status} ${f.code} ${f.body.slice(0, 120)} at +${fmt(f.sendT - t0)}s (${where === 'stop' ? 'during a graceful stop' : 'no node down'})`,
      );
  }
  const requests = rec.ok.length + rec.fails.length;
  const total = failed.kill + failed.stop + failed.other;
  say(
    `requests through haproxy: ${requests}; failed ${total}: during SIGKILLs ${failed.kill}, during graceful stops ${failed.stop}, otherwise ${failed.other}`,
  );
  if (codes.size > 0) say(`failures by status and code: ${[...codes].map(([k, v]) => `${k}: ${v}`).join(', ')}`);
  if (failed.stop + failed.other > 0)
    violate(`${failed.stop + failed.other} requests failed while no node was being SIGKILLed: ${shown.join('; ')}`);

  const served = nodes.map((_, i) => rec.ok.filter((r) => r.node === i).length);
  say(`answers per node: ${nodes.map((n, i) => `${n.name}=${served[i]}`).join(' ')}`);
  if (served.some((n) => n === 0)) violate('a node answered nothing through the balancer');
  const stats = await run.haproxy?.stats();
  if (stats !== undefined)
    say(
      `haproxy: ${stats.retries} retries, ${stats.redispatches} redispatched to another node; servers ${stats.servers.map((s) => `${s.name} ${s.status}`).join(', ')}`,
    );

  const latencies = (from: number, to: number) => {
    const out: number[] = [];
    for (const r of [...rec.ok, ...rec.fails])
      if (MEASURED_KINDS.has(r.kind) && r.sendT >= from && r.sendT <= to) out.push(r.recvT - r.sendT);
    return out;
  };
  const all = latencies(-Infinity, Infinity);
  const base = phases.baseline === undefined ? [] : latencies(phases.baseline.from, phases.baseline.to);
  const inBounces = phases.bounces === undefined ? [] : latencies(phases.bounces.from, phases.bounces.to);
  const p99 = percentile(all, 99);
  const ms = (v: number) => (Number.isFinite(v) ? v.toFixed(1) : 'n/a');
  say(
    `latency: p50 ${ms(percentile(all, 50))} p99 ${ms(p99)} max ${ms(maxOf(all))} ms over ${all.length} client requests; ` +
      `baseline p99 ${ms(percentile(base, 99))} ms, during the bounces p99 ${ms(percentile(inBounces, 99))} ms`,
  );
  const kills = bounces.filter((b) => b.how === 'kill').length;
  if (failed.kill > kills)
    violate(
      `${failed.kill} requests failed during ${kills} SIGKILLs: more than one a kill, so the balancer's retries did not save those in flight`,
    );
  say(
    `bounces: ${bounces.map((b) => `${b.how} ${b.node} back in rotation after ${fmt(b.inServiceAt - b.at)}s`).join('; ')}`,
  );

  checkHealthAndLogs(run);
  await checkMaxId(run);
  const ids = rec.segIds + rec.snowCount + rec.fmtIds;
  return (
    `chaos: lb=haproxy requests=${requests} failed=${total} (during SIGKILL ${failed.kill}, during graceful stops ${failed.stop}, other ${failed.other}) ` +
    `duplicates=${duplicates} order-violations=${orderViolations} ids=${ids} (segment ${rec.segIds}, snowflake ${rec.snowCount}, formatted ${rec.fmtIds}) ` +
    `kills=${kills} graceful-stops=${bounces.length - kills} retries=${stats?.retries ?? 'n/a'} redispatches=${stats?.redispatches ?? 'n/a'} p99=${ms(p99)}ms`
  );
}
