import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { defineConfig } from '@playwright/test';
import { freePortSync } from './tools/harness/ports';

/**
 * E2E of the operator console against the real server: `node --import tsx server.ts` (production build, made by
 * `next build` beforehand — scripts/test.sh does it), on a free port, with its own SQLite file and admin token.
 * Debian's Chromium, never a downloaded browser. The port, directory and token are chosen once in the runner and
 * reach the workers (which load this file again) through the environment.
 */
if (!process.env.LEAF_E2E_PORT) {
  process.env.LEAF_E2E_PORT = String(freePortSync());
  process.env.LEAF_E2E_DIR = fs.mkdtempSync(path.join(os.tmpdir(), 'leaf-e2e-'));
  process.env.LEAF_E2E_TOKEN = randomBytes(18).toString('base64url');
}
const port = process.env.LEAF_E2E_PORT;
const baseURL = `http://127.0.0.1:${port}`;
const dir = process.env.LEAF_E2E_DIR as string;

export default defineConfig({
  testDir: 'e2e',
  outputDir: 'test-results/e2e',
  globalTeardown: './e2e/support/globalTeardown.ts',
  workers: 1,
  fullyParallel: false,
  forbidOnly: !!process.env.CI,
  retries: 0,
  timeout: 30_000,
  expect: { timeout: 8_000 },
  // A bound for a hung run, not a speed target: the 31 tests take ~2 min on a quiet 2-core machine and passed
  // 170 s once the machine was shared (a clean-clone run beside a bench), so the bound is 7 min — still far inside
  // CI's 90. Each test keeps its own 30 s.
  globalTimeout: 420_000,
  reporter: [['list']],
  use: {
    baseURL,
    browserName: 'chromium',
    viewport: { width: 1280, height: 860 },
    colorScheme: 'light',
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
    launchOptions: {
      executablePath: '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    },
  },
  webServer: {
    command:
      "test -f .next/BUILD_ID || { echo 'e2e needs a production build: run npx next build first' >&2; exit 1; }; exec node --import tsx server.ts",
    url: `${baseURL}/api/health`,
    reuseExistingServer: false,
    timeout: 60_000,
    stdout: 'ignore',
    stderr: 'pipe',
    gracefulShutdown: { signal: 'SIGTERM', timeout: 5_000 },
    env: {
      NODE_ENV: 'production',
      PORT: port as string,
      HOST: '127.0.0.1',
      DATABASE_URL: '',
      LEAF_SQLITE_FILE: path.join(dir, 'leaf.db'),
      LEAF_DATA_DIR: dir,
      LEAF_ADMIN_TOKEN: process.env.LEAF_E2E_TOKEN as string,
      LEAF_LOG_LEVEL: 'warn',
      // Node A of the fleet e2e (e2e/fleet.spec.ts starts node B on the same SQLite file): quick beats, so a killed
      // node turns gone within seconds.
      LEAF_NODE_ID: 'node-a',
      LEAF_NODE_HEARTBEAT_MS: '500',
      LEAF_NODE_GONE_MS: '2000',
      // Opaque tags (e2e/opaque.spec.ts): the fleet's key; node B of the fleet spec starts without one.
      LEAF_OPAQUE_KEY: 'e2e-opaque-key-0123456789abcdef-0123456789',
    },
  },
});
