import { json, route } from '@/app/_server/adminRoute';

export const dynamic = 'force-dynamic';

export const GET = route(async ({ runtime }) =>
  json({ self: runtime.snowflake?.status() ?? { state: 'off' }, workers: await runtime.store.listWorkers() }),
);
