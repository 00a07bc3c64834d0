/**
 * `--lb haproxy`: the nodes' own faults under load through the balancer. After warmup and a baseline, nodes are
 * SIGKILLed or stopped gracefully (SIGTERM: drain, give-back, exit), one at a time in a shuffled order, and started
 * again on the same port; each bounce is kept with when the process was gone, healthy again, and back in the
 * balancer's rotation. Then a tail of normal load.
 */
import { shuffled, waitForServers } from '../harness';
import { fmt } from './config';
import type { ChaosRun } from './context';
import { now } from './load';
import { phaseRunner } from './scenario';

/** How long the balancer may take to put a restarted node back (rise 2 × inter 1 s, and some slack). */
const IN_SERVICE_BOUND_MS = 10_000;

export async function runBalancedScenario(run: ChaosRun): Promise<void> {
  const { size, random, rand, say, sleep, nodes, bounces } = run;
  const haproxy = run.haproxy;
  if (haproxy === null) throw new Error('no balancer');
  const phase = phaseRunner(run);

  await phase('warmup', () => sleep(size.warmupS * 1000));
  await phase('baseline', () => sleep(size.baselineS * 1000));
  await phase('bounces', async () => {
    const actions = shuffled(
      [...Array<'kill'>(size.kills).fill('kill'), ...Array<'stop'>(size.lbStops).fill('stop')],
      random,
    );
    for (const how of actions) {
      await sleep(rand(size.actionGapS[0], size.actionGapS[1]) * 1000);
      const index = Math.floor(random() * nodes.length);
      const victim = nodes[index];
      if (victim === undefined) throw new Error(`no node ${index} to bounce (${nodes.length} nodes)`);
      const at = now();
      await (how === 'kill' ? victim.kill() : victim.stop(15_000));
      const goneAt = now();
      say(
        `${how === 'kill' ? 'SIGKILL' : 'graceful stop (SIGTERM)'} ${victim.name} (life ${victim.life}): gone after ${fmt(goneAt - at)}s`,
      );
      await sleep(rand(200, 1_500));
      await victim.start();
      const upAt = now();
      const back = await waitForServers(haproxy, [`leaf${index + 1}`], 'UP', IN_SERVICE_BOUND_MS);
      const inServiceAt = back ? now() : NaN;
      bounces.push({ how, node: victim.name, at, goneAt, upAt, inServiceAt });
      say(
        `${victim.name} started as life ${victim.life}, healthy ${fmt(upAt - at)}s after the ${how}, ${back ? `in rotation after ${fmt(inServiceAt - at)}s` : 'NOT back in rotation'}`,
      );
      if (!back)
        run.violate(
          `haproxy did not put ${victim.name} back in rotation within ${IN_SERVICE_BOUND_MS / 1000} s of its start`,
        );
    }
  });
  await phase('tail', () => sleep(size.tailS * 1000));
}
