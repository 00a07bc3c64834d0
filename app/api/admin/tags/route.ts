import { json, methodsNotAllowed, route } from '@/app/_server/adminRoute';
import { readJsonBody } from '@/lib/http/body';
import { createTagSchema } from '@/lib/admin/schema';
import { createTag, listTags } from '@/lib/admin/service';
import { parseTagListQuery } from '@/lib/admin/tagList';

export const dynamic = 'force-dynamic';

/** `?q=&sort=&offset=&limit=`: one page, searched and sorted on the server (lib/admin/tagList.ts). */
export const GET = route(async ({ request, runtime }) => json(await listTags(runtime, parseTagListQuery(new URL(request.url).searchParams))));

export const POST = route(async ({ request, runtime }) => {
  const input = await readJsonBody(request, createTagSchema);
  return json({ tag: await createTag(runtime, input) }, 201);
});

// Every other method: 405 JSON with Allow (Next would answer an empty 405).
export const { PUT, PATCH, DELETE } = methodsNotAllowed('GET, POST');
