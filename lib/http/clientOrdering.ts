/**
 * `GET /api/id/ordering?client=ID&acked=V`: a `@leaf-ts/client`'s vouch renewed, and which tags are strict now (of
 * those its credential covers), at the ordering version this node has applied (docs/design.md#ordered-tags).
 * `&bye=1`: the client closed and holds nothing any more.
 */
import { ALL_ROUTES, type Grant } from '../auth/scopedTokens';
import { LeafError } from '../errors';
import { checkClientId } from '../ordered/clientVouches';
import type { OrderedTags } from '../ordered/orderedTags';
import { type Answer, jsonOk } from './answer';

export interface OrderingQuery {
  client: string;
  acked: number;
  bye: boolean;
}

const PARAMS = new Set(['client', 'acked', 'bye']);

/** The query of the ordering route, every refusal a 400 naming the parameter. */
export function orderingQuery(url: string, q: number): OrderingQuery {
  const params = new URLSearchParams(q === -1 ? '' : url.slice(q + 1));
  for (const key of params.keys()) {
    if (!PARAMS.has(key))
      throw new LeafError('invalid_request', `Unknown parameter "${key}": give client, acked, bye.`);
    if (params.getAll(key).length > 1) throw new LeafError('invalid_request', `Give ${key} once.`);
  }
  const client = params.get('client');
  if (client === null) throw new LeafError('invalid_request', 'client is required: the id of the LeafClient asking.');
  checkClientId(client);
  const ackedText = params.get('acked') ?? '0';
  if (!/^(0|[1-9][0-9]{0,14})$/.test(ackedText))
    throw new LeafError('invalid_request', 'acked must be an ordering version: a whole number from 0.');
  const byeText = params.get('bye');
  if (byeText !== null && byeText !== '1') throw new LeafError('invalid_request', 'bye must be 1 when given.');
  return { client, acked: Number(ackedText), bye: byeText === '1' };
}

export function orderingAnswer(ordered: OrderedTags | undefined, query: OrderingQuery, grant: Grant): Answer {
  if (ordered === undefined) throw new LeafError('not_ready', 'This node runs no ordered tags; try another.');
  if (query.bye) {
    ordered.clientGone(query.client);
    return jsonOk({ client: query.client, gone: true });
  }
  const covers = grant === ALL_ROUTES ? () => true : (bizTag: string) => grant.has(bizTag);
  return jsonOk(ordered.clientOrdering(query.client, query.acked, covers));
}
