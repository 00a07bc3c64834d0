import { json, methodNotAllowed, readBody, route } from '@/app/_server/adminRoute';
import { deleteTagSchema, updateTagSchema } from '@/lib/admin/schema';
import { deleteTag, requireTag, tagDetail, updateTag } from '@/lib/admin/service';

export const dynamic = 'force-dynamic';

type Params = { tag: string };

export const GET = route<Params>(async ({ runtime, params }) => json(await tagDetail(runtime, requireTag(params.tag))));

export const PATCH = route<Params>(async ({ request, runtime, params }) => {
  const bizTag = requireTag(params.tag);
  const input = await readBody(request, updateTagSchema);
  return json({ tag: await updateTag(runtime, bizTag, input) });
});

export const DELETE = route<Params>(async ({ request, runtime, params }) => {
  const bizTag = requireTag(params.tag);
  const { confirm } = await readBody(request, deleteTagSchema);
  return json(await deleteTag(runtime, bizTag, confirm));
});

export const POST = methodNotAllowed('GET, PATCH, DELETE');
export const PUT = methodNotAllowed('GET, PATCH, DELETE');
