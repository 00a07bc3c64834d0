import { type SQL, sql } from 'drizzle-orm';
import type { ClaimLogStore, LoggedClaim } from '../../claims/claimLogStore';
import type { Claimer } from '../../claims/claimNote';
import {
  type RawClaimRow,
  type RawNumbering,
  containingSql,
  insertCloseSql,
  liveBetweenSql,
  loggedClaim,
  numberingsSql,
  oldestOf,
  positionIn,
  pruneClaimsSql,
  pruneClosesSql,
} from '../rows/claimLog';
import type { ServerExecutor } from '../serverExecutor';
import type { ServerDialect } from './dialect';

/** leaf_claim on a server; the claim's own row is written by ServerTags.allocate. */
export class ServerClaimLog implements ClaimLogStore {
  private readonly text: (column: SQL) => SQL;

  constructor(
    private readonly exec: ServerExecutor,
    private readonly dialect: ServerDialect,
  ) {
    this.text = dialect.name === 'mysql' ? (c) => sql`CAST(${c} AS CHAR)` : (c) => sql`CAST(${c} AS TEXT)`;
  }

  async liveBetween(bizTag: string, fromMs: number, toMs: number): Promise<LoggedClaim[]> {
    return (await this.exec.read<RawClaimRow>(liveBetweenSql(bizTag, fromMs, toMs, this.text))).map(loggedClaim);
  }

  async containing(bizTag: string, id: bigint): Promise<LoggedClaim[]> {
    const numberings = await this.exec.read<RawNumbering>(numberingsSql(bizTag, this.text));
    const found = await Promise.all(
      numberings.map(async (n) => {
        const position = positionIn(id, Number(n.region), Number(n.regions));
        if (position === null) return [];
        const rows = await this.exec.read<RawClaimRow>(
          containingSql(bizTag, position, Number(n.region), Number(n.regions), this.text),
        );
        return rows.map(loggedClaim);
      }),
    );
    return found.flat();
  }

  async oldest(bizTag: string): Promise<number | null> {
    return oldestOf(await this.exec.read<RawNumbering>(numberingsSql(bizTag, this.text)));
  }

  async recordClose(claimer: Claimer): Promise<void> {
    // Written once: a second close row after an unknown outcome changes no answer.
    await this.exec.write(insertCloseSql(claimer, this.dialect.nowMs), true);
  }

  async prune(beforeMs: number): Promise<number> {
    const claims = await this.exec.write(pruneClaimsSql(beforeMs), true);
    const closes = await this.exec.write(pruneClosesSql(beforeMs), true);
    return claims.affected + closes.affected;
  }
}
