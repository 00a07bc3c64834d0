import type { LeafStore } from '../leafStore';
import { SqliteAudit } from './audit';
import { SqliteClaimLog } from './claimLog';
import { SqliteExecutor, type SqliteOptions } from './executor';
import { SqliteFormats } from './formats';
import { SqliteNodes } from './nodes';
import { SqliteOrder } from './order';
import { SqliteRegionChange } from './regionChange';
import { SqliteSettings } from './settings';
import { SqliteSemantics } from './semantics';
import { SqliteTags } from './tags';
import { SqliteTokens } from './tokens';
import { SqliteSessions } from './sessions';
import { SqliteWorkers } from './workers';

export type { SqliteOptions };

/** The embedded default: one SQLite file in WAL mode, shared by processes; opening migrates it. */
export class SqliteStore implements LeafStore {
  readonly dialect = 'sqlite' as const;
  /** True when this open created the database file, e.g. to seed a demo tag on first start. */
  readonly created: boolean;
  readonly tags: SqliteTags;
  readonly semantics: SqliteSemantics;
  readonly workers: SqliteWorkers;
  readonly nodes: SqliteNodes;
  readonly formats: SqliteFormats;
  readonly tokens: SqliteTokens;
  readonly sessions: SqliteSessions;
  readonly audit: SqliteAudit;
  readonly order: SqliteOrder;
  readonly regionChange: SqliteRegionChange;
  readonly settings: SqliteSettings;
  readonly claims: SqliteClaimLog;
  private readonly exec: SqliteExecutor;

  constructor(options: SqliteOptions) {
    this.exec = new SqliteExecutor(options);
    this.created = this.exec.created;
    this.tags = new SqliteTags(this.exec);
    this.semantics = new SqliteSemantics(this.exec);
    this.workers = new SqliteWorkers(this.exec);
    this.nodes = new SqliteNodes(this.exec);
    this.formats = new SqliteFormats(this.exec);
    this.tokens = new SqliteTokens(this.exec);
    this.sessions = new SqliteSessions(this.exec);
    this.audit = new SqliteAudit(this.exec);
    this.order = new SqliteOrder(this.exec);
    this.regionChange = new SqliteRegionChange(this.exec);
    this.settings = new SqliteSettings(this.exec);
    this.claims = new SqliteClaimLog(this.exec);
  }

  async ping(): Promise<void> {
    this.exec.ping();
  }

  async close(): Promise<void> {
    this.exec.close();
  }
}
