import type { ZodType } from 'zod';
import { fieldErrors } from '../admin/schema';
import { LeafError } from '../errors';
import { BODY_LIMITS } from './bodyLimits';

/** A JSON request body, validated: every failure a typed 4xx (413, 415, 400 `validation_failed`), never a 500. */
export async function readJsonBody<T>(request: Request, schema: ZodType<T>): Promise<T> {
  const text = await readBodyText(request);
  const type = request.headers.get('content-type') ?? '';
  if (text.length > 0 && !/^application\/json\b/i.test(type)) {
    throw new LeafError('unsupported_media_type', 'Send the body as application/json.');
  }
  let value: unknown;
  try {
    value = text.length === 0 ? {} : JSON.parse(text);
  } catch {
    throw new LeafError('invalid_request', 'The body is not valid JSON.');
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    throw new LeafError('validation_failed', 'Some fields are not valid.', { fields: fieldErrors(parsed.error) });
  }
  return parsed.data;
}

export function payloadTooLarge(): LeafError {
  return new LeafError('payload_too_large', `Bodies are limited to ${BODY_LIMITS.maxBytes} bytes.`);
}

/** At most `maxBytes` kept; a larger body is drained (within bounds) before the 413, so no reset eats the answer. */
async function readBodyText(request: Request): Promise<string> {
  const declared = Number(request.headers.get('content-length') ?? 0);
  if (declared > BODY_LIMITS.maxBytes) throw payloadTooLarge(); // server.ts has already drained it
  if (request.body === null) return '';
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > BODY_LIMITS.maxBytes) {
      await discardRest(reader, size);
      throw payloadTooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

async function discardRest(reader: ReadableStreamDefaultReader<Uint8Array>, seen: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), BODY_LIMITS.discardMs);
  });
  try {
    for (let size = seen; size <= BODY_LIMITS.discardBytes;) {
      const next = await Promise.race([reader.read(), deadline]);
      if (next === 'late' || next.done) break;
      size += next.value.byteLength;
    }
  } finally {
    clearTimeout(timer);
    void reader.cancel().catch(() => undefined);
  }
}
