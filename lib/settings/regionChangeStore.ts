/** What a change of the region count needs of one database (its port; lib/store implements it per dialect). */
import type { RegionInfo } from './region';
import type { RegionWrite } from './regionChange';

/** A process registered on the database (leaf_participant), or a node whose heartbeat is recent (leaf_node). */
export interface LiveProcess {
  kind: 'node' | 'embedded' | 'participant';
  label: string;
  host: string;
  /** For a proof of death from this machine (lib/ordered/procIdentity.ts); '' when unknown. */
  procKey: string;
  instanceId: string;
  lastSeenAgoMs: number;
}

export interface RegionChangeStore {
  /** The region record, parsed; null when there is none (a new database). */
  readRegion(): Promise<RegionInfo | null>;
  /** A leaf_setting row's value as recorded, or null (never written here). */
  readSetting(name: string): Promise<string | null>;
  /** Per tag the highest position claimed (leaf_alloc, tombstones), and per formatted period. */
  readPositions(): Promise<{ tags: Map<string, bigint>; periods: Map<string, bigint> }>;
  /** Every tag's max_id, to watch whether anything still claims (a Java Leaf node is registered nowhere). */
  readMaxIds(): Promise<Map<string, bigint>>;
  /** Participants, and nodes that beat within `goneMs`. */
  liveProcesses(goneMs: number): Promise<LiveProcess[]>;
  /** Removes a participant proven dead or forgotten by the operator. */
  removeParticipant(instanceId: string): Promise<void>;
  /**
   * One transaction: every tag raised (a tombstone where it is missing), every period raised (made where missing),
   * the region record replaced, the settings named in `drop` deleted (the snowflake layout: its region bits move).
   */
  applyRegionChange(write: RegionWrite, setBy: string, drop: readonly string[]): Promise<void>;
}
