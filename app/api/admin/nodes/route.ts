import { json, methodsNotAllowed, route } from '@/lib/http/consoleRoute';
import { nodeAnswer } from '@/lib/fleet/nodeView';
import { parseNodesQuery } from '@/lib/fleet/nodesQuery';

export const dynamic = 'force-dynamic';

/** Every node of the fleet registry, sorted by node id: `?tag=<bizTag>` for one tag, `?tags=none` for none. */
export const GET = route(async ({ request, runtime }) => {
  const tags = parseNodesQuery(new URL(request.url).searchParams);
  const nodes = await runtime.fleet.nodes();
  return json({ nodes: nodes.map((n) => nodeAnswer(n, tags)) });
});

// Every other method: 405 JSON with Allow (Next would answer an empty 405).
export const { POST, PUT, PATCH, DELETE } = methodsNotAllowed('GET');
