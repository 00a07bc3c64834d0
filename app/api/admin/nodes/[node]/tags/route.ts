import { json, methodsNotAllowed, route } from '@/lib/http/consoleRoute';
import { fleetNodes } from '@/app/_server/fleet';
import { NODE_TAGS_MAX_LIMIT, nodeTagsPage } from '@/lib/admin/fleetViews';
import { LeafError } from '@/lib/errors';

export const dynamic = 'force-dynamic';

type Params = { node: string };

/** A page of one node's tags (`?q=` part of the name, `?limit=` 1–500, default 50), shortest runway first. */
export const GET = route<Params>(async ({ request, runtime, params }) => {
  const url = new URL(request.url);
  const q = url.searchParams.get('q') ?? undefined;
  const rawLimit = url.searchParams.get('limit');
  let limit: number | undefined;
  if (rawLimit !== null) {
    limit = Number(rawLimit);
    if (!/^\d+$/.test(rawLimit) || limit < 1 || limit > NODE_TAGS_MAX_LIMIT) {
      throw new LeafError('invalid_request', `limit must be a whole number from 1 to ${NODE_TAGS_MAX_LIMIT}.`, {
        fields: { limit: `A whole number from 1 to ${NODE_TAGS_MAX_LIMIT}.` },
      });
    }
  }
  return json(nodeTagsPage(await fleetNodes(runtime), params.node, { q, limit }));
});

// Every other method: 405 JSON with Allow (Next would answer an empty 405).
export const { POST, PUT, PATCH, DELETE } = methodsNotAllowed('GET');
