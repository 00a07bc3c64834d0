import { methodsNotAllowed, route } from '@/lib/http/consoleRoute';
import { TEXT_HEADERS, toResponse } from '@/lib/http/answer';

export const dynamic = 'force-dynamic';

/** Prometheus text format; scrape with `authorization: Bearer <admin token>`. */
export const GET = route(async ({ runtime }) => {
  const { registry, scrape } = runtime.console.prometheus;
  return toResponse({
    status: 200,
    headers: { ...TEXT_HEADERS, 'content-type': registry.contentType },
    body: await scrape(),
  });
});

// Every other method: 405 JSON with Allow (Next would answer an empty 405).
export const { POST, PUT, PATCH, DELETE } = methodsNotAllowed('GET');
