import { json, methodsNotAllowed, route } from '@/lib/http/consoleRoute';
import { readJsonBody } from '@/lib/http/body';
import { createFormatSchema } from '@/lib/admin/formatSchema';
import { createFormat, listFormats } from '@/lib/admin/formats';

export const dynamic = 'force-dynamic';

export const GET = route(async ({ runtime }) => json({ formats: await listFormats(runtime) }));

export const POST = route(async ({ request, runtime, who }) => {
  const input = await readJsonBody(request, createFormatSchema);
  return json(await createFormat(runtime, input, who), 201);
});

export const { PUT, PATCH, DELETE } = methodsNotAllowed('GET, POST');
