import type { HostHealth, LeafStore } from '../leafStore';
import { type ServerExecutor, raw } from '../serverExecutor';
import { ServerAudit } from './audit';
import { ServerClaimLog } from './claimLog';
import type { ServerDialect } from './dialect';
import { ServerFormats } from './formats';
import { ServerNodes } from './nodes';
import { ServerOrder } from './order';
import { ServerRegionChange } from './regionChange';
import { ServerSettings } from './settings';
import { ServerSemantics } from './semantics';
import { ServerTags } from './tags';
import { ServerTokens } from './tokens';
import { ServerSessions } from './sessions';
import { ServerWorkers } from './workers';

/** A database server's store: the dialect's executor and one repository per concern, written once. */
export class ServerStore implements LeafStore {
  readonly dialect: ServerDialect['name'];
  readonly tags: ServerTags;
  readonly semantics: ServerSemantics;
  readonly workers: ServerWorkers;
  readonly nodes: ServerNodes;
  readonly formats: ServerFormats;
  readonly tokens: ServerTokens;
  readonly sessions: ServerSessions;
  readonly audit: ServerAudit;
  readonly order: ServerOrder;
  readonly regionChange: ServerRegionChange;
  readonly settings: ServerSettings;
  readonly claims: ServerClaimLog;

  constructor(
    private readonly exec: ServerExecutor,
    dialect: ServerDialect,
    private readonly probe: (timeoutMs: number) => Promise<HostHealth[]>,
  ) {
    this.dialect = dialect.name;
    this.tags = new ServerTags(exec, dialect);
    this.semantics = new ServerSemantics(exec, dialect);
    this.workers = new ServerWorkers(exec, dialect);
    this.nodes = new ServerNodes(exec, dialect);
    this.formats = new ServerFormats(exec, dialect);
    this.tokens = new ServerTokens(exec);
    this.sessions = new ServerSessions(exec);
    this.audit = new ServerAudit(exec);
    this.order = new ServerOrder(exec, dialect);
    this.regionChange = new ServerRegionChange(exec, dialect);
    this.settings = new ServerSettings(exec, dialect);
    this.claims = new ServerClaimLog(exec, dialect);
  }

  async ping(): Promise<void> {
    await this.exec.read(raw('SELECT 1'));
  }

  /** Every host of the URL on its own (the dialect's hosts.ts), for /api/health. */
  hosts(timeoutMs = 1_000): Promise<HostHealth[]> {
    return this.probe(timeoutMs);
  }

  close(): Promise<void> {
    return this.exec.close();
  }
}
