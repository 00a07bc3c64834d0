/** Correctness probes: the IDs a response body carries, checked against the row's kind. */
import { BATCH, TAG } from './config';

/**
 * What a row's responses carry: `seq` one decimal ID (`{"tag","id"}`), `batch` BATCH increasing ones
 * (`{"tag","ids"}`), `snowflake` one 63-bit decimal ID (`{"id"}`), `uuid` a v4 UUID (`{"tag","id"}`), `constant`
 * the constant route's fixed `{"tag":"demo","id":"1"}`, `formatted` one formatted ID (FORMAT_PATTERN, `{"tag","id"}`),
 * `formattedBatch` BATCH of them, increasing (`{"tag","ids"}`), `permutedBatch` BATCH decimal IDs of an opaque tag, in no
 * order but none twice.
 */
export type IdKind =
  'seq' | 'batch' | 'permutedBatch' | 'snowflake' | 'uuid' | 'constant' | 'formatted' | 'formattedBatch';
/** What FORMAT_PATTERN renders: the date in the format's zone, then nine digits of the period's sequence. */
export const FORMATTED = /^BENCH-\d{8}-\d{9}$/;

/** IDs per response of a row of this kind. */
export function idsPerResponse(kind: IdKind): number {
  return kind === 'batch' || kind === 'permutedBatch' || kind === 'formattedBatch' ? BATCH : 1;
}
export const DECIMAL = /^[1-9]\d*$/;
export const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** The IDs of one response body; null for an error body; a string saying what is wrong with a malformed one. */
export function idsOf(text: string, kind: IdKind, tag: string = TAG): string[] | string | null {
  let body: { tag?: unknown; id?: unknown; ids?: unknown; error?: unknown };
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    return `not JSON: ${text.slice(0, 80)}`;
  }
  if (body.error !== undefined) return null;
  if (kind !== 'snowflake' && body.tag !== tag) return `tag ${JSON.stringify(body.tag)}`;
  if (kind === 'batch') {
    const ids = body.ids;
    if (!Array.isArray(ids) || ids.length !== BATCH) return `ids is not an array of ${BATCH}`;
    // BigInt: a tag above 2^53 (the wide rows) has IDs a double cannot tell apart.
    let prev = 0n;
    for (const s of ids) {
      if (typeof s !== 'string' || !DECIMAL.test(s) || BigInt(s) <= prev)
        return `ids not increasing at ${JSON.stringify(s)}`;
      prev = BigInt(s);
    }
    return ids as string[];
  }
  if (kind === 'permutedBatch') {
    const ids = body.ids;
    if (!Array.isArray(ids) || ids.length !== BATCH) return `ids is not an array of ${BATCH}`;
    for (const s of ids) if (typeof s !== 'string' || !DECIMAL.test(s)) return `id ${JSON.stringify(s)}`;
    if (new Set(ids).size !== ids.length) return 'an ID twice in one answer';
    return ids as string[];
  }
  if (kind === 'formattedBatch') {
    const ids = body.ids;
    if (!Array.isArray(ids) || ids.length !== BATCH) return `ids is not an array of ${BATCH}`;
    // One fixed-width pattern: string order is the order of (date, sequence).
    let prev = '';
    for (const s of ids) {
      if (typeof s !== 'string' || !FORMATTED.test(s) || s <= prev) return `ids not increasing at ${JSON.stringify(s)}`;
      prev = s;
    }
    return ids as string[];
  }
  const id = body.id;
  if (typeof id !== 'string') return `id ${JSON.stringify(id)}`;
  if (kind === 'formatted') return FORMATTED.test(id) ? [id] : `id ${JSON.stringify(id)}`;
  if (kind === 'uuid' ? !UUID_V4.test(id) : !DECIMAL.test(id) || (kind === 'constant' && id !== '1'))
    return `id ${JSON.stringify(id)}`;
  if ((kind === 'snowflake' || kind === 'seq') && BigInt(id) >= 1n << 63n) return `id ${id} is not below 2^63`;
  return [id];
}

/** Fetches one response and returns its first and last ID, checking the JSON shape. */
export async function probe(url: string, kind: IdKind, tag: string = TAG): Promise<{ first: string; last: string }> {
  const r = await fetch(url);
  const text = await r.text();
  if (r.status !== 200) throw new Error(`probe ${url}: HTTP ${r.status} ${text.slice(0, 200)}`);
  const ids = idsOf(text, kind, tag);
  if (ids === null || typeof ids === 'string') throw new Error(`probe ${url}: ${ids ?? text.slice(0, 200)}`);
  const first = ids[0];
  const last = ids.at(-1);
  if (first === undefined || last === undefined) throw new Error(`probe ${url}: no IDs in ${text.slice(0, 200)}`);
  return { first, last };
}
