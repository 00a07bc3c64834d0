import { parseBizTag } from '../bizTag';
import { LeafError } from '../errors';

/**
 * The query of `GET /api/admin/nodes`: `?tag=<bizTag>` reduces each node's tags map to that tag, `?tags=none` leaves
 * the map out (a console polling a fleet of 10,000 tags). Returns what nodeAnswer() takes: undefined (all tags),
 * a bizTag, or null (none).
 */
export function parseNodesQuery(params: URLSearchParams): string | null | undefined {
  const tag = params.get('tag');
  const tags = params.get('tags');
  if (tags !== null && tags !== 'none')
    throw new LeafError('invalid_request', 'tags may only be "none" (leave the tags map out).');
  if (tag !== null && tags !== null) throw new LeafError('invalid_request', 'Give either tag or tags=none, not both.');
  if (tag !== null) return parseBizTag(tag);
  return tags === null ? undefined : null;
}
