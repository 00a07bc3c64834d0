import { json, methodsNotAllowed, route } from '@/app/_server/adminRoute';
import { readJsonBody } from '@/lib/http/body';
import { isSecureRequest } from '@/lib/http/origin';
import { loginSchema } from '@/lib/admin/schema';
import { login } from '@/lib/admin/sessions';
import { SESSION_COOKIE, SESSION_TTL_MS } from '@/lib/auth/credentials';
import { processLoginThrottle } from '@/lib/auth/loginThrottle';

export const dynamic = 'force-dynamic';

export const POST = route(
  async ({ request, runtime, who }) => {
    const { token } = await readJsonBody(request, loginSchema);
    const { value } = await login(runtime, processLoginThrottle(), token, who.address);
    const secure = isSecureRequest(request.headers) ? '; Secure' : '';
    const cookie = `${SESSION_COOKIE}=${value}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${SESSION_TTL_MS / 1000}${secure}`;
    return json({ ok: true }, 200, { 'set-cookie': cookie });
  },
  { public: true },
);

// Every other method: 405 JSON with Allow (Next would answer an empty 405).
export const { GET, PUT, PATCH, DELETE } = methodsNotAllowed('POST');
