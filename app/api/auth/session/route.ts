import { json, methodsNotAllowed, route } from '@/app/_server/adminRoute';
import { isAuthorized } from '@/lib/auth/credentials';

export const dynamic = 'force-dynamic';

export const GET = route(
  async ({ request, runtime }) =>
    json({
      authenticated: isAuthorized(
        runtime.console.admin.token,
        { authorization: request.headers.get('authorization'), cookie: request.headers.get('cookie') },
        Date.now(),
      ),
    }),
  { public: true },
);

// Every other method: 405 JSON with Allow (Next would answer an empty 405).
export const { POST, PUT, PATCH, DELETE } = methodsNotAllowed('GET');
