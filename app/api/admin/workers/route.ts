import { json, methodsNotAllowed, route } from '@/lib/http/consoleRoute';

export const dynamic = 'force-dynamic';

export const GET = route(async ({ runtime }) =>
  json({
    self: runtime.snowflake?.status() ?? { state: 'off' },
    // LEAF_WORKER_IDS, canonical (`512-1023`): the only ids this node leases, whether snowflake is on or not.
    workerIds: runtime.config.snowflake.workerIds.text,
    workers: await runtime.store.workers.listWorkers(),
  }),
);

// Every other method: 405 JSON with Allow (Next would answer an empty 405).
export const { POST, PUT, PATCH, DELETE } = methodsNotAllowed('GET');
