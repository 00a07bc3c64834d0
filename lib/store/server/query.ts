import { SQL, sql } from 'drizzle-orm';

/** SQL for both server dialects, written once: values become parameters, names quoted per dialect. */
export const TABLE = {
  alloc: sql.identifier('leaf_alloc'),
  tombstone: sql.identifier('leaf_alloc_tombstone'),
  worker: sql.identifier('leaf_worker'),
  node: sql.identifier('leaf_node'),
  audit: sql.identifier('leaf_audit'),
  semantics: sql.identifier('leaf_semantics'),
  token: sql.identifier('leaf_token'),
  session: sql.identifier('leaf_session'),
  format: sql.identifier('leaf_format'),
  period: sql.identifier('leaf_format_period'),
  order: sql.identifier('leaf_order'),
  setting: sql.identifier('leaf_setting'),
  participant: sql.identifier('leaf_participant'),
} as const;

export type TableName = (typeof TABLE)[keyof typeof TABLE];

/** A row to write, by column name: a plain value goes as a parameter, an SQL fragment as it is. */
export type Columns = Readonly<Record<string, unknown>>;

const value = (v: unknown): SQL => (v instanceof SQL ? v : sql`${v}`);

/** `(a, b) VALUES (?, ?)` of `row`. */
export function valuesOf(row: Columns): SQL {
  const names = Object.keys(row).map((c) => sql.identifier(c));
  return sql`(${sql.join(names, sql`, `)}) VALUES (${sql.join(Object.values(row).map(value), sql`, `)})`;
}

/** `a = ?, b = ?` of `row`. */
export function assignments(row: Columns): SQL {
  return sql.join(
    Object.entries(row).map(([c, v]) => sql`${sql.identifier(c)} = ${value(v)}`),
    sql`, `,
  );
}

/** `(?, ?, …)` of `values`, for IN. */
export function list(values: readonly unknown[]): SQL {
  return sql`(${sql.join(values.map(value), sql`, `)})`;
}

/** `a = ? AND b = ?` of `row`. */
export function matching(row: Columns): SQL {
  return sql.join(
    Object.entries(row).map(([c, v]) => sql`${sql.identifier(c)} = ${value(v)}`),
    sql` AND `,
  );
}
