import { json, methodsNotAllowed, route } from '@/lib/http/consoleRoute';
import { forgetParticipant } from '@/lib/admin/participants';

export const dynamic = 'force-dynamic';

type Params = { id: string };

/** An operator's word that this process is gone for good: no change of ordering waits for it any more. */
export const DELETE = route<Params>(async ({ runtime, params, who }) =>
  json(await forgetParticipant(runtime, params.id, who)),
);

export const { GET, POST, PUT, PATCH } = methodsNotAllowed('DELETE');
