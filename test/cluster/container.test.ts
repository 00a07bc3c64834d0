/**
 * The Dockerfile as a user builds and runs it, with Debian's podman: the image is built from a clean copy of the
 * checkout (its .dockerignore applied), run against MariaDB, serves IDs, and `podman stop` (SIGTERM to the server,
 * the container's main process) is a graceful stop: exit status 0, max_id given back to the last ID served, the
 * next container's first ID the one after it. Every run starts from an empty podman storage root, as a new machine
 * would: the base image is a stand-in made here (tools/harness/container.ts: no registry is reachable), then the
 * Dockerfile is built without a cached layer.
 */
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { MysqlStore } from '../../lib/store/mysql';
import {
  type Container,
  Podman,
  REPO_ROOT,
  type TestDatabase,
  ensurePodman,
  freePort,
  httpGetStatus,
  pollFor,
} from '../../tools/harness';
import { type TempDir, freshMysqlDatabase, mariadbAvailable, tempDir } from '../support/context';
import { takeIds } from '../support/clientIds';
import { defined } from '../support/defined';

const IMAGE = 'localhost/leaf-ts:test';
const log = (line: string) => process.stderr.write(`[container] ${line}\n`);
let tmp: TempDir;
let database: TestDatabase | undefined;
let podman: Podman | undefined;

beforeAll(() => {
  tmp = tempDir('leaf-it-container-');
  ensurePodman(log);
  podman = new Podman(tmp.file('podman'));
  let started = Date.now();
  podman.makeBaseImage(log);
  log(`base image made in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  started = Date.now();
  podman.build(REPO_ROOT, IMAGE, tmp.path);
  log(`podman build of ${path.basename(REPO_ROOT)} took ${((Date.now() - started) / 1000).toFixed(0)} s`);
}, 1_500_000);
afterAll(async () => {
  await database?.drop();
  podman?.destroy();
  tmp?.remove();
});

/** `n` IDs of `tag` from the container listening on `port`, as a client takes them. */
function take(port: number, tag: string, n: number): Promise<bigint[]> {
  return takeIds(`http://127.0.0.1:${port}/api/id/segment/${tag}?count=${n}`);
}

it('podman stop is a graceful stop: exit 0, the unused IDs given back, the next container continues at the next ID', async (ctx) => {
  if (!mariadbAvailable()) ctx.skip();
  database = await freshMysqlDatabase();
  const store = await MysqlStore.open({ url: database.url });
  const port = await freePort();
  const env = {
    DATABASE_URL: database.url,
    PORT: String(port),
    HOST: '127.0.0.1',
    LEAF_ADMIN_TOKEN: 'container-test-admin-token',
    LEAF_LOG_LEVEL: 'info',
  };
  let container: Container | undefined;
  try {
    await store.tags.createTag({ bizTag: 'boxed', step: 1_000 });
    const run = async () => {
      const c = defined(podman, 'podman').run(IMAGE, env);
      container = c;
      const up = await pollFor(
        90_000,
        async () => ((await httpGetStatus(port, '/api/health', 1_000)) === 200 ? true : undefined),
        250,
      );
      expect(up, `the container did not answer /api/health:\n${c.logs().slice(-4_000)}`).toBe(true);
      return c;
    };
    const first = await run();
    const ids = await take(port, 'boxed', 150);
    const last = defined(ids.at(-1), 'a last ID');
    first.stop(20);
    expect(first.exitCode(), first.logs().slice(-4_000)).toBe(0);
    expect(first.logs()).toContain('"event":"give_back_done"');
    expect(String((await store.tags.getTag('boxed'))?.maxId)).toBe(String(last));
    first.remove();

    const second = await run();
    expect((await take(port, 'boxed', 1))[0]).toBe(last + 1n);
    second.stop(20);
    expect(second.exitCode()).toBe(0);
    second.remove();
    container = undefined;
  } finally {
    container?.remove();
    await store.close();
  }
}, 300_000);
