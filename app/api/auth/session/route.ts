import { json, route } from '@/app/_server/adminRoute';
import { isAuthorized } from '@/lib/auth/credentials';

export const dynamic = 'force-dynamic';

export const GET = route(
  async ({ request, runtime }) =>
    json({
      authenticated: isAuthorized(
        runtime.admin.token,
        { authorization: request.headers.get('authorization'), cookie: request.headers.get('cookie') },
        Date.now(),
      ),
    }),
  { public: true },
);
