import type { Logger } from '../log';
import type { SemanticsStore } from './semanticsStore';
import type { Semantics } from './semantics';

/** Who the audit trail names for a switch made at start by LEAF_SEGMENT_SEMANTICS. */
export const CONFIG_ACTOR = 'config:LEAF_SEGMENT_SEMANTICS';

/** LEAF_SEGMENT_SEMANTICS at start, before serving: the fleet default switched (one-ID skip, audited) if needed. */
export async function ensureFleetSemantics(options: {
  store: SemanticsStore;
  semantics: Semantics;
  nodeId: string;
  logger: Logger;
  now: number;
}): Promise<void> {
  const { store, semantics, nodeId, logger, now } = options;
  const change = await store.setDefaultSemantics(semantics, { actor: CONFIG_ACTOR, address: 'local', nodeId, at: now });
  if (change.before !== change.after) {
    logger.log('warn', 'fleet_semantics_switched', {
      before: change.before,
      after: change.after,
      tagsSkippedOneId: change.bumped,
      by: CONFIG_ACTOR,
    });
  }
}
