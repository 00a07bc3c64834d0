/** The value, or a clear failure naming what was missing: `defined(rows[0], 'a first row')`. */
export function defined<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`expected ${what}`);
  return value;
}
