/**
 * The harness's own promise: a server it reports up is the one it started. A port is free only a moment before the
 * new server binds it; another server taking it in between answers /api/health with 200 while ours is still
 * starting. That answer must not count (a clean-clone run once handed a test another file's server, which then
 * stopped under it): the start is refused on a port it was given, and retried on another when it chose the port.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type NodeServer, listensOn, startNodeServer } from '../../tools/harness';

const dirs: string[] = [];
function env(): NodeJS.ProcessEnv {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leaf-harness-port-'));
  dirs.push(dir);
  return {
    ...process.env,
    NODE_ENV: 'production',
    LEAF_LOG_LEVEL: 'warn',
    LEAF_SQLITE_FILE: path.join(dir, 'leaf.db'),
  };
}

let first: NodeServer;
beforeAll(async () => {
  first = await startNodeServer({ env: env() });
}, 60_000);
afterAll(async () => {
  await first?.stop();
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

describe('a server the harness reports up', () => {
  it('is told apart from another process on its port', () => {
    expect(first.child.pid).toBeDefined();
    expect(listensOn(first.child.pid!, first.port)).toBe(true);
  });

  it('is never another server answering on the port it was given: that start is refused', async () => {
    const started = startNodeServer({ env: env(), port: first.port });
    await expect(started).rejects.toThrow(/already in use by another process/);
    // The first server is untouched.
    expect(listensOn(first.child.pid!, first.port)).toBe(true);
  }, 60_000);
});
