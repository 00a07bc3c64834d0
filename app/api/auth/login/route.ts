import { json, methodsNotAllowed, route } from '@/app/_server/adminRoute';
import { readJsonBody } from '@/lib/http/body';
import { loginSchema } from '@/lib/admin/schema';
import { SESSION_COOKIE, createSessionValue, secretEquals } from '@/lib/auth/credentials';
import { LeafError } from '@/lib/errors';

export const dynamic = 'force-dynamic';

export const POST = route(
  async ({ request, runtime }) => {
    const { token } = await readJsonBody(request, loginSchema);
    if (!secretEquals(token, runtime.admin.token)) throw new LeafError('unauthorized', 'Wrong token.');
    const { value } = createSessionValue(runtime.admin.token, Date.now());
    const secure = new URL(request.url).protocol === 'https:' || request.headers.get('x-forwarded-proto') === 'https';
    const cookie = `${SESSION_COOKIE}=${value}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${12 * 60 * 60}${secure ? '; Secure' : ''}`;
    return json({ ok: true }, 200, { 'set-cookie': cookie });
  },
  { public: true },
);

// Every other method: 405 JSON with Allow (Next would answer an empty 405).
export const { GET, PUT, PATCH, DELETE } = methodsNotAllowed('POST');
