import { json, methodsNotAllowed, route } from '@/lib/http/consoleRoute';
import { revokeToken } from '@/lib/admin/tokens';

export const dynamic = 'force-dynamic';

type Params = { id: string };

/** Revokes the token (the row stays, with revokedAt); revoking it again answers the row unchanged. */
export const DELETE = route<Params>(async ({ runtime, params, who }) =>
  json({ token: await revokeToken(runtime, params.id, who) }),
);

export const { GET, POST, PUT, PATCH } = methodsNotAllowed('DELETE');
