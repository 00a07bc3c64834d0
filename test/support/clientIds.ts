/**
 * Taking IDs over HTTP the way a client does, for every test that takes IDs from a server it started. An answer the
 * API documents as retryable — a 503 whose code is in RETRYABLE_CODES (docs/api.md#errors), or a connection refused
 * or closed before any answer while a node starts, stops or restarts — is tried again after a short pause, until
 * `retryForMs` has passed since the first attempt. Anything else fails at once: another status, a body that is not
 * the ID answer, an attempt that takes longer than `attemptMs`. The properties the tests check stay exact: a retried
 * request served nothing, and a lost answer only leaves a gap.
 */
import { RETRYABLE_CODES } from '../../lib/errors';

/** How long retryable answers are retried by default: far past any claim or restart of a loaded machine. */
export const RETRY_FOR_MS = 30_000;
/** One attempt's bound by default (headers and body): a hang is a failure, never a retry. */
export const ATTEMPT_MS = 15_000;
const PAUSE_MS = [50, 100, 200, 400];

export interface ClientOptions {
  retryForMs?: number;
  attemptMs?: number;
  headers?: Record<string, string>;
}

export interface ClientAnswer {
  status: number;
  text: string;
  contentType: string;
  headers: Headers;
  /** 1 when the first attempt was answered; the retried answers' codes are in `retried`. */
  attempts: number;
  retried: string[];
}

/** The connection failed before any answer: refused (nothing listens yet) or closed (a node stopping). */
function connectionFailure(error: unknown): string | undefined {
  const cause = (error as { cause?: { code?: string } } | undefined)?.cause;
  const code = cause?.code;
  return code === 'ECONNREFUSED' || code === 'ECONNRESET' || code === 'UND_ERR_SOCKET' ? code : undefined;
}

/** The code of a JSON error answer, if it has one. */
export function errorCodeOf(text: string): string | undefined {
  try {
    const code = (JSON.parse(text) as { error?: { code?: unknown } }).error?.code;
    return typeof code === 'string' ? code : undefined;
  } catch {
    return undefined;
  }
}

/** The first answer that is not retryable (any status), retrying the retryable ones within the bound. */
export async function clientGet(url: string, options: ClientOptions = {}): Promise<ClientAnswer> {
  const retryForMs = options.retryForMs ?? RETRY_FOR_MS;
  const attemptMs = options.attemptMs ?? ATTEMPT_MS;
  const until = performance.now() + retryForMs;
  const retried: string[] = [];
  for (;;) {
    let reason: string;
    try {
      const r = await fetch(url, { headers: options.headers, signal: AbortSignal.timeout(attemptMs) });
      const text = await r.text();
      const code = r.status === 503 ? errorCodeOf(text) : undefined;
      if (code === undefined || !RETRYABLE_CODES.has(code as never))
        return {
          status: r.status,
          text,
          contentType: r.headers.get('content-type') ?? '',
          headers: r.headers,
          attempts: retried.length + 1,
          retried,
        };
      reason = `503 ${code}`;
    } catch (error) {
      const failure = connectionFailure(error);
      if (failure === undefined)
        throw new Error(`GET ${url}: ${String(error)} (after ${retried.length} retries)`, { cause: error });
      reason = failure;
    }
    if (performance.now() >= until)
      throw new Error(
        `GET ${url}: still ${reason} after ${retried.length + 1} attempts over ${retryForMs} ms (${retried.slice(-5).join(', ')})`,
      );
    await new Promise((resolve) => setTimeout(resolve, PAUSE_MS[Math.min(retried.length, PAUSE_MS.length - 1)]));
    retried.push(reason);
  }
}

/** The body of a 200, retrying as a client does; any other final answer throws with its status and body. */
export async function takeAnswer(url: string, options: ClientOptions = {}): Promise<ClientAnswer> {
  const answer = await clientGet(url, options);
  if (answer.status !== 200) throw new Error(`GET ${url}: ${answer.status} ${answer.text.slice(0, 500)}`);
  return answer;
}

/** The IDs of one answer: `{"id"}`, `{"ids"}`, or Leaf's plain text. Formatted IDs stay strings. */
export async function takeIdStrings(url: string, options: ClientOptions = {}): Promise<string[]> {
  const answer = await takeAnswer(url, options);
  if (answer.contentType.startsWith('text/plain')) return [answer.text.trim()];
  const body = JSON.parse(answer.text) as { id?: unknown; ids?: unknown };
  const ids = body.ids ?? (body.id === undefined ? undefined : [body.id]);
  if (!Array.isArray(ids) || !ids.every((id) => typeof id === 'string'))
    throw new Error(`GET ${url}: 200 without IDs: ${answer.text.slice(0, 500)}`);
  return ids as string[];
}

/** The numeric IDs (segment, snowflake) of one answer, exact. */
export async function takeIds(url: string, options: ClientOptions = {}): Promise<bigint[]> {
  return (await takeIdStrings(url, options)).map((id) => BigInt(id));
}

export interface LeaseAnswer {
  count: number;
  ranges: Array<{ start: bigint; end: bigint }>;
}

/** A range lease (`…/range?count=N`), exact. */
export async function takeLease(url: string, options: ClientOptions = {}): Promise<LeaseAnswer> {
  const body = JSON.parse((await takeAnswer(url, options)).text) as {
    count: number;
    ranges: Array<{ start: string; end: string }>;
  };
  return { count: body.count, ranges: body.ranges.map((r) => ({ start: BigInt(r.start), end: BigInt(r.end) })) };
}

/** `fetch` of an ID route as a client makes it: the final answer as a Response, retryable answers retried. */
export async function clientFetch(url: string, options: ClientOptions = {}): Promise<Response> {
  const answer = await clientGet(url, options);
  return new Response(answer.text, { status: answer.status, headers: answer.headers });
}
