/**
 * `npm run bench` only: the cheapest possible Next route handler (a constant body in the ID routes' JSON shape, no
 * engine, no store), the ceiling for anything served through Next. Inert unless the server runs with
 * LEAF_BENCH_ROUTES=on: otherwise it answers 404 JSON, like any unknown route.
 */
export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

const HEADERS = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' };
const CONSTANT = '{"tag":"demo","id":"1"}';
const NOT_FOUND = '{"error":{"code":"route_not_found","message":"No such route."}}';

export function GET(): Response {
  if (process.env.LEAF_BENCH_ROUTES !== 'on') return new Response(NOT_FOUND, { status: 404, headers: HEADERS });
  return new Response(CONSTANT, { status: 200, headers: HEADERS });
}
