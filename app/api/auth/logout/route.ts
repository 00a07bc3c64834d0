import { json, methodsNotAllowed, ownSessionId, route } from '@/lib/http/consoleRoute';
import { logout } from '@/lib/admin/sessions';
import { CLEARED_SESSION_COOKIE } from '@/lib/auth/credentials';

export const dynamic = 'force-dynamic';

/** Ends the session in the database (every node refuses the cookie from its next request), and clears the cookie. */
export const POST = route(
  async ({ runtime, who }) => {
    await logout(runtime, ownSessionId(who), who.address);
    return json({ ok: true }, 200, {
      'set-cookie': CLEARED_SESSION_COOKIE,
    });
  },
  { public: true },
);

// Every other method: 405 JSON with Allow (Next would answer an empty 405).
export const { GET, PUT, PATCH, DELETE } = methodsNotAllowed('POST');
