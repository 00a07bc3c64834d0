import { type SQL, sql } from 'drizzle-orm';
import type { ClaimLogStore } from '../../claims/claimLogStore';
import type { Claimer } from '../../claims/claimNote';
import type { ClaimRow } from '../../claims/retirement';
import {
  DELETE_CHUNK,
  type RawClaimRow,
  type RawNumbering,
  claimRow,
  deleteRowsSql,
  holdingSql,
  insertCloseSql,
  numberingsSql,
  oldestOf,
  positionIn,
  retirersSql,
  rowsBeforeSql,
  rowsUpToSql,
  uniqueRows,
} from '../rows/claimLog';
import type { ServerExecutor } from '../serverExecutor';
import type { ServerDialect } from './dialect';

/** leaf_claim on a server; the claim's own row is written by its claim (ServerDialect.claimLogged). */
export class ServerClaimLog implements ClaimLogStore {
  private readonly text: (column: SQL) => SQL;

  constructor(
    private readonly exec: ServerExecutor,
    private readonly dialect: ServerDialect,
  ) {
    this.text = dialect.name === 'mysql' ? (c) => sql`CAST(${c} AS CHAR)` : (c) => sql`CAST(${c} AS TEXT)`;
  }

  private async rows(query: SQL): Promise<ClaimRow[]> {
    return (await this.exec.read<RawClaimRow>(query)).map(claimRow);
  }

  rowsUpTo(bizTag: string, toMs: number): Promise<ClaimRow[]> {
    return this.rows(rowsUpToSql(bizTag, toMs, this.text));
  }

  async rowsHolding(bizTag: string, id: bigint): Promise<ClaimRow[]> {
    const numberings = await this.exec.read<RawNumbering>(numberingsSql(bizTag, this.text));
    const holding = (
      await Promise.all(
        numberings.map((n) => {
          const position = positionIn(id, Number(n.region), Number(n.regions));
          return position === null
            ? []
            : this.rows(holdingSql(bizTag, position, Number(n.region), Number(n.regions), this.text));
        }),
      )
    ).flat();
    const retirers = await Promise.all(holding.flatMap((c) => retirersSql(c, this.text).map((q) => this.rows(q))));
    return uniqueRows([...holding, ...retirers.flat()]);
  }

  rowsBefore(beforeMs: number): Promise<ClaimRow[]> {
    return this.rows(rowsBeforeSql(beforeMs, this.text));
  }

  async deleteRows(ids: readonly number[]): Promise<number> {
    let deleted = 0;
    for (let i = 0; i < ids.length; i += DELETE_CHUNK) {
      // Deleting again after an unknown outcome deletes nothing more.
      deleted += (await this.exec.write(deleteRowsSql(ids.slice(i, i + DELETE_CHUNK)), true)).affected;
    }
    return deleted;
  }

  async oldest(bizTag: string): Promise<number | null> {
    return oldestOf(await this.exec.read<RawNumbering>(numberingsSql(bizTag, this.text)));
  }

  async recordClose(claimer: Claimer): Promise<void> {
    // Written once: a second close row after an unknown outcome changes no answer.
    await this.exec.write(insertCloseSql(claimer, this.dialect.nowMs), true);
  }
}
