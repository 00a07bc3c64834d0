import { json, methodsNotAllowed, ownSessionId, route } from '@/lib/http/consoleRoute';
import { endAllSessions, listSessions } from '@/lib/admin/sessions';
import { CLEARED_SESSION_COOKIE } from '@/lib/auth/credentials';

export const dynamic = 'force-dynamic';

/** The live console sessions of the current admin token (created, last seen, from where), the caller's marked. */
export const GET = route(async ({ runtime, who }) =>
  json({ sessions: await listSessions(runtime, ownSessionId(who)) }),
);

/** "Sign out everywhere": every session ends, the caller's too (its cookie is cleared). */
export const DELETE = route(async ({ runtime, who }) => {
  const ended = await endAllSessions(runtime, who);
  return json({ ended }, 200, { 'set-cookie': CLEARED_SESSION_COOKIE });
});

// Every other method: 405 JSON with Allow (Next would answer an empty 405).
export const { POST, PUT, PATCH } = methodsNotAllowed('GET, DELETE');
