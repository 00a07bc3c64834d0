/**
 * A node whose first open fails after it registered (the database timed out on a later step) must be able to try
 * again in the same process. Seen in a run: the failed attempt kept heartbeating, so the retry found the node's own
 * row live and refused as a twin (invalid_config) — the node never came up. Real SQLite file, real openCore; the
 * failure is a table made unreadable between the two opens.
 */
import Database from 'better-sqlite3';
import { afterEach, expect, it } from 'vitest';
import { IdAccess } from '@/lib/auth/scopedTokens';
import { loadConfig } from '@/lib/config';
import { silentLogger } from '@/lib/log';
import { type CoreRuntime, closeCore, openCore } from '@/lib/runtimeCore';
import { type TempDir, tempDir } from '../support/context';
import { codeOf } from '../support/outcomes';

let tmp: TempDir | undefined;
const opened: CoreRuntime[] = [];
afterEach(async () => {
  for (const core of opened.splice(0)) await closeCore(core);
  tmp?.remove();
});

const hooks = () => ({
  onLoad: () => {},
  access: new IdAccess(null),
});

it('an open that fails after registering stops its heartbeat: the same node id opens on the next attempt', async () => {
  tmp = tempDir('leaf-it-open-');
  const file = tmp.file('leaf.db');
  const config = loadConfig({
    LEAF_SQLITE_FILE: file,
    LEAF_NODE_ID: 'retrying-node',
    PORT: '3000',
    LEAF_NODE_HEARTBEAT_MS: '200',
    LEAF_NODE_GONE_MS: '2000',
  });
  // Migrated once, then the token table made unreadable: registration succeeds, the token load after it fails.
  await closeCore(await openCore(config, silentLogger, hooks()));
  const db = new Database(file);
  db.exec('ALTER TABLE leaf_token RENAME TO leaf_token_away');
  expect(await codeOf(openCore(config, silentLogger, hooks()))).not.toBe('ok');

  db.exec('ALTER TABLE leaf_token_away RENAME TO leaf_token');
  db.close();
  // Past a few heartbeats of the failed attempt, had it kept beating.
  await new Promise((resolve) => setTimeout(resolve, 600));
  const core = await openCore(config, silentLogger, hooks());
  opened.push(core);
  expect(core.fleet.registration).toBe('up');
});
