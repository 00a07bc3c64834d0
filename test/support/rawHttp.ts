/**
 * HTTP/1.1 over raw TCP for the contract tests: requests are sent byte for byte as written (nothing normalises
 * them on the way), answers are read until the server closes the connection.
 */
import net from 'node:net';
import { recordAnswer } from './openapiCheck';

export interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** The server closed the connection without a status line. */
  noResponse: boolean;
  timedOut: boolean;
  ms: number;
}

/** One request over a fresh TCP connection; bytes exactly as given. Resolves when the server closes the connection. */
export function raw(port: number, request: Buffer, timeoutMs = 5_000): Promise<Answer> {
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = net.connect({ host: '127.0.0.1', port });
    const chunks: Buffer[] = [];
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      socket.destroy();
    }, timeoutMs);
    socket.on('data', (d: Buffer) => chunks.push(d));
    socket.on('error', () => undefined); // a reset after the answer is fine; no answer is reported below
    socket.on('close', () => {
      clearTimeout(timer);
      const answer = parse(Buffer.concat(chunks), timedOut, Date.now() - started);
      if (!answer.noResponse) check(request, answer);
      resolve(answer);
    });
    socket.write(request);
  });
}

/**
 * The answer against the API description (openapiCheck.ts), as the request line named it; a request whose line is
 * no request line (or whose target is not a path) must still get a JSON error, checked as an unknown route.
 */
function check(request: Buffer, a: Answer): void {
  const end = request.indexOf('\n');
  const first = request.subarray(0, end === -1 ? request.length : end + 1).toString('latin1');
  const line = /^(\S+) (\S+) HTTP\/\d\.\d\r?\n/.exec(first);
  let target = line?.[2] ?? '/api/(no request line)';
  if (!target.startsWith('/')) {
    try {
      const url = new URL(target); // absolute-form: the server routes its path
      target = `${url.pathname}${url.search}`;
    } catch {
      target = '/api/(no path)';
    }
  }
  recordAnswer({
    method: line?.[1] ?? 'INVALID',
    target,
    status: a.status,
    contentType: a.headers['content-type'] ?? '',
    body: a.body,
  });
}

function parse(buf: Buffer, timedOut: boolean, ms: number): Answer {
  const text = buf.toString('latin1');
  const end = text.indexOf('\r\n\r\n');
  const m = /^HTTP\/1\.[01] (\d{3})/.exec(text);
  if (m === null || end === -1) return { status: 0, headers: {}, body: '', noResponse: true, timedOut, ms };
  const headers: Record<string, string> = {};
  for (const line of text.slice(0, end).split('\r\n').slice(1)) {
    const i = line.indexOf(':');
    if (i > 0) {
      const k = line.slice(0, i).trim().toLowerCase();
      headers[k] = headers[k] === undefined ? line.slice(i + 1).trim() : `${headers[k]}, ${line.slice(i + 1).trim()}`;
    }
  }
  let body = buf.subarray(end + 4);
  if (/chunked/i.test(headers['transfer-encoding'] ?? '')) {
    const out: Buffer[] = [];
    let at = 0;
    for (;;) {
      const nl = body.indexOf('\r\n', at);
      if (nl === -1) break;
      const size = Number.parseInt(body.subarray(at, nl).toString('latin1'), 16);
      if (!(size > 0)) break;
      out.push(body.subarray(nl + 2, nl + 2 + size));
      at = nl + 2 + size + 2;
    }
    body = Buffer.concat(out);
  }
  return { status: Number(m[1]), headers, body: body.toString('utf8'), noResponse: false, timedOut, ms };
}

export interface Case {
  name: string;
  method: string;
  /** The request target, exactly as sent. */
  target: string;
  /** Extra header lines (name, value), sent as given; duplicates allowed. */
  headers?: Array<[string, string]>;
  body?: string | Buffer;
  /** Send the body with Transfer-Encoding: chunked instead of Content-Length. */
  chunked?: boolean;
  /** Authorization: Bearer <admin token>. */
  auth?: boolean;
  /** Allowed statuses (default: any 4xx) and error codes (default: any). */
  status?: number[];
  codes?: string[];
}

/** The request bytes of a case; `token` is sent as `Authorization: Bearer` when the case asks for it. */
export function build(c: Case, token: string): Buffer {
  const lines = [`${c.method} ${c.target} HTTP/1.1`, 'Host: 127.0.0.1', 'Connection: close'];
  if (c.auth) lines.push(`Authorization: Bearer ${token}`);
  for (const [k, v] of c.headers ?? []) lines.push(`${k}: ${v}`);
  const body = c.body === undefined ? Buffer.alloc(0) : Buffer.isBuffer(c.body) ? c.body : Buffer.from(c.body, 'utf8');
  const hasLength = (c.headers ?? []).some(([k]) => /^(content-length|transfer-encoding)$/i.test(k));
  if (c.body !== undefined && !hasLength)
    lines.push(c.chunked ? 'Transfer-Encoding: chunked' : `Content-Length: ${body.length}`);
  const head = Buffer.from(lines.join('\r\n') + '\r\n\r\n', 'latin1');
  if (!c.chunked) return Buffer.concat([head, body]);
  const parts: Buffer[] = [head];
  for (let i = 0; i < body.length; i += 4096) {
    const piece = body.subarray(i, i + 4096);
    parts.push(Buffer.from(`${piece.length.toString(16)}\r\n`, 'latin1'), piece, Buffer.from('\r\n', 'latin1'));
  }
  parts.push(Buffer.from('0\r\n\r\n', 'latin1'));
  return Buffer.concat(parts);
}
