/**
 * Every answer the contract tests receive, checked against the API description (lib/http/openapi/document.ts, the
 * document /api/openapi.json serves): its path and method are described, its status is one the operation lists, its
 * content type is the one documented, and its body matches the schema. An answer on a path the document does not
 * have must be a JSON error (a 404 of an unknown route, a 400 of a path that is no path). Problems are collected and
 * asserted after each test (openapiContract.ts); `checkAnswer` is the one rule.
 */
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import { openApiDocument } from '../../lib/http/openapi/document';

type Operation = { responses: Record<string, { content?: Record<string, { schema: unknown }> }> };
type Doc = { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, unknown> } };

const BASE = 'https://leaf-ts.test/schemas/';
const doc = openApiDocument() as unknown as Doc;

/** Component refs as absolute ids, so each schema compiles on its own. */
function absolute(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(absolute);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [
      k,
      k === '$ref' && typeof v === 'string' ? v.replace('#/components/schemas/', BASE) : absolute(v),
    ]),
  );
}

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const ajv = new Ajv2020({ strict: true, allErrors: true, formats: { 'date-time': (s: string) => ISO.test(s) } });
for (const [name, schema] of Object.entries(doc.components.schemas))
  ajv.addSchema({ ...(absolute(schema) as object), $id: `${BASE}${name}` });
const errorSchema = ajv.getSchema(`${BASE}Error`) as ValidateFunction;

const templates = Object.keys(doc.paths).map((template) => ({
  template,
  pattern: new RegExp(`^${template.replace(/[.]/g, '\\.').replace(/\{[^}]+\}/g, '[^/]+')}$`),
}));
const compiled = new Map<string, ValidateFunction>();

export interface ReceivedAnswer {
  method: string;
  /** The request target as sent (path and query). */
  target: string;
  status: number;
  contentType: string;
  body: string;
}

function schemaCheck(validate: ValidateFunction, body: string, what: string): string[] {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return [`${what}: the body is not JSON: ${body.slice(0, 200)}`];
  }
  if (validate(value)) return [];
  return [`${what}: ${ajv.errorsText(validate.errors, { separator: '; ' })} in ${body.slice(0, 300)}`];
}

/**
 * A path not in normal form — an empty segment, a `.` or `..` segment (encoded or not), a trailing slash — which Next
 * answers with a 308 to the normal form before any route sees it (docs/api.md#errors).
 */
function notNormal(path: string): boolean {
  const segments = path.split('/').slice(1);
  return segments.some((s, i) => (s === '' && i > 0) || /^(\.|%2e){1,2}$/i.test(s)) || path.endsWith('/');
}

/** What is wrong with this answer by the description; empty when nothing. */
export function checkAnswer(a: ReceivedAnswer): string[] {
  const path = a.target.split('?')[0] ?? '';
  if (!path.startsWith('/api/') && path !== '/api') return [];
  const what = `${a.method} ${a.target.slice(0, 120)} → ${a.status}`;
  if (a.status === 308) return notNormal(path) ? [] : [`${what}: a redirect of a path in normal form`];
  const method = a.method.toLowerCase() === 'head' ? 'get' : a.method.toLowerCase();
  const found = templates.find((t) => t.pattern.test(path));
  const operation = found === undefined ? undefined : doc.paths[found.template]?.[method];
  if (operation === undefined) {
    // Not described: an unknown route (404), a method the route does not offer (405), a path that is no path (400).
    if (![400, 404, 405, 413, 431].includes(a.status)) return [`${what}: undescribed, and not a 400/404/405`];
    if (a.method === 'HEAD') return [];
    return a.contentType.startsWith('application/json')
      ? schemaCheck(errorSchema, a.body, what)
      : [`${what}: an error answer that is not JSON (${a.contentType})`];
  }
  const response = operation.responses[String(a.status)];
  if (response === undefined) return [`${what}: status ${a.status} is not one ${found?.template} lists`];
  if (a.method === 'HEAD') return [];
  const media = Object.keys(response.content ?? {});
  const type = media.find((m) => a.contentType.startsWith(m));
  if (type === undefined) return [`${what}: content type "${a.contentType}", documented ${media.join(', ')}`];
  if (type !== 'application/json') {
    const pattern = (response.content?.[type]?.schema as { pattern?: string } | undefined)?.pattern;
    return pattern === undefined || new RegExp(pattern).test(a.body) ? [] : [`${what}: "${a.body}" is not ${pattern}`];
  }
  const key = `${found?.template} ${method} ${a.status}`;
  let validate = compiled.get(key);
  if (validate === undefined) {
    validate = ajv.compile(absolute(response.content?.[type]?.schema) as object);
    compiled.set(key, validate);
  }
  return schemaCheck(validate, a.body, what);
}

const problems: string[] = [];
const pending = new Set<Promise<void>>();

/** Records the problems of an answer, for the next `takeProblems`. */
export function recordAnswer(a: ReceivedAnswer): void {
  problems.push(...checkAnswer(a));
}

/** Checks a fetch Response without consuming it (a clone is read). */
export function recordResponse(method: string, url: string, response: Response): void {
  const { pathname, search } = new URL(url);
  const done = response
    .clone()
    .text()
    .then(
      (body) =>
        recordAnswer({
          method,
          target: `${pathname}${search}`,
          status: response.status,
          contentType: response.headers.get('content-type') ?? '',
          body,
        }),
      () => undefined, // a body cut off: the test that read it says so
    )
    .finally(() => pending.delete(done));
  pending.add(done);
}

/** Every problem recorded since the last call, once the answers still being read are in. */
export async function takeProblems(): Promise<string[]> {
  await Promise.all([...pending]);
  return problems.splice(0, problems.length);
}
