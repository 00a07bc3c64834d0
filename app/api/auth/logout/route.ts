import { json, methodsNotAllowed, route } from '@/lib/http/consoleRoute';
import { logout } from '@/lib/admin/sessions';
import { CLEARED_SESSION_COOKIE } from '@/lib/auth/credentials';

export const dynamic = 'force-dynamic';

/** Ends the session in the database (every node refuses the cookie from its next request), and clears the cookie. */
export const POST = route(
  async ({ runtime, who }) => {
    const sessionId = who.credential?.kind === 'session' ? who.credential.sessionId : null;
    await logout(runtime, sessionId, who.address);
    return json({ ok: true }, 200, {
      'set-cookie': CLEARED_SESSION_COOKIE,
    });
  },
  { public: true },
);

// Every other method: 405 JSON with Allow (Next would answer an empty 405).
export const { GET, PUT, PATCH, DELETE } = methodsNotAllowed('POST');
