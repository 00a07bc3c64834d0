/** One page of leaf_alloc by name, written once for every dialect (SQLite runs it too): the dashboard's first rows. */
import { type SQL, sql } from 'drizzle-orm';
import type { TagPageQuery } from '../../segment/tagStore';

const ALLOC = sql.identifier('leaf_alloc');

/** `!` escapes LIKE's wildcards: the same escape character reads the same in SQLite, MySQL and PostgreSQL. */
function likePattern(q: string): string {
  return `%${q.replace(/[!%_]/g, (c) => `!${c}`)}%`;
}

/** The rows a search matches (a condition on biz_tag and description). */
export function tagPageWhere(q: string): SQL {
  if (q === '') return sql`1 = 1`;
  const like = likePattern(q);
  return sql`(LOWER(biz_tag) LIKE ${like} ESCAPE '!' OR LOWER(COALESCE(description, '')) LIKE ${like} ESCAPE '!')`;
}

/** The page's rows (server dialects; SQLite selects max_id as text itself) in the database's order of biz_tag (its primary key: an index walk, not a sort of the table). */
export function tagPageRowsSql({ q, descending, offset, limit }: TagPageQuery): SQL {
  // Whole numbers already checked by the query parser: written in, as LIMIT takes no parameter on every driver.
  const bound = (n: number) => sql.raw(String(Math.max(0, Math.trunc(n))));
  return sql`SELECT biz_tag, max_id, step, description, update_time FROM ${ALLOC} WHERE ${tagPageWhere(q)}
    ORDER BY biz_tag ${sql.raw(descending ? 'DESC' : 'ASC')} LIMIT ${bound(limit)} OFFSET ${bound(offset)}`;
}

/** How many rows match `q`, and how many there are. */
export function tagPageCountSql(q: string): SQL {
  return sql`SELECT COUNT(*) AS n, (SELECT COUNT(*) FROM ${ALLOC}) AS total FROM ${ALLOC} WHERE ${tagPageWhere(q)}`;
}
