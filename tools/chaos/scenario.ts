/**
 * The fault schedule, phase by phase: warmup, baseline, slow DB (proxy latency), kills and connection cuts, a
 * MariaDB outage past the nodes' buffers and its recovery, tail. Each phase's window is kept in `run.phases`;
 * what the faults did (kills, cuts, outage times, engine waits) is kept in `run` for the report.
 */
import type { MariadbServer } from '../harness';
import { LATENCY, fmt } from './config';
import type { ChaosRun } from './context';
import { firstOkAfter } from './checks';
import { engineStats } from './engineStats';
import { now } from './load';
import { SEGMENT_KINDS } from './record';

export async function runScenario(run: ChaosRun): Promise<void> {
  const { size, random, rand, say, violate, sleep, proxies, nodes, rec, phases, cuts, kills } = run;

  const phase = async <T>(name: string, fn: () => Promise<T>): Promise<T> => {
    const from = now();
    say(`phase ${name}: begin`);
    try {
      return await fn();
    } finally {
      phases[name] = { from, to: now() };
      say(`phase ${name}: end (${fmt(now() - from)}s)`);
    }
  };

  await phase('warmup', () => sleep(size.warmupS * 1000));
  await phase('baseline', () => sleep(size.baselineS * 1000));

  const before = await Promise.all(nodes.map((n) => engineStats(n.port)));
  await phase('slow', async () => {
    for (const p of proxies) p.setLatency(LATENCY);
    say(`proxies: DB → node chunks delayed ${LATENCY.minMs}–${LATENCY.maxMs} ms`);
    await sleep(size.slowS * 1000);
    for (const p of proxies) p.setLatency(null);
    say(`proxies: latency off (max delay applied ${Math.max(...proxies.map((p) => p.stats.maxDelayMs))} ms)`);
  });
  await sleep(3_000); // held chunks drain (≤ 2 s)
  const after = await Promise.all(nodes.map((n) => engineStats(n.port)));
  run.slowWaits = after.map((a, i) => (a.buffered < 0 || before[i].buffered < 0 ? NaN : a.waits - before[i].waits));
  say(`engine waits during the slow DB (requests that found both segments empty): ${nodes.map((n, i) => `${n.name}=${run.slowWaits[i]}`).join(' ')}`);

  await phase('kills', async () => {
    const actions = [...Array<'kill'>(size.kills).fill('kill'), ...Array<'cut'>(size.cuts).fill('cut')];
    for (let i = actions.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [actions[i], actions[j]] = [actions[j], actions[i]];
    }
    for (const action of actions) {
      await sleep(rand(size.actionGapS[0], size.actionGapS[1]) * 1000);
      if (action === 'cut') {
        cuts.push(now());
        const n = proxies.reduce((s, p) => s + p.cutAll(), 0);
        say(`cut: all ${n} proxied DB connections destroyed`);
        continue;
      }
      const victim = nodes[Math.floor(random() * nodes.length)];
      const at = now();
      await victim.kill();
      say(`kill: SIGKILL ${victim.name} (life ${victim.life})`);
      await sleep(rand(0, 1_000));
      const ms = await victim.start();
      kills.push({ node: victim.name, at, restartMs: ms });
      say(`kill: ${victim.name} restarted as life ${victim.life}, healthy after ${ms} ms (down ${fmt(now() - at)}s)`);
    }
  });

  await phase('outage', async () => {
    const server = run.db as MariadbServer;
    // A node restarted a moment ago may not hold a segment yet: the outage starts once every node has one.
    let buffers = (await Promise.all(nodes.map((n) => engineStats(n.port)))).map((e) => e.buffered);
    for (const waitUntil = now() + 10_000; buffers.some((b) => b <= 0) && now() < waitUntil; ) {
      await sleep(250);
      buffers = (await Promise.all(nodes.map((n) => engineStats(n.port)))).map((e) => e.buffered);
    }
    say(`buffers before the outage: ${nodes.map((n, i) => `${n.name}=${buffers[i]}`).join(' ')} IDs`);
    const stopAt = now();
    await server.stop();
    const downAt = now();
    say(`mariadbd stopped (SIGTERM, ${fmt(downAt - stopAt)}s); nodes serve from their buffers`);
    const exhaustedAt: Array<number | null> = nodes.map(() => null);
    let scanned = rec.fails.length;
    const scan = () => {
      for (; scanned < rec.fails.length; scanned++) {
        const f = rec.fails[scanned];
        if (f.status === 503 && SEGMENT_KINDS.has(f.kind) && f.sendT >= downAt && exhaustedAt[f.node] === null) {
          exhaustedAt[f.node] = f.recvT;
          say(`${nodes[f.node].name}: buffers used up, answering 503 ${f.code} (${fmt(f.recvT - downAt)}s into the outage)`);
        }
      }
    };
    let drained = false;
    for (;;) {
      await sleep(200);
      scan();
      const elapsed = now() - downAt;
      // Let plain client traffic eat the buffers for 2 s, then drain the rest in batches of 10,000.
      if (!drained && elapsed >= 2_000) {
        drained = true;
        nodes.forEach((_, i) => void run.load?.drain(i, () => exhaustedAt[i] !== null));
      }
      const all = exhaustedAt.every((t) => t !== null);
      const lastExhausted = Math.max(...exhaustedAt.map((t) => t ?? Infinity));
      if (all && elapsed >= size.outageMinS * 1000 && now() - lastExhausted >= 2_000) break;
      if (elapsed >= size.outageMaxS * 1000) {
        exhaustedAt.forEach((t, i) => {
          if (t === null) violate(`${nodes[i].name} still served segment IDs after ${size.outageMaxS}s of outage: the outage did not outlast its buffers`);
        });
        break;
      }
    }
    const startAt = now();
    await server.start();
    const backAt = now();
    run.outage = { stopAt, downAt, startAt, backAt };
    say(`mariadbd started again after ${fmt(startAt - downAt)}s down (ready in ${fmt(backAt - startAt)}s)`);
    // Recovery: each node must serve segment and snowflake IDs again, by itself.
    const bound = backAt + size.recoveryBoundS * 1000;
    for (;;) {
      const pending = nodes.filter((_, i) => firstOkAfter(rec, i, startAt, true) === null || firstOkAfter(rec, i, startAt, false) === null);
      if (pending.length === 0) break;
      if (now() > bound) {
        for (const n of pending) violate(`${n.name} did not recover within ${size.recoveryBoundS}s of MariaDB being back`);
        break;
      }
      await sleep(100);
    }
  });

  await phase('tail', () => sleep(size.tailS * 1000));
}
