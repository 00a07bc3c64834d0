import { json, methodsNotAllowed, route } from '@/lib/http/consoleRoute';
import { readJsonBody } from '@/lib/http/body';
import { deleteTagSchema, updateTagSchema } from '@/lib/admin/schema';
import { deleteTag, tagFromParam, tagDetail, updateTag } from '@/lib/admin/service';
import { tagFleetDetail } from '@/lib/admin/fleetViews';
import { fleetTag } from '@/lib/fleet/runway';
import { fleetNodes } from '@/app/_server/fleet';

export const dynamic = 'force-dynamic';

type Params = { tag: string };

export const GET = route<Params>(async ({ runtime, params }) => {
  const bizTag = tagFromParam(params.tag);
  const [detail, nodes] = await Promise.all([tagDetail(runtime, bizTag), fleetNodes(runtime)]);
  return json({
    ...detail,
    tag: { ...detail.tag, fleet: fleetTag(nodes, bizTag) },
    fleet: tagFleetDetail(nodes, bizTag, runtime.config.runwayWarnSeconds),
  });
});

export const PATCH = route<Params>(async ({ request, runtime, params, who }) => {
  const bizTag = tagFromParam(params.tag);
  const input = await readJsonBody(request, updateTagSchema);
  return json({ tag: await updateTag(runtime, bizTag, input, who) });
});

export const DELETE = route<Params>(async ({ request, runtime, params, who }) => {
  const bizTag = tagFromParam(params.tag);
  const { confirm } = await readJsonBody(request, deleteTagSchema);
  return json(await deleteTag(runtime, bizTag, confirm, who));
});

// Every other method: 405 JSON with Allow (Next would answer an empty 405).
export const { POST, PUT } = methodsNotAllowed('GET, PATCH, DELETE');
