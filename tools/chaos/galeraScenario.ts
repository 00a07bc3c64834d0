/**
 * `--db galera`: the fault schedule over a 3-node Galera cluster. Warmup and baseline, then the database's own
 * failures in random order — a Galera node SIGKILLed and restarted (it rejoins by IST), a Galera node cut off
 * from the other two (a running non-primary minority that refuses writes with 1047), and leaf-ts node kills
 * where the size asks for them — then the whole cluster down for longer than the buffers last, bootstrapped again
 * from its most advanced node, and a tail. Nodes must keep serving through single-node failures (their buffers and
 * the multi-host URL) and recover by themselves after the full outage.
 */
import { type GaleraCluster, shuffled } from '../harness';
import { fmt } from './config';
import type { ChaosRun } from './context';
import { now } from './load';
import { outage } from './outage';
import { killAndRestartNode, phaseRunner } from './scenario';

type Action = 'db-kill' | 'partition' | 'node-kill';

/** After the others report the member gone: a claim that stalled until then still needs its round trip. */
const EVICTION_MARGIN_MS = 2_000;

export async function runGaleraScenario(run: ChaosRun): Promise<void> {
  const { size, random, rand, say, sleep } = run;
  const cluster = run.galera as GaleraCluster;
  const phase = phaseRunner(run);
  const pick = <T>(list: T[]): T => {
    const item = list[Math.floor(random() * list.length)];
    if (item === undefined) throw new Error('nothing to pick from an empty list');
    return item;
  };
  const galeraNodes = cluster.nodes.map((_, i) => i);

  await phase('warmup', () => sleep(size.warmupS * 1000));
  await phase('baseline', () => sleep(size.baselineS * 1000));

  await phase('db-faults', async () => {
    const actions = shuffled<Action>(
      [
        ...Array<Action>(size.dbKills).fill('db-kill'),
        ...Array<Action>(size.partitions).fill('partition'),
        ...Array<Action>(size.kills).fill('node-kill'),
      ],
      random,
    );
    for (const action of actions) {
      await sleep(rand(size.actionGapS[0], size.actionGapS[1]) * 1000);
      if (action === 'db-kill') {
        const victim = pick(galeraNodes);
        const at = now();
        await cluster.kill(victim); // resolves once the others have evicted it
        run.evictionWindows.push({ from: at, to: now() + EVICTION_MARGIN_MS });
        say(`db-kill: Galera node g${victim + 1} SIGKILLed, evicted after ${fmt(now() - at)}s`);
        await sleep(rand(0, 2_000));
        await cluster.restart(victim); // wsrep-recover, IST, Synced
        run.dbKills.push({ node: victim, at, backAt: now() });
        say(`db-kill: g${victim + 1} Synced again (down ${fmt(now() - at)}s)`);
      } else if (action === 'partition') {
        const victim = pick(galeraNodes);
        const at = now();
        await cluster.isolate(victim); // a non-primary minority: it answers, and refuses writes
        run.evictionWindows.push({ from: at, to: now() + EVICTION_MARGIN_MS });
        say(
          `partition: g${victim + 1} cut off from the others (non-primary) after ${fmt(now() - at)}s; holding ${size.partitionS}s`,
        );
        await sleep(size.partitionS * 1000);
        await cluster.heal(victim);
        run.partitions.push({ node: victim, at, healedAt: now() });
        say(`partition: g${victim + 1} healed, Synced again (${fmt(now() - at)}s in all)`);
      } else {
        await killAndRestartNode(run, 'node-kill');
      }
    }
  });

  await phase('outage', () =>
    outage(run, {
      what: 'the Galera cluster',
      stop: () => cluster.stopAll(),
      start: async () => {
        const from = await cluster.bootstrapFromMostAdvanced();
        say(`galera: bootstrapped from g${from + 1}, the most advanced node`);
      },
    }),
  );

  await phase('tail', () => sleep(size.tailS * 1000));
}
