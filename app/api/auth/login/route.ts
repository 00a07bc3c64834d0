import { json, methodsNotAllowed, route } from '@/lib/http/consoleRoute';
import { readJsonBody } from '@/lib/http/body';
import { isSecureRequest } from '@/lib/http/origin';
import { loginSchema } from '@/lib/admin/schema';
import { login } from '@/lib/admin/sessions';
import { sessionCookie } from '@/lib/auth/credentials';
import { processLoginThrottle } from '@/lib/auth/loginThrottle';

export const dynamic = 'force-dynamic';

export const POST = route(
  async ({ request, runtime, who }) => {
    const { token } = await readJsonBody(request, loginSchema);
    const { value } = await login(runtime, processLoginThrottle(), token, {
      address: who.address,
      userAgent: request.headers.get('user-agent') ?? '',
    });
    return json({ ok: true }, 200, { 'set-cookie': sessionCookie(value, isSecureRequest(request.headers)) });
  },
  { public: true },
);

// Every other method: 405 JSON with Allow (Next would answer an empty 405).
export const { GET, PUT, PATCH, DELETE } = methodsNotAllowed('POST');
