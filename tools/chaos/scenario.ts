/**
 * The fault schedule, phase by phase: warmup, baseline, slow DB (proxy latency), kills and connection cuts, a
 * database outage (MariaDB or PostgreSQL, stopped and started again) past the nodes' buffers and its recovery, tail. Each phase's window is kept in `run.phases`;
 * what the faults did (kills, cuts, outage times, engine waits) is kept in `run` for the report.
 */
import { shuffled } from '../harness';
import { LATENCY, fmt } from './config';
import { isSlowLoad } from './checks';
import type { ChaosRun } from './context';
import { engineStats } from './engineStats';
import { now } from './load';
import { outage } from './outage';

/** Runs a named phase, keeping its window in `run.phases` and saying when it begins and ends. */
export function phaseRunner(run: ChaosRun): <T>(name: string, fn: () => Promise<T>) => Promise<T> {
  return async (name, fn) => {
    const from = now();
    run.say(`phase ${name}: begin`);
    try {
      return await fn();
    } finally {
      run.phases[name] = { from, to: now() };
      run.say(`phase ${name}: end (${fmt(now() - from)}s)`);
    }
  };
}

/** SIGKILLs a random leaf-ts node, restarts it on the same port within a second, and records it in `run.kills`. */
export async function killAndRestartNode(run: ChaosRun, label: string): Promise<void> {
  const { random, rand, say, sleep, nodes, kills } = run;
  const index = Math.floor(random() * nodes.length);
  const victim = nodes[index];
  if (victim === undefined) throw new Error(`${label}: no node ${index} to kill (${nodes.length} nodes)`);
  const at = now();
  await victim.kill();
  say(`${label}: SIGKILL ${victim.name} (life ${victim.life})`);
  await sleep(rand(0, 1_000));
  const ms = await victim.start();
  kills.push({ node: victim.name, at, restartMs: ms });
  say(`${label}: ${victim.name} restarted as life ${victim.life}, healthy after ${ms} ms (down ${fmt(now() - at)}s)`);
}

/** How long the slow phase may run past its size when no segment load went through the slow proxies yet. */
const SLOW_EXTENSION_S = 15;

export async function runScenario(run: ChaosRun): Promise<void> {
  const { size, random, rand, say, sleep, proxies, nodes, cuts } = run;
  const phase = phaseRunner(run);

  await phase('warmup', () => sleep(size.warmupS * 1000));
  await phase('baseline', () => sleep(size.baselineS * 1000));

  const before = await Promise.all(nodes.map((n) => engineStats(n.port)));
  await phase('slow', async () => {
    for (const p of proxies) p.setLatency(LATENCY);
    say(`proxies: DB → node chunks delayed ${LATENCY.minMs}–${LATENCY.maxMs} ms`);
    const from = now();
    await sleep(size.slowS * 1000);
    // Slow load on a busy machine: the buffers may outlast the phase. Hold the latency until a load went through it.
    for (let extra = 0; extra < SLOW_EXTENSION_S && !run.logEvents.some((e) => isSlowLoad(e, from, now())); extra++) {
      if (extra === 0)
        say(
          `slow: no segment load through the slow proxies yet; holding the latency (up to ${SLOW_EXTENSION_S} s more)`,
        );
      await sleep(1000);
    }
    for (const p of proxies) p.setLatency(null);
    say(`proxies: latency off (max delay applied ${Math.max(...proxies.map((p) => p.stats.maxDelayMs))} ms)`);
  });
  await sleep(3_000); // held chunks drain (≤ 2 s)
  const after = await Promise.all(nodes.map((n) => engineStats(n.port)));
  run.slowWaits = after.map((a, i) => {
    const b = before[i];
    if (b === undefined) throw new Error(`no engine stats of node ${i + 1} from before the slow phase`);
    return a.buffered < 0 || b.buffered < 0 ? NaN : a.waits - b.waits;
  });
  say(
    `engine waits during the slow DB (requests that found both segments empty): ${nodes.map((n, i) => `${n.name}=${run.slowWaits[i]}`).join(' ')}`,
  );

  await phase('kills', async () => {
    const actions = shuffled(
      [...Array<'kill'>(size.kills).fill('kill'), ...Array<'cut'>(size.cuts).fill('cut')],
      random,
    );
    for (const action of actions) {
      await sleep(rand(size.actionGapS[0], size.actionGapS[1]) * 1000);
      if (action === 'cut') {
        cuts.push(now());
        const n = proxies.reduce((s, p) => s + p.cutAll(), 0);
        say(`cut: all ${n} proxied DB connections destroyed`);
        continue;
      }
      await killAndRestartNode(run, 'kill');
    }
  });

  await phase('outage', () => {
    const server = run.db!;
    return outage(run, {
      what: run.database === 'postgres' ? 'postgres' : 'mariadbd',
      stop: () => server.stop(),
      start: () => server.start(),
    });
  });

  await phase('tail', () => sleep(size.tailS * 1000));
}
