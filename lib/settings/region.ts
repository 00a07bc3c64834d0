import { randomUUID } from 'node:crypto';
import { LeafError } from '../errors';
import type { SettingStore } from './settingStore';
import { pinShared } from './sharedSetting';

/** The leaf_setting row naming which region a database serves. */
export const REGION_SETTING = 'region';

/** LEAF_REGION of LEAF_REGIONS (here, not in leafConfig: @leaf-ts/embedded checks regions without the server's config). */
export interface RegionConfig {
  /** This node's region, from 0. */
  region: number;
  /** How many regions the fleet has; 1: regions off. */
  regions: number;
}

/** A region as its database recorded it at the first start. */
export interface RegionInfo extends RegionConfig {
  /** Made once per database at its first start: two databases that claim one region number show two of these. */
  database: string;
}

/**
 * Before anything is issued: records this node's region and count in its database if none are there, else refuses
 * a node that disagrees, naming both (a region's IDs are apart from the others' only under one count and number).
 */
export async function ensureRegion(options: {
  store: SettingStore;
  config: RegionConfig;
  nodeId: string;
}): Promise<RegionInfo> {
  const { store, config, nodeId } = options;
  const fleet = await pinShared<RegionInfo>({
    store,
    name: REGION_SETTING,
    ours: { ...config, database: randomUUID() },
    nodeId,
    isValid: (v) => Number.isInteger(v.region) && Number.isInteger(v.regions) && typeof v.database === 'string',
    describe: described,
  });
  const recorded = fleet.value;
  if (recorded !== null && recorded.region === config.region && recorded.regions === config.regions) return recorded;
  throw new LeafError(
    'invalid_config',
    `This node is ${described(config)} (LEAF_REGION, LEAF_REGIONS), but its database serves ${fleet.described}, recorded by ${fleet.recordedBy}: each region has its own database, and every node of it the same two settings (docs/operations.md#regions)`,
  );
}

function described(r: RegionConfig): string {
  return r.regions === 1 ? 'one region (regions off)' : `region ${r.region} of ${r.regions}`;
}
