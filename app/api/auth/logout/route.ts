import { json, methodNotAllowed, route } from '@/app/_server/adminRoute';
import { SESSION_COOKIE } from '@/lib/auth/credentials';

export const dynamic = 'force-dynamic';

export const POST = route(
  async () => json({ ok: true }, 200, { 'set-cookie': `${SESSION_COOKIE}=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0` }),
  { public: true },
);

export const GET = methodNotAllowed('POST');
