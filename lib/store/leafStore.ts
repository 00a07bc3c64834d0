import type { AuditStore } from '../admin/auditStore';
import type { HostHealth } from '../admin/hostHealth';
import type { TagStore } from '../admin/tagStore';
import type { TokenStore } from '../auth/tokenStore';
import type { NodeStore } from '../fleet/nodeStore';
import type { FormatStore } from '../format/formatStore';
import type { SemanticsStore } from '../segment/semanticsStore';
import type { WorkerStore } from '../snowflake/workerStore';

/**
 * What a leaf-ts node holds of its database: one small repository per concern, each the port its user declares
 * (`store.tags` for the segment engine and the admin API, `store.workers` for the snowflake node, …), and the
 * database itself (which, whether it answers, its hosts, closing it).
 */
export interface LeafStore {
  readonly dialect: 'sqlite' | 'mysql';
  readonly tags: TagStore;
  readonly semantics: SemanticsStore;
  readonly workers: WorkerStore;
  readonly nodes: NodeStore;
  readonly formats: FormatStore;
  readonly tokens: TokenStore;
  readonly audit: AuditStore;
  ping(): Promise<void>;
  /**
   * Each database host on its own (MySQL/MariaDB: every host of the URL, probed in parallel, each within
   * `timeoutMs`). Absent where there is no host to speak of (SQLite).
   */
  hosts?(timeoutMs?: number): Promise<HostHealth[]>;
  close(): Promise<void>;
}
