import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startNodeServer } from '../../tools/harness';

/** A request through `ServerProcess.api`: `auth` defaults to the server's LEAF_ADMIN_TOKEN (null sends none). */
export interface ApiInit extends Omit<RequestInit, 'body'> {
  auth?: string | null;
  cookie?: string;
  /** A string goes as it is; anything else as JSON. */
  body?: unknown;
}

export interface ServerProcess {
  url: string;
  child: ChildProcess;
  logs: () => string;
  stop: () => Promise<void>;
  /** One request to `target` (a path), with a bearer token, a cookie and a JSON body as asked. */
  api: (target: string, init?: ApiInit) => Promise<Response>;
}

/** The one request helper of the contract tests. */
export function apiRequest(url: string, defaultAuth: string | undefined, target: string, init: ApiInit = {}) {
  const { auth, cookie, body, ...rest } = init;
  const headers = new Headers(rest.headers);
  const token = auth === undefined ? defaultAuth : auth;
  if (token !== undefined && token !== null) headers.set('authorization', `Bearer ${token}`);
  if (cookie !== undefined) headers.set('cookie', cookie);
  if (body !== undefined) headers.set('content-type', 'application/json');
  const payload = body === undefined || typeof body === 'string' ? body : JSON.stringify(body);
  return fetch(`${url}${target}`, { ...rest, headers, body: payload });
}

/** Starts `server.ts` (production build required) on a free port with its own SQLite file; waits for /api/health. */
export async function startServer(env: Record<string, string> = {}): Promise<ServerProcess> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leaf-contract-'));
  let out = '';
  try {
    const server = await startNodeServer({
      env: { ...process.env, NODE_ENV: 'production', LEAF_SQLITE_FILE: path.join(dir, 'leaf.db'), ...env },
      timeoutMs: 30_000,
      onOutput: (text) => (out += text),
    });
    return {
      url: server.url,
      child: server.child,
      logs: () => out,
      api: (target, init) => apiRequest(server.url, env.LEAF_ADMIN_TOKEN, target, init),
      stop: async () => {
        await server.stop(5_000);
        fs.rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}
