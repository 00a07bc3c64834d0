import type { IdHandler, IdResponse } from './idHandler';

/** Runs the framework-free handler for a WHATWG Request (Next route handlers). */
export async function handleWebRequest(handler: IdHandler, request: Request): Promise<Response> {
  const url = new URL(request.url);
  const result = handler(request.method, url.pathname + url.search, request.headers.get('authorization'));
  const response: IdResponse =
    (await result) ?? { status: 404, headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' }, body: '{"error":{"code":"route_not_found","message":"No such route."}}' };
  return new Response(response.body, { status: response.status, headers: response.headers });
}
