import { LeafError } from '../errors';
import { type Id, parseId } from '../segment/id';

/** A BIGINT read as text (or a small number) as an exact Id: a number up to 2^53−1, a bigint above. */
export function exactId(value: unknown, bizTag: string): Id {
  const id = parseId(value);
  if (id === undefined)
    throw new LeafError('store_unavailable', `Tag "${bizTag}" has max_id ${String(value)}, not a BIGINT.`);
  return id;
}
