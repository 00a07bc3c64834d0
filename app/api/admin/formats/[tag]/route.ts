import { json, methodsNotAllowed, route } from '@/lib/http/consoleRoute';
import { readJsonBody } from '@/lib/http/body';
import { updateFormatSchema } from '@/lib/admin/formatSchema';
import { deleteFormat, formatDetail, updateFormat } from '@/lib/admin/formats';
import { tagFromParam } from '@/lib/admin/service';

export const dynamic = 'force-dynamic';

type Params = { tag: string };

export const GET = route<Params>(async ({ runtime, params }) =>
  json(await formatDetail(runtime, tagFromParam(params.tag))),
);

export const PATCH = route<Params>(async ({ request, runtime, params, who }) => {
  const bizTag = tagFromParam(params.tag);
  const input = await readJsonBody(request, updateFormatSchema);
  return json(await updateFormat(runtime, bizTag, input, who));
});

/** Deletes the format; its period rows stay (a re-created one continues above them). */
export const DELETE = route<Params>(async ({ runtime, params, who }) =>
  json(await deleteFormat(runtime, tagFromParam(params.tag), who)),
);

export const { POST, PUT } = methodsNotAllowed('GET, PATCH, DELETE');
