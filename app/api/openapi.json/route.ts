import { json, methodsNotAllowed } from '@/lib/http/consoleRoute';
import { openApiDocument } from '@/lib/http/openapi/document';

export const dynamic = 'force-dynamic';

const DOCUMENT = openApiDocument();

/** The OpenAPI 3.1 description of every route (docs/openapi.json is the same document); public, like /api/health. */
export function GET(): Response {
  return json(DOCUMENT);
}

// Every other method: 405 JSON with Allow (Next would answer an empty 405).
export const { POST, PUT, PATCH, DELETE } = methodsNotAllowed('GET');
