/**
 * setupFiles of the contract project: every answer a test receives from a server on this machine — through fetch,
 * or the raw and node:http helpers that call recordAnswer themselves — is checked against the API description, and
 * a test whose answers broke it fails (openapiCheck.ts).
 */
import { afterEach, expect } from 'vitest';
import { recordResponse, takeProblems } from './openapiCheck';

const LOCAL = new Set(['127.0.0.1', 'localhost', '[::1]']);
const realFetch = globalThis.fetch;

globalThis.fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
  const response = await realFetch(input, init);
  const request = input instanceof Request ? input : undefined;
  const url = new URL(request?.url ?? String(input));
  if (LOCAL.has(url.hostname)) recordResponse(init?.method ?? request?.method ?? 'GET', url.href, response);
  return response;
};

afterEach(async () => {
  expect(await takeProblems(), 'answers that the API description (docs/openapi.json) does not allow').toEqual([]);
});
