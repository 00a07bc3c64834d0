import { json, methodsNotAllowed, route } from '@/app/_server/adminRoute';
import { logout } from '@/lib/admin/sessions';
import { SESSION_COOKIE } from '@/lib/auth/credentials';

export const dynamic = 'force-dynamic';

export const POST = route(
  async ({ runtime, who }) => {
    await logout(runtime, who.actor, who.address);
    return json({ ok: true }, 200, {
      'set-cookie': `${SESSION_COOKIE}=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0`,
    });
  },
  { public: true },
);

// Every other method: 405 JSON with Allow (Next would answer an empty 405).
export const { GET, PUT, PATCH, DELETE } = methodsNotAllowed('POST');
