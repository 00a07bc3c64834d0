/** The ID routes' answers written as strings: no JSON.stringify, no array of IDs on the hot path. */
import { type IdRanges, runBase } from '../segment/idRanges';
import { type Id, idAt } from '../segment/id';
import { type RegionStride, regionId, regionIds } from '../segment/regionIds';
import { type AsciiWriter, ascii } from '../asciiWriter';
import { type Answer, jsonText, plainText } from './answer';

// An ID is a number, or a bigint above 2^53−1: string concatenation writes either in decimal.
export function single(bizTag: string, id: Id | string, plain: boolean, stride?: RegionStride | null): Answer {
  if (stride != null && typeof id !== 'string') id = regionId(id, stride);
  if (plain) return plainText(String(id));
  return jsonText('{"tag":"' + bizTag + '","id":"' + id + '"}');
}

export function batch(bizTag: string, ranges: IdRanges, stride?: RegionStride | null): Answer {
  if (stride != null)
    return jsonText('{"tag":"' + bizTag + '","ids":["' + regionIds(ranges, stride).join('","') + '"]}');
  // Straight from the ranges, as bytes: no array of IDs and no string per ID (lib/asciiWriter.ts).
  const open = '{"tag":"' + bizTag + '","ids":[';
  const w = ascii.start(open.length + 2 + ranges.count * 22);
  w.text(open);
  const bounds = ranges.bounds;
  for (let r = 0; r < bounds.length; r += 2) {
    const base = runBase(ranges, r);
    const first = bounds[r] as number;
    run(w, r === 0, base === null ? first : base + BigInt(first), (bounds[r + 1] as number) - first + 1);
  }
  w.text(']}');
  return jsonText(w.done());
}

const LOW_DIGITS = 1_000_000_000;
const LOW_DIGITS_BIG = 1_000_000_000n;

/**
 * `count` consecutive IDs from `first`, each quoted: an ID is its decimal prefix above 10^9 (written once per 10^9
 * IDs, as bytes) and its low nine digits, so no ID is printed as a heap double or a bigint.
 */
function run(w: AsciiWriter, isFirst: boolean, first: Id, count: number): void {
  let high: number | bigint;
  let low: number;
  if (typeof first === 'number') {
    high = Math.floor(first / LOW_DIGITS);
    low = first - high * LOW_DIGITS;
  } else {
    high = first / LOW_DIGITS_BIG;
    low = Number(first - high * LOW_DIGITS_BIG);
  }
  let prefix = high === 0 || high === 0n ? null : Buffer.from(String(high), 'latin1');
  for (let i = 0; i < count; i++) {
    w.quotedId(i === 0 && isFirst, prefix, low);
    if (++low === LOW_DIGITS) {
      low = 0;
      high = typeof high === 'number' ? high + 1 : high + 1n;
      prefix = Buffer.from(String(high), 'latin1');
    }
  }
}

/**
 * A lease: one `{start,end}` per run, so its size does not grow with the count. In a region of R, a run's IDs are
 * start, start + R, … end, and the answer says `"stride":R`.
 */
export function lease(bizTag: string, ranges: IdRanges, stride?: RegionStride | null, validMs?: number): Answer {
  const { bounds, count } = ranges;
  const at = (base: bigint | null, p: number) => (stride == null ? idAt(base, p) : regionId(idAt(base, p), stride));
  let body = '{"tag":"' + bizTag + '","count":' + count + (stride == null ? '' : ',"stride":' + stride.regions);
  // How long from asking the holder may hand the IDs out: the claim log's time answers count on it.
  if (validMs !== undefined) body += ',"validMs":' + validMs;
  body += ',"ranges":[';
  for (let r = 0; r < bounds.length; r += 2) {
    const base = runBase(ranges, r);
    body +=
      (r === 0 ? '{"start":"' : ',{"start":"') +
      at(base, bounds[r] as number) +
      '","end":"' +
      at(base, bounds[r + 1] as number) +
      '"}';
  }
  return jsonText(body + ']}');
}

// A formatted ID holds the pattern's literal text, which may need JSON escaping (quotes, backslashes, non-ASCII).
export function formattedSingle(bizTag: string, id: string): Answer {
  return jsonText('{"tag":"' + bizTag + '","id":' + JSON.stringify(id) + '}');
}

/** Whether JSON must escape a character of `text` inside a string: a quote, a backslash or a control character. */
function needsEscape(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 || c === 0x22 || c === 0x5c) return true;
  }
  return false;
}

export function formattedBatch(bizTag: string, ids: string[]): Answer {
  // The IDs of one batch come from one period's renderer: they share every character but the date and sequence
  // digits, so when the first needs no escaping none does, and the body is joined directly (JSON.stringify of the
  // array cost ~2.5× the whole rendering).
  if (ids.length === 0 || needsEscape(ids[0]!))
    return jsonText('{"tag":"' + bizTag + '","ids":' + JSON.stringify(ids) + '}');
  let body = '{"tag":"' + bizTag + '","ids":["' + ids[0];
  for (let k = 1; k < ids.length; k++) body += '","' + ids[k];
  return jsonText(body + '"]}');
}

export function snowflakeSingle(id: bigint, plain: boolean): Answer {
  if (plain) return plainText(id.toString());
  return jsonText('{"id":"' + id + '"}');
}

export function snowflakeBatch(ids: bigint[]): Answer {
  let body = '{"ids":["' + ids[0];
  for (let i = 1; i < ids.length; i++) body += '","' + ids[i];
  return jsonText(body + '"]}');
}
