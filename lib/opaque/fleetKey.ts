import { LeafError } from '../errors';
import type { TagStore } from '../segment/tagStore';
import type { SettingStore } from '../settings/settingStore';
import { pinShared } from '../settings/sharedSetting';
import type { OpaqueKeyRing } from './keyRing';

/** The leaf_setting row holding the fingerprint of the fleet's current LEAF_OPAQUE_KEY. */
export const OPAQUE_KEY_SETTING = 'opaque_key';

interface RecordedKey {
  keyId: string;
}

const RUNBOOK = 'docs/operations.md#rotating-the-opaque-key';

/**
 * Before anything is served, two checks (docs/design.md#opaque-tags):
 * - the node holds the fleet's recorded key (a node with another key alone is a mistake, or an old node restarted
 *   after a rotation); it then records its own current key, so a rotation moves the record forward;
 * - it holds every key an opaque tag was created under: it would otherwise refuse those tags' IDs at every request.
 */
export async function ensureFleetOpaqueKeys(options: {
  settings: SettingStore;
  tags: Pick<TagStore, 'listEncodings'>;
  ring: OpaqueKeyRing;
  nodeId: string;
}): Promise<void> {
  await recordCurrentKey(options);
  const missing = new Map<string, string[]>();
  for (const [bizTag, encoding] of await options.tags.listEncodings()) {
    if (!options.ring.holds(encoding.keyId))
      missing.set(encoding.keyId, [...(missing.get(encoding.keyId) ?? []), bizTag]);
  }
  if (missing.size === 0) return;
  const lines = [...missing].map(([keyId, tags]) => `key ${keyId} (tags ${listed(tags)})`);
  throw new LeafError(
    'invalid_config',
    `Opaque tags were created under ${lines.join(' and ')}, which this node does not hold (it holds ${options.ring.ids.join(', ')}): keep retired keys in LEAF_OPAQUE_RETIRED_KEYS_FILE (${RUNBOOK})`,
  );
}

async function recordCurrentKey(options: { settings: SettingStore; ring: OpaqueKeyRing; nodeId: string }) {
  const { settings, ring, nodeId } = options;
  const ours = { keyId: ring.current.id };
  // Two rounds: a racer may move the record between our read and our write; a third disagreement is refused.
  for (let round = 0; ; round++) {
    const fleet = await pinShared<RecordedKey>({
      store: settings,
      name: OPAQUE_KEY_SETTING,
      ours,
      nodeId,
      isValid: (v) => typeof v.keyId === 'string',
      describe: (v) => `fingerprint ${v.keyId}`,
    });
    const recorded = fleet.value?.keyId;
    if (recorded === ring.current.id) return;
    if (recorded === undefined || !ring.holds(recorded) || round === 2) {
      throw new LeafError(
        'invalid_config',
        `LEAF_OPAQUE_KEY has fingerprint ${ring.current.id}, and the fleet's key has ${fleet.described}, recorded by ${fleet.recordedBy}, which this node does not hold: if the fleet rotated to that key, give it to this node (its own then goes to LEAF_OPAQUE_RETIRED_KEYS_FILE); if this node's key is the new one, keep the fleet's in LEAF_OPAQUE_RETIRED_KEYS_FILE (${RUNBOOK})`,
      );
    }
    await settings.replaceSetting(OPAQUE_KEY_SETTING, fleet.raw, JSON.stringify(ours), nodeId);
  }
}

function listed(tags: string[]): string {
  const shown = tags.slice(0, 5).join(', ');
  return tags.length > 5 ? `${shown} and ${tags.length - 5} more` : shown;
}
