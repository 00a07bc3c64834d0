import { json, methodsNotAllowed, route } from '@/lib/http/consoleRoute';
import { fleetNodes } from '@/app/_server/fleet';
import { fleetSummary } from '@/lib/admin/fleetViews';

export const dynamic = 'force-dynamic';

export const GET = route(async ({ runtime }) =>
  json(fleetSummary(await fleetNodes(runtime), runtime.config.runwayWarnSeconds)),
);

// Every other method: 405 JSON with Allow (Next would answer an empty 405).
export const { POST, PUT, PATCH, DELETE } = methodsNotAllowed('GET');
