import { json, methodsNotAllowed, route } from '@/lib/http/consoleRoute';
import { readJsonBody } from '@/lib/http/body';
import { createTokenSchema } from '@/lib/admin/schema';
import { createToken, listTokens } from '@/lib/admin/tokens';

export const dynamic = 'force-dynamic';

export const GET = route(async ({ runtime }) => json({ tokens: await listTokens(runtime) }));

/** 201 with `{ token, secret }`: the only answer that ever carries the token. */
export const POST = route(async ({ request, runtime, who }) => {
  const input = await readJsonBody(request, createTokenSchema);
  return json(await createToken(runtime, input, who), 201, { 'cache-control': 'no-store' });
});

export const { PUT, PATCH, DELETE } = methodsNotAllowed('GET, POST');
