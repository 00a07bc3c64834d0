import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type NodeServer, startNodeServer } from '../tools/harness/node';
import { takeLease } from '../test/support/clientIds';
import { SCREENSHOTS, adminApi, E2E_URL, expect, test, uniqueTag } from './support/console';

/**
 * The tag page's three charts read back from the page (their data attributes hold what is drawn), then shot in the
 * light and the dark scheme; the navigation's current page; one time format with its zone; and the login page
 * naming where this node keeps its token.
 */
test.describe('the console tells what happened', () => {
  test('a lease burst lands in one bucket and as a lease mark, not as a step; three charts, light and dark', async ({
    signedIn: page,
    request,
  }) => {
    const bizTag = uniqueTag('charts');
    const api = await adminApi(request);
    await api.createTag({ bizTag, step: 2000, description: 'Charts' });
    for (let i = 0; i < 6; i++) {
      await api.takeIds(bizTag, 200);
      await page.waitForTimeout(250);
    }
    const leaseAt = Date.now();
    const lease = await takeLease(`${E2E_URL}/api/id/segment/${bizTag}/range?count=5000000`);
    expect(lease.count).toBe(5_000_000);

    await page.goto(`/tags/${bizTag}`);
    await expect(page.getByRole('heading', { name: bizTag, level: 1 })).toBeVisible();
    const rate = page.getByTestId('rate-chart');
    // The bucket with the lease is drawn with its 5,000,000 IDs (once it is complete: within ~6 s).
    await expect
      .poll(
        async () => {
          const points = JSON.parse((await rate.getAttribute('data-points')) ?? '[]') as [number, number | null][];
          return points.filter(([, ids]) => (ids ?? 0) >= 5_000_000).map(([t]) => t);
        },
        { timeout: 15_000 },
      )
      .toHaveLength(1);
    const points = JSON.parse((await rate.getAttribute('data-points')) ?? '[]') as [number, number | null][];
    const burst = points.find(([, ids]) => (ids ?? 0) >= 5_000_000)![0];
    expect(Math.abs(burst - Math.floor(leaseAt / 5000) * 5000)).toBeLessThanOrEqual(5000);
    // No bucket is spread with a share of it.
    expect(points.filter(([, ids]) => (ids ?? 0) > 10_000)).toHaveLength(1);

    const step = page.getByTestId('step-chart');
    const leases = JSON.parse((await step.getAttribute('data-leases')) ?? '[]') as [number, number, string][];
    expect(leases.map(([, size]) => size)).toEqual([5_000_000]);
    const steps = JSON.parse((await step.getAttribute('data-steps')) ?? '[]') as [string, [number, number][]][];
    expect(steps.flatMap(([, s]) => s.map(([, v]) => v)).every((v) => v < 5_000_000)).toBe(true);
    await expect(page.getByTestId('rate-note')).toContainText('5 s bucket');
    await expect(page.getByTestId('buffer-chart')).toBeVisible();
    await expect(page.getByRole('table', { name: 'Claims' })).toContainText('range lease');

    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      for (const chart of ['rate-chart', 'step-chart', 'buffer-chart'])
        await page.getByTestId(chart).screenshot({ path: path.join(SCREENSHOTS, `${chart}-${scheme}.png`) });
    }
    await page.emulateMedia({ colorScheme: 'light' });
  });

  test('the navigation marks the page you are on', async ({ signedIn: page }) => {
    const nav = page.getByRole('navigation', { name: 'Console' });
    for (const [where, link] of [
      ['/', 'Tags'],
      ['/nodes', 'Nodes'],
      ['/audit', 'Audit'],
      ['/tags/demo', 'Tags'],
    ] as const) {
      await page.goto(where);
      await expect(nav.getByRole('link', { name: link })).toHaveAttribute('aria-current', 'page');
      await expect(nav.locator('[aria-current="page"]')).toHaveCount(1);
    }
  });

  test('every time on the audit page is in one format, with its zone', async ({ signedIn: page }) => {
    await page.goto('/audit');
    const times = page.locator('[data-testid="audit-row"] time');
    await expect(times.first()).toBeVisible();
    for (const text of await times.allTextContents()) expect(text).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ$/);
  });
});

test.describe('a node that made its own token', () => {
  let node: NodeServer | null = null;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'leaf-e2e-token-'));

  test.beforeAll(async () => {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      NODE_ENV: 'production',
      DATABASE_URL: '',
      LEAF_SQLITE_FILE: path.join(dataDir, 'leaf.db'),
      LEAF_DATA_DIR: dataDir,
      LEAF_LOG_LEVEL: 'warn',
      LEAF_NODE_ID: 'token-node',
    };
    delete env.LEAF_ADMIN_TOKEN;
    node = await startNodeServer({ env, timeoutMs: 30_000 });
  });
  test.afterAll(async () => {
    await node?.stop(5_000);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  test('its login page names the file in LEAF_DATA_DIR', async ({ page }) => {
    await page.goto(`${node!.url}/login`);
    await expect(page.getByTestId('token-source')).toContainText(path.join(dataDir, 'admin-token'));
    await expect(page.getByTestId('token-source')).not.toContainText('data/admin-token');
  });
});
