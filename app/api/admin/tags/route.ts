import { json, methodsNotAllowed, route } from '@/app/_server/adminRoute';
import { readJsonBody } from '@/lib/http/body';
import { createTagSchema } from '@/lib/admin/schema';
import { createTag, listTagViews } from '@/lib/admin/service';
import { withFleet } from '@/lib/admin/fleetViews';
import { fleetNodes } from '@/app/_server/fleet';

export const dynamic = 'force-dynamic';

export const GET = route(async ({ runtime }) => {
  const [tags, nodes] = await Promise.all([listTagViews(runtime), fleetNodes(runtime)]);
  return json({ tags: withFleet(tags, nodes) });
});

export const POST = route(async ({ request, runtime, who }) => {
  const input = await readJsonBody(request, createTagSchema);
  return json({ tag: await createTag(runtime, input, who) }, 201);
});

// Every other method: 405 JSON with Allow (Next would answer an empty 405).
export const { PUT, PATCH, DELETE } = methodsNotAllowed('GET, POST');
