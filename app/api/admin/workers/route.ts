import { json, methodsNotAllowed, route } from '@/app/_server/adminRoute';

export const dynamic = 'force-dynamic';

export const GET = route(async ({ runtime }) =>
  json({ self: runtime.snowflake?.status() ?? { state: 'off' }, workers: await runtime.store.listWorkers() }),
);

// Every other method: 405 JSON with Allow (Next would answer an empty 405).
export const { POST, PUT, PATCH, DELETE } = methodsNotAllowed('GET');
