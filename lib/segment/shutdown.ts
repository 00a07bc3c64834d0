/** The asynchronous half of a graceful stop: claims in flight awaited, each latest claim given back, bounded. */
import type { Clock } from '../clock';
import { Deadline, TIMED_OUT } from '../deadline';
import type { Logger } from '../log';
import type { SegmentClaims } from './claims';
import { type UnusedRun, givenBackMaxId, unusedTop } from './giveBack';
import { toId } from './id';
import type { SegmentSource } from './segmentSource';

/** IDs a graceful stop gave back to a tag's row: `first`..`last`, decimal strings; max_id moved from `maxIdBefore`. */
export interface GivenBack {
  bizTag: string;
  first: string;
  last: string;
  count: number;
  maxIdBefore: string;
  maxIdAfter: string;
}

export interface CloseOptions {
  /** Give back the unused top of each tag's latest claim (LEAF_GIVE_BACK). */
  giveBack: boolean;
  /** The whole give-back — waiting for claims in flight, then the compare-and-sets — ends within this. */
  timeoutMs?: number;
}

/** Gives back what `unused` (per tag, what the frozen buffers never handed out) allows; returns what was given. */
export async function giveBackUnused(o: {
  store: SegmentSource;
  clock: Clock;
  logger: Logger;
  claims: SegmentClaims;
  unused: Map<string, UnusedRun[]>;
  options: CloseOptions;
}): Promise<GivenBack[]> {
  const { store, clock, logger, claims, unused, options } = o;
  if (!options.giveBack || store.giveBack === undefined) return [];
  const timeoutMs = options.timeoutMs ?? 2_000;
  const given: GivenBack[] = [];
  const deadline = new Deadline(clock, timeoutMs);
  try {
    await deadline.race(claims.settled());
    const backs: Promise<void>[] = [];
    for (const [bizTag, latest] of claims.latest) {
      if (claims.inFlight(bizTag)) continue; // a claim it cannot see may be the latest
      const runs = unused.get(bizTag) ?? [];
      const first = unusedTop(latest, latest.unusedWhole === null ? runs : [...runs, latest.unusedWhole]);
      if (first === null) continue;
      const maxIdAfter = toId(givenBackMaxId(first, latest.semantics));
      const back = store.giveBack(bizTag, latest.maxId, maxIdAfter).then((done) => {
        if (!done)
          return logger.log('info', 'give_back_skipped', { bizTag, reason: 'max_id moved since this node claimed' });
        const last = BigInt(latest.maxId) - BigInt(maxIdAfter) + first - 1n;
        const entry = {
          bizTag,
          first: String(first),
          last: String(last),
          count: Number(last - first + 1n),
          maxIdBefore: String(latest.maxId),
          maxIdAfter: String(maxIdAfter),
        };
        given.push(entry);
        logger.log('info', 'ids_given_back', { ...entry });
      });
      backs.push(back);
    }
    if ((await deadline.race(Promise.all(backs))) === TIMED_OUT) {
      logger.log('warn', 'give_back_failed', {
        error: `the store did not answer within ${timeoutMs} ms`,
        given: given.length,
      });
    }
  } catch (error) {
    logger.log('warn', 'give_back_failed', { error, given: given.length });
  } finally {
    deadline.clear();
  }
  return [...given];
}
