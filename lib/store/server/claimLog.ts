import { sql } from 'drizzle-orm';
import { SqlClaimLog } from '../rows/claimLog';
import type { ServerExecutor } from '../serverExecutor';
import type { ServerDialect } from './dialect';

/** leaf_claim on a server; the claim's own row is written by its claim (ServerDialect.claimLogged). */
export class ServerClaimLog extends SqlClaimLog {
  constructor(exec: ServerExecutor, dialect: ServerDialect) {
    super({
      all: (query) => exec.read(query),
      // A close row or a delete run again after an unknown outcome changes no answer.
      run: async (query) => (await exec.write(query, true)).affected,
      text: dialect.name === 'mysql' ? (c) => sql`CAST(${c} AS CHAR)` : (c) => sql`CAST(${c} AS TEXT)`,
      nowMs: dialect.nowMs,
    });
  }
}
