import { processConfig } from '@/lib/config';
import { jsonText, notFound, toResponse } from '@/lib/http/answer';

/**
 * `npm run bench` only: the cheapest possible Next route handler (a constant body in the ID routes' JSON shape, no
 * engine, no store), the ceiling for anything served through Next. Inert unless the server runs with
 * LEAF_BENCH_ROUTES=on: otherwise it answers 404 JSON, like any unknown route.
 */
export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

const CONSTANT = jsonText('{"tag":"demo","id":"1"}');

export function GET(): Response {
  return toResponse(processConfig().benchRoutes ? CONSTANT : notFound());
}
