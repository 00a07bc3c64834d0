/** What a call that may throw a LeafError ended with, as one comparable string (one rule for every test file). */
import { isLeafError } from '../../lib/errors';

/** A promise, or a function whose call (sync or async) is the work. */
export type Work = Promise<unknown> | (() => unknown);

async function failureOf(work: Work): Promise<unknown> {
  try {
    await (typeof work === 'function' ? work() : work);
    return undefined;
  } catch (error) {
    return error ?? new Error('threw nothing');
  }
}

function describe(error: unknown, asText: (e: { code: string; status: number; message: string }) => string): string {
  if (error === undefined) return 'ok';
  return isLeafError(error) ? asText(error) : `not a LeafError: ${String(error)}`;
}

/** 'ok', or the LeafError's code. */
export async function codeOf(work: Work): Promise<string> {
  return describe(await failureOf(work), (e) => e.code);
}

/** 'ok', or the LeafError's HTTP status and code: `403 forbidden_tag`. */
export async function statusAndCodeOf(work: Work): Promise<string> {
  return describe(await failureOf(work), (e) => `${e.status} ${e.code}`);
}

/** 'ok', or the whole LeafError: `tag_not_found 404: Formatted tag "nope" does not exist.` */
export async function errorTextOf(work: Work): Promise<string> {
  return describe(await failureOf(work), (e) => `${e.code} ${e.status}: ${e.message}`);
}
