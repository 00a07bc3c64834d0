/**
 * The parts of a running node the admin functions take, each typed by its own port: a function names the few it
 * uses (`Pick<NodeParts, 'store' | 'segments'>`), and nothing here imports the runtime that holds them.
 */
import type { OpaqueKeyRing } from '../opaque/keyRing';
import type { AdminToken } from '../auth/adminToken';
import type { TokenStore } from '../auth/tokenStore';
import type { TokenRefresher } from '../auth/tokenRefresh';
import type { FormatEngine } from '../format/engine';
import type { FormatStore } from '../format/formatStore';
import type { Logger } from '../log';
import type { LoadLog } from '../metrics/loadLog';
import type { RateTracker } from '../metrics/rateTracker';
import type { OrderStore } from '../ordered/orderStore';
import type { SegmentEngine } from '../segment/engine';
import type { SemanticsStore } from '../segment/semanticsStore';
import type { TagStore } from '../segment/tagStore';
import type { AuditStore } from './auditStore';

export interface NodeParts {
  store: {
    tags: TagStore;
    semantics: SemanticsStore;
    audit: AuditStore;
    formats: FormatStore;
    tokens: TokenStore;
    order: OrderStore;
  };
  segments: SegmentEngine;
  /** Strict tags (lib/ordered): re-read after a change here, so this node applies it at once. */
  ordered: { poll(): Promise<void> };
  formats: FormatEngine;
  tokens: TokenRefresher;
  logger: Logger;
  /** This node's id, which its audit entries carry. */
  config: { node: { id: string }; opaqueKeys?: Pick<OpaqueKeyRing, 'current' | 'ids'> | null };
  console: { rates: RateTracker; loadLog: LoadLog; admin: AdminToken };
}
