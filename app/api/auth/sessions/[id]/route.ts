import { json, methodsNotAllowed, route } from '@/lib/http/consoleRoute';
import { endSession } from '@/lib/admin/sessions';

export const dynamic = 'force-dynamic';

/** Ends one session (the console's "End" on a row); 404 when it is not live. */
export const DELETE = route<{ id: string }>(async ({ runtime, params, who }) => {
  await endSession(runtime, params.id, who);
  return json({ ended: params.id });
});

// Every other method: 405 JSON with Allow (Next would answer an empty 405).
export const { GET, POST, PUT, PATCH } = methodsNotAllowed('DELETE');
