import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startNodeServer } from '../../tools/harness';

export interface ServerProcess {
  url: string;
  child: ChildProcess;
  logs: () => string;
  stop: () => Promise<void>;
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
