import { LeafError } from '../errors';
import type { SettingStore } from '../settings/settingStore';
import { pinShared } from '../settings/sharedSetting';
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
  const fleet = await pinShared<RecordedLayout>({
    store,
    name: SNOWFLAKE_SETTING,
    ours,
    nodeId,
    isValid: (v) => typeof v.layout === 'string' && typeof v.signature === 'string' && Number.isSafeInteger(v.epochMs),
    describe: described,
  });
  if (fleet.value !== null && fleet.value.signature === ours.signature && fleet.value.epochMs === ours.epochMs) return;
  throw new LeafError(
    'invalid_config',
    `This node's snowflake layout ${described(ours)} differs from the fleet's, ${fleet.described}, recorded by ${fleet.recordedBy}: nodes of two layouts or epochs can issue the same ID. Set LEAF_SNOWFLAKE_LAYOUT and LEAF_SNOWFLAKE_EPOCH as the fleet has them (docs/operations.md#changing-the-snowflake-layout)`,
  );
}

function described({ layout: text, epochMs }: RecordedLayout): string {
  const layout = SnowflakeLayout.parse(text);
  const bits = layout instanceof SnowflakeLayout ? ` (${layout.describe()})` : '';
  return `${text}${bits} with epoch ${new Date(epochMs).toISOString()}`;
}
