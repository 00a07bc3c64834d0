import { json, methodsNotAllowed, route } from '@/lib/http/consoleRoute';
import { readJsonBody } from '@/lib/http/body';
import { fleetSemanticsSchema } from '@/lib/admin/schema';
import { setFleetSemantics } from '@/lib/admin/service';

export const dynamic = 'force-dynamic';

export const GET = route(async ({ runtime }) => json(await runtime.store.semantics.getSemantics()));

export const PUT = route(async ({ request, runtime, who }) => {
  const input = await readJsonBody(request, fleetSemanticsSchema);
  return json(await setFleetSemantics(runtime, input, who));
});

// Every other method: 405 JSON with Allow (Next would answer an empty 405).
export const { POST, PATCH, DELETE } = methodsNotAllowed('GET, PUT');
