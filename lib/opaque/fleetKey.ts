import { LeafError } from '../errors';
import type { SettingStore } from '../settings/settingStore';
import { pinShared } from '../settings/sharedSetting';
import type { OpaqueKey } from './key';

/** The leaf_setting row holding the fingerprint of the fleet's LEAF_OPAQUE_KEY. */
export const OPAQUE_KEY_SETTING = 'opaque_key';

interface RecordedKey {
  keyId: string;
}

/**
 * Before anything is served: records this key's fingerprint if the fleet has none, else refuses a start with another
 * key (its opaque IDs would be another permutation's, which can equal the fleet's).
 */
export async function ensureFleetOpaqueKey(options: {
  store: SettingStore;
  key: OpaqueKey;
  nodeId: string;
}): Promise<void> {
  const { store, key, nodeId } = options;
  const fleet = await pinShared<RecordedKey>({
    store,
    name: OPAQUE_KEY_SETTING,
    ours: { keyId: key.id },
    nodeId,
    isValid: (v) => typeof v.keyId === 'string',
    describe: (v) => `fingerprint ${v.keyId}`,
  });
  if (fleet.value?.keyId === key.id) return;
  throw new LeafError(
    'invalid_config',
    `LEAF_OPAQUE_KEY has fingerprint ${key.id}, and the fleet's key has ${fleet.described}, recorded by ${fleet.recordedBy}: give every node the fleet's key (docs/operations.md#opaque-tags)`,
  );
}
