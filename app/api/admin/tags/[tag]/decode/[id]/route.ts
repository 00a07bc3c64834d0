import { json, methodsNotAllowed, route } from '@/lib/http/consoleRoute';
import { tagFromParam } from '@/lib/admin/service';
import { decodeTagId } from '@/lib/admin/tagDecode';
import { formIn } from '@/lib/http/idForm';

export const dynamic = 'force-dynamic';

/** What an ID of the tag stands for: an opaque ID's sequence number, a short form's value, the region it is of. */
export const GET = route<{ tag: string; id: string }>(async ({ request, runtime, params }) => {
  const bizTag = tagFromParam(params.tag);
  const url = new URL(request.url);
  const query = url.search;
  const format = formIn(query, query === '' ? -1 : 0);
  return json(await decodeTagId(runtime, bizTag, params.id, format));
});

export const { POST, PUT, PATCH, DELETE } = methodsNotAllowed('GET');
