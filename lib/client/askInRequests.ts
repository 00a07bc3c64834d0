/** Long takes asked for now, request by request: a strict tag's and an opaque tag's (lib/client). */
import { closedError } from './errors';
import type { LeaseSource } from './leafTag';

/** The most IDs one request asks for (the batch route's limit). */
export const MAX_REQUEST = 10_000;

/**
 * `count` IDs asked for now, in requests of at most MAX_REQUEST, after those in `out`: a strict tag's and an opaque
 * tag's (`increasing` false) long takes. A close meanwhile ends it.
 */
export async function askInRequests(
  source: LeaseSource,
  name: string,
  count: number,
  increasing: boolean,
  closed: () => boolean,
  out: bigint[] = [],
): Promise<bigint[]> {
  while (out.length < count) {
    if (closed()) throw closedError();
    out.push(...(await source.take(name, Math.min(MAX_REQUEST, count - out.length), increasing)));
  }
  if (closed()) throw closedError();
  return out;
}
