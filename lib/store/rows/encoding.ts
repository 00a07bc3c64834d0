/** leaf_encoding statements, written once for every dialect (SQLite runs them too). */
import { type SQL, sql } from 'drizzle-orm';
import { type OpaqueEncoding, type TagEncoding, encodingFromRow } from '../../opaque/encoding';

const ENCODING = sql.identifier('leaf_encoding');

export interface RawEncodingRow {
  encoding: string;
  key_id: string;
}

/** The row, locked for a creation where the dialect has `FOR UPDATE` (SQLite's writer holds the file already). */
export const selectEncodingSql = (bizTag: string, forUpdate: boolean): SQL =>
  sql`SELECT encoding, key_id FROM ${ENCODING} WHERE biz_tag = ${bizTag}${forUpdate ? sql` FOR UPDATE` : sql``}`;

export const insertEncodingSql = (bizTag: string, e: OpaqueEncoding): SQL =>
  sql`INSERT INTO ${ENCODING} (biz_tag, encoding, key_id) VALUES (${bizTag}, ${e.encoding}, ${e.keyId})`;

export const selectAllEncodingsSql = (): SQL => sql`SELECT biz_tag, encoding, key_id FROM ${ENCODING}`;

export function encodingMap(rows: ReadonlyArray<RawEncodingRow & { biz_tag: string }>): Map<string, OpaqueEncoding> {
  return new Map(rows.map((r) => [r.biz_tag, encodingFromRow(r.biz_tag, r.encoding, r.key_id)]));
}

export function encodingOfRows(bizTag: string, rows: readonly RawEncodingRow[]): TagEncoding {
  const row = rows[0];
  return row === undefined ? null : encodingFromRow(bizTag, row.encoding, row.key_id);
}
