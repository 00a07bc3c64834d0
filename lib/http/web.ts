import { notFound, toResponse } from './answer';
import type { IdHandler } from './idHandler';

/** Runs the framework-free handler for a WHATWG Request (Next route handlers); a path it does not own is a 404. */
export async function handleWebRequest(handler: IdHandler, request: Request): Promise<Response> {
  const url = new URL(request.url);
  const answer = await handler(request.method, url.pathname + url.search, request.headers.get('authorization'));
  return toResponse(answer ?? notFound());
}
