import { parseBizTag } from '../bizTag';
import { LeafError } from '../errors';

/** `?tag=` keeps one tag of each node's map, `?tags=none` leaves it out: undefined (all), a bizTag, or null (none). */
export function parseNodesQuery(params: URLSearchParams): string | null | undefined {
  const tag = params.get('tag');
  const tags = params.get('tags');
  if (tags !== null && tags !== 'none')
    throw new LeafError('invalid_request', 'tags may only be "none" (leave the tags map out).');
  if (tag !== null && tags !== null) throw new LeafError('invalid_request', 'Give either tag or tags=none, not both.');
  if (tag !== null) return parseBizTag(tag);
  return tags === null ? undefined : null;
}
