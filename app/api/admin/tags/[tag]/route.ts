import { json, methodsNotAllowed, route } from '@/app/_server/adminRoute';
import { readJsonBody } from '@/lib/http/body';
import { deleteTagSchema, updateTagSchema } from '@/lib/admin/schema';
import { deleteTag, requireTag, tagDetail, updateTag } from '@/lib/admin/service';

export const dynamic = 'force-dynamic';

type Params = { tag: string };

export const GET = route<Params>(async ({ runtime, params }) => json(await tagDetail(runtime, requireTag(params.tag))));

export const PATCH = route<Params>(async ({ request, runtime, params, who }) => {
  const bizTag = requireTag(params.tag);
  const input = await readJsonBody(request, updateTagSchema);
  return json({ tag: await updateTag(runtime, bizTag, input, who) });
});

export const DELETE = route<Params>(async ({ request, runtime, params, who }) => {
  const bizTag = requireTag(params.tag);
  const { confirm } = await readJsonBody(request, deleteTagSchema);
  return json(await deleteTag(runtime, bizTag, confirm, who));
});

// Every other method: 405 JSON with Allow (Next would answer an empty 405).
export const { POST, PUT } = methodsNotAllowed('GET, PATCH, DELETE');
