import { json, methodsNotAllowed, route } from '@/lib/http/consoleRoute';
import { readJsonBody } from '@/lib/http/body';
import { createTagSchema } from '@/lib/admin/schema';
import { createTag } from '@/lib/admin/service';
import { tagListAnswer } from '@/app/_server/tagList';

export const dynamic = 'force-dynamic';

/**
 * `?q=&sort=&offset=&limit=`: one page, searched and sorted on the server (lib/admin/tagList.ts), each row with
 * its fleet totals from the registry (one shared read a second, whatever the page size).
 */
export const GET = route(async ({ request, runtime }) =>
  json(await tagListAnswer(runtime, new URL(request.url).searchParams)),
);

export const POST = route(async ({ request, runtime, who }) => {
  const input = await readJsonBody(request, createTagSchema);
  return json({ tag: await createTag(runtime, input, who) }, 201);
});

// Every other method: 405 JSON with Allow (Next would answer an empty 405).
export const { PUT, PATCH, DELETE } = methodsNotAllowed('GET, POST');
