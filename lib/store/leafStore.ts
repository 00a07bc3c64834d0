import type { AuditStore } from '../admin/auditStore';
import type { ClaimLogStore } from '../claims/claimLogStore';
import type { HostHealth } from '../admin/hostHealth';

export type { HostHealth };
import type { TagStore } from '../segment/tagStore';
import type { TokenStore } from '../auth/tokenStore';
import type { SessionStore } from '../auth/sessionStore';
import type { NodeStore } from '../fleet/nodeStore';
import type { FormatStore } from '../format/formatStore';
import type { OrderStore } from '../ordered/orderStore';
import type { RegionChangeStore } from '../settings/regionChangeStore';
import type { SettingStore } from '../settings/settingStore';
import type { SemanticsStore } from '../segment/semanticsStore';
import type { WorkerStore } from '../snowflake/workerStore';

/** What a node holds of its database: one repository per concern, each its user's port, and the database. */
export interface LeafStore {
  readonly dialect: 'sqlite' | 'mysql' | 'postgres';
  readonly tags: TagStore;
  readonly semantics: SemanticsStore;
  readonly workers: WorkerStore;
  readonly nodes: NodeStore;
  readonly formats: FormatStore;
  readonly tokens: TokenStore;
  /** Console sessions (lib/auth/sessions.ts). */
  readonly sessions: SessionStore;
  readonly audit: AuditStore;
  /** Strict tags and their owners' leases (lib/ordered). */
  readonly order: OrderStore;
  /** A change of the region count (scripts/regions.ts; lib/settings/regionChange.ts). */
  readonly regionChange: RegionChangeStore;
  /** Values the whole fleet must share, the first node's kept (lib/settings/). */
  readonly settings: SettingStore;
  /** Every claim, written in its transaction: when IDs were handed out (lib/claims/). */
  readonly claims: ClaimLogStore;
  ping(): Promise<void>;
  /** Every host of the URL on its own, probed in parallel within `timeoutMs`; absent on SQLite. */
  hosts?(timeoutMs?: number): Promise<HostHealth[]>;
  close(): Promise<void>;
}
