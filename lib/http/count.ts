/** The `count` of an ID route's query string, read without a URL object; every refusal a 400 `invalid_count`. */
import { MAX_COUNT, MAX_LEASE_COUNT, readableLimit } from '../bizTag';
import { LeafError } from '../errors';

/** `count` of the query string that starts after `q` (-1: no query); 0 when absent. */
export function countIn(url: string, q: number): number {
  return q === -1 ? 0 : parseCount(url, q + 1, MAX_COUNT);
}

/** A range lease's `count`: required, 1 to MAX_LEASE_COUNT. */
export function leaseCountIn(url: string, q: number): number {
  const n = q === -1 ? 0 : parseCount(url, q + 1, MAX_LEASE_COUNT);
  if (n === 0) throw invalidCount(MAX_LEASE_COUNT);
  return n;
}

/** No count any route accepts is longer; a longer one is refused before it is read. */
const MAX_COUNT_DIGITS = String(MAX_LEASE_COUNT).length;

/** 0 when absent; refuses repeats, signs, decimals and values above `max`. */
function parseCount(url: string, from: number, max: number): number {
  let found: string | null = null;
  let start = from;
  while (start <= url.length) {
    let end = url.indexOf('&', start);
    if (end === -1) end = url.length;
    if (url.startsWith('count=', start) || (end - start === 5 && url.startsWith('count', start))) {
      if (found !== null) throw invalidCount(max);
      found = url.slice(start + 6, end);
    }
    start = end + 1;
  }
  if (found === null) return 0;
  if (found.includes('%')) {
    // Percent-encoded digits mean the same number on both lanes (Next decodes the query before its handlers).
    try {
      found = decodeURIComponent(found);
    } catch {
      throw invalidCount(max);
    }
  }
  if (found.length === 0 || found.length > MAX_COUNT_DIGITS) throw invalidCount(max);
  let n = 0;
  for (let i = 0; i < found.length; i++) {
    const c = found.charCodeAt(i) - 48;
    if (c < 0 || c > 9 || (i === 0 && c === 0)) throw invalidCount(max);
    n = n * 10 + c;
  }
  if (n > max) throw invalidCount(max);
  return n;
}

function invalidCount(max: number): LeafError {
  // One way to write a limit in every message: with separators (10,000 and 10,000,000 alike).
  return new LeafError('invalid_count', `count must be a whole number from 1 to ${readableLimit(max)}.`);
}
