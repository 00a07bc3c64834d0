/** The ID routes' answers written as strings: no JSON.stringify, no array of IDs on the hot path. */
import { type IdRanges, runBase } from '../segment/idRanges';
import { type Id, idAt } from '../segment/id';
import { type RegionStride, regionId, regionIds } from '../segment/regionIds';
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
  // Straight from the ranges: no array of IDs is built for a batch.
  const bounds = ranges.bounds;
  let body = '{"tag":"' + bizTag + '","ids":[';
  for (let r = 0; r < bounds.length; r += 2) {
    const base = runBase(ranges, r);
    const first = bounds[r] as number;
    const last = bounds[r + 1] as number;
    if (base !== null) {
      body = longRun(body, r === 0, base + BigInt(first), last - first + 1);
      continue;
    }
    if (first >= LOW_DIGITS) {
      // Past 10^9 a number is a heap double in V8, slow to print: written as a wide run is (one BigInt per run).
      body = longRun(body, r === 0, BigInt(first), last - first + 1);
      continue;
    }
    body += (r === 0 ? '"' : ',"') + first;
    for (let id = first + 1; id <= last; id++) body += '","' + id;
    body += '"';
  }
  return jsonText(body + ']}');
}

/** An ID of 10+ digits as a decimal prefix and its low 9 digits, a V8 Smi: ~2.7× faster to print near 10^17. */
const LOW_DIGITS = 1_000_000_000;
const LOW_DIGITS_BIG = 1_000_000_000n;

/** `count` consecutive IDs from `first` (≥ 10^9): the prefix once per 10^9 IDs, the low digits as a number. */
function longRun(body: string, isFirst: boolean, first: bigint, count: number): string {
  let high = first / LOW_DIGITS_BIG;
  let low = Number(first % LOW_DIGITS_BIG);
  body += (isFirst ? '"' : ',"') + high + lowDigits(low);
  // Each later ID is `","` + prefix + its low digits: the separator and the prefix joined once per prefix.
  let lead = '","' + high;
  for (let i = 1; i < count; i++) {
    if (++low === LOW_DIGITS) {
      low = 0;
      lead = '","' + ++high;
    }
    body += lead + lowDigits(low);
  }
  return body + '"';
}

/** The low 9 digits of a wide ID: the number itself, or zero-padded when below 10^8. */
function lowDigits(low: number): number | string {
  return low >= LOW_DIGITS / 10 ? low : String(LOW_DIGITS + low).slice(1);
}

/**
 * A lease: one `{start,end}` per run, so its size does not grow with the count. In a region of R, a run's IDs are
 * start, start + R, … end, and the answer says `"stride":R`.
 */
export function lease(bizTag: string, ranges: IdRanges, stride?: RegionStride | null): Answer {
  const { bounds, count } = ranges;
  const at = (base: bigint | null, p: number) => (stride == null ? idAt(base, p) : regionId(idAt(base, p), stride));
  let body = '{"tag":"' + bizTag + '","count":' + count + (stride == null ? '' : ',"stride":' + stride.regions);
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
