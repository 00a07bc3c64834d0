import { methodsNotAllowed, route } from '@/app/_server/adminRoute';

export const dynamic = 'force-dynamic';

/** Prometheus text format; scrape with `authorization: Bearer <admin token>`. */
export const GET = route(async ({ runtime }) => {
  const { registry } = runtime.prometheus;
  return new Response(await registry.metrics(), {
    headers: { 'content-type': registry.contentType, 'cache-control': 'no-store' },
  });
});

// Every other method: 405 JSON with Allow (Next would answer an empty 405).
export const { POST, PUT, PATCH, DELETE } = methodsNotAllowed('GET');
