import { LeafError } from '../errors';
import type { SettingStore } from '../settings/settingStore';
import { SnowflakeLayout } from './layout';

/** The leaf_setting row every snowflake node of a fleet must agree with. */
export const SNOWFLAKE_SETTING = 'snowflake';

interface RecordedLayout {
  /** LEAF_SNOWFLAKE_LAYOUT as the first node had it. */
  layout: string;
  /** What decides collisions (SnowflakeLayout.signature): two names for the same bits agree. */
  signature: string;
  epochMs: number;
}

/**
 * Before a worker id is leased: records this node's layout and epoch if the fleet has none, else refuses a start
 * that disagrees, naming both (two layouts or epochs can give two nodes the same ID).
 */
export async function ensureFleetLayout(options: {
  store: SettingStore;
  layout: SnowflakeLayout;
  epochMs: number;
  nodeId: string;
}): Promise<void> {
  const { store, layout, epochMs, nodeId } = options;
  const ours: RecordedLayout = { layout: layout.text, signature: layout.signature, epochMs };
  const pinned = await store.pinSetting(SNOWFLAKE_SETTING, JSON.stringify(ours), nodeId);
  const fleet = parseRecorded(pinned.value);
  if (fleet !== null && fleet.signature === ours.signature && fleet.epochMs === ours.epochMs) return;
  const theirs =
    fleet === null ? `an unreadable record (${JSON.stringify(pinned.value)})` : described(fleet.layout, fleet.epochMs);
  throw new LeafError(
    'invalid_config',
    `This node's snowflake layout ${described(ours.layout, epochMs)} differs from the fleet's, ${theirs}, recorded by ${pinned.setBy} at ${new Date(pinned.setAt).toISOString()}: nodes of two layouts or epochs can issue the same ID. Set LEAF_SNOWFLAKE_LAYOUT and LEAF_SNOWFLAKE_EPOCH as the fleet has them (docs/operations.md#changing-the-snowflake-layout)`,
  );
}

function described(layoutText: string, epochMs: number): string {
  const layout = SnowflakeLayout.parse(layoutText);
  const bits = layout instanceof SnowflakeLayout ? ` (${layout.describe()})` : '';
  return `${layoutText}${bits} with epoch ${new Date(epochMs).toISOString()}`;
}

function parseRecorded(value: string): RecordedLayout | null {
  try {
    const v = JSON.parse(value) as Partial<RecordedLayout>;
    if (typeof v.layout === 'string' && typeof v.signature === 'string' && Number.isSafeInteger(v.epochMs))
      return v as RecordedLayout;
  } catch {
    // falls through: named as unreadable
  }
  return null;
}
