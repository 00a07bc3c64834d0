/**
 * `--db patroni`: the fault schedule over a 3-node Patroni cluster in synchronous_mode. Warmup and baseline, then in
 * random order (seeded): the primary SIGKILLed (its machine dies; Patroni promotes the sync standby once the leader
 * lease lapses; the dead node is restarted and rejoins, pg_rewind if it diverged), a planned switchover, a replica
 * SIGKILLed and restarted, and leaf-ts node kills; then a tail. The nodes must ride out each failover on their
 * buffers and the multi-host URL (the store finds the new primary by itself).
 */
import { type PatroniCluster, describeRoles, shuffled } from '../harness';
import { fmt } from './config';
import type { ChaosRun } from './context';
import { now } from './load';
import { killAndRestartNode, phaseRunner } from './scenario';

type Action = 'primary-kill' | 'switchover' | 'replica-kill' | 'node-kill';

/** After a primary writes again: a claim that failed just before still needs its retry and round trip. */
const FAILOVER_MARGIN_MS = 2_000;

export async function runPatroniScenario(run: ChaosRun): Promise<void> {
  const { size, random, rand, say, sleep } = run;
  const cluster = run.patroni as PatroniCluster;
  const phase = phaseRunner(run);
  const roles = async () => describeRoles(await cluster.roles());
  /** Without a writable primary (or, with the sync standby gone, until Patroni names another) claims fail or stall. */
  const noWrites = (from: number, writableAt: number) =>
    run.evictionWindows.push({ from, to: writableAt + FAILOVER_MARGIN_MS });

  await phase('warmup', () => sleep(size.warmupS * 1000));
  await phase('baseline', () => sleep(size.baselineS * 1000));

  await phase('db-faults', async () => {
    const actions = shuffled<Action>(
      [
        ...Array<Action>(size.primaryKills).fill('primary-kill'),
        ...Array<Action>(size.switchovers).fill('switchover'),
        ...Array<Action>(size.replicaKills).fill('replica-kill'),
        ...Array<Action>(size.kills).fill('node-kill'),
      ],
      random,
    );
    for (const action of actions) {
      await sleep(rand(size.actionGapS[0], size.actionGapS[1]) * 1000);
      if (action === 'primary-kill') {
        // The previous fault's node may still be catching up: kill only a primary with a sync standby behind it.
        await cluster.waitForReplicasStreaming();
        const at = now();
        const victim = await cluster.killPrimary();
        const leader = await cluster.waitForLeader({ not: victim, what: 'promoted after the primary was killed' });
        const writableAt = now();
        noWrites(at, writableAt);
        run.patroniFaults.push({ kind: 'primary-kill', node: victim, at, writableAt });
        say(`primary-kill: pg${victim + 1} SIGKILLed; pg${leader + 1} writable after ${fmt(writableAt - at)}s`);
        await sleep(rand(0, 2_000));
        await cluster.restartNode(victim);
        say(`primary-kill: pg${victim + 1} rejoined (down ${fmt(now() - at)}s): ${await roles()}`);
      } else if (action === 'switchover') {
        const { from, to, ms } = await cluster.switchover(); // waits for the standbys first; `ms` from the request on
        const writableAt = now();
        noWrites(writableAt - ms, writableAt);
        run.patroniFaults.push({ kind: 'switchover', node: from, at: writableAt - ms, writableAt });
        say(`switchover: pg${from + 1} → pg${to + 1}, writable after ${fmt(ms)}s: ${await roles()}`);
      } else if (action === 'replica-kill') {
        await cluster.waitForReplicasStreaming();
        const primary = await cluster.waitForLeader();
        const replicas = cluster.nodes.flatMap((n, i) => (i !== primary && n.isRunning ? [i] : []));
        const victim = replicas[Math.floor(random() * replicas.length)];
        if (victim === undefined) throw new Error(`replica-kill: no running replica beside primary pg${primary + 1}`);
        const at = now();
        await cluster.killNode(victim);
        // If it was the sync standby, commits wait until Patroni makes the other one sync.
        await cluster.waitForReplicasStreaming();
        const writableAt = now();
        noWrites(at, writableAt);
        run.patroniFaults.push({ kind: 'replica-kill', node: victim, at, writableAt });
        say(
          `replica-kill: pg${victim + 1} SIGKILLed; a sync standby again after ${fmt(writableAt - at)}s: ${await roles()}`,
        );
        await sleep(rand(0, 2_000));
        await cluster.restartNode(victim);
        say(`replica-kill: pg${victim + 1} rejoined (down ${fmt(now() - at)}s)`);
      } else {
        await killAndRestartNode(run, 'node-kill');
      }
    }
    await cluster.waitForReplicasStreaming();
    say(`cluster after the faults: ${await roles()}`);
  });

  await phase('tail', () => sleep(size.tailS * 1000));
}
