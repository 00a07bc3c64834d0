import type { AuditStore } from '../admin/auditStore';
import type { HostHealth } from '../admin/hostHealth';
import type { TagStore } from '../admin/tagStore';
import type { TokenStore } from '../auth/tokenStore';
import type { NodeStore } from '../fleet/nodeStore';
import type { FormatStore } from '../format/formatStore';
import type { SemanticsStore } from '../segment/semanticsStore';
import type { WorkerStore } from '../snowflake/workerStore';

/** The store itself: which database, whether it answers, its hosts, closing it. */
export interface SegmentStore extends TagStore, SemanticsStore {
  readonly dialect: 'sqlite' | 'mysql';
  ping(): Promise<void>;
  /**
   * Each database host on its own (MySQL/MariaDB: every host of the URL, probed in parallel, each within
   * `timeoutMs`). Absent where there is no host to speak of (SQLite).
   */
  hosts?(timeoutMs?: number): Promise<HostHealth[]>;
  close(): Promise<void>;
}

/** What a leaf-ts node needs from its database. */
export type LeafStore = SegmentStore & WorkerStore & NodeStore & AuditStore & TokenStore & FormatStore;
