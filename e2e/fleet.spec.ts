import path from 'node:path';
import { stopChild } from '../tools/harness/children';
import { type NodeServer, startNodeServer } from '../tools/harness/node';
import { takeIdStrings } from '../test/support/clientIds';
import { ADMIN_TOKEN, SCREENSHOTS, adminApi, expect, test } from './support/console';

/**
 * Two real nodes on one database: node A is the suite's server (playwright.config.ts), node B is started here on
 * the same SQLite file. The console is always served by A; B is only reached over HTTP, as a client would.
 */
const dir = process.env.LEAF_E2E_DIR as string;

test.describe.serial('fleet of two nodes', () => {
  let nodeB: NodeServer | null = null;

  test.beforeAll(async () => {
    nodeB = await startNodeServer({
      env: {
        ...process.env,
        NODE_ENV: 'production',
        DATABASE_URL: '',
        LEAF_SQLITE_FILE: path.join(dir, 'leaf.db'),
        LEAF_DATA_DIR: dir,
        LEAF_ADMIN_TOKEN: ADMIN_TOKEN,
        LEAF_LOG_LEVEL: 'warn',
        LEAF_NODE_ID: 'node-b',
        LEAF_NODE_HEARTBEAT_MS: '500',
        LEAF_NODE_GONE_MS: '2000',
        // Worker ids reserved as for a migration beside Java Leaf nodes: the Nodes page shows each node's range.
        LEAF_WORKER_IDS: '600-603,700',
      },
      timeoutMs: 30_000,
    });
  });

  test.afterAll(async () => {
    await nodeB?.stop(5_000);
  });

  /** IDs from node B's own ID route. */
  async function takeFromB(bizTag: string, count: number) {
    expect(await takeIdStrings(`${nodeB!.url}/api/id/segment/${bizTag}?count=${count}`)).toHaveLength(count);
  }

  test('the Nodes page lists both; IDs taken from B move B’s row and the fleet totals on A’s pages', async ({
    signedIn: page,
    request,
  }) => {
    const bizTag = 'payments';
    await (await adminApi(request)).createTag({ bizTag, step: 1000, description: 'Payment ids' });

    await page.goto('/nodes');
    await expect(page.getByRole('heading', { name: 'Nodes', level: 1 })).toBeVisible();
    const rowA = page.getByTestId('node-row-node-a');
    const rowB = page.getByTestId('node-row-node-b');
    await expect(rowA.getByTestId('node-state')).toHaveText('up');
    await expect(rowB.getByTestId('node-state')).toHaveText('up');
    await expect(page.getByTestId('fleet-nodes-up')).toHaveText('2', { timeout: 10_000 });
    await expect(rowB.getByTestId('node-tags-held')).toHaveText('0');
    await expect(rowA.getByTestId('node-worker-ids')).toHaveText('of 0-1023');
    // The serving node's snowflake layout and when it runs out (Leaf's 2^41 ms from the default epoch, 2026).
    await expect(page.getByTestId('snowflake-layout')).toHaveText('leaf');
    await expect(page.getByTestId('snowflake-settings')).toContainText('41 bits of 1 ms | 10 worker | 12 sequence');
    await expect(page.getByTestId('snowflake-ends')).toHaveText('2095-09-07');
    await expect(page.getByTestId('region-line')).toContainText('One region (LEAF_REGIONS unset)');
    await expect(rowB.getByTestId('node-worker-ids')).toHaveText(/^of 600-603,\u200b?700$/);
    await expect(rowB.getByTestId('node-worker-id')).toHaveText(/^60[0-3]$|^700$/);

    await takeFromB(bizTag, 300);
    // B's next heartbeat (every 500 ms) carries the new buffer; A reads the registry at most once a second.
    await expect(rowB.getByTestId('node-tags-held')).toHaveText('1', { timeout: 10_000 });
    await expect(rowB.getByTestId('node-ids-buffered')).not.toHaveText('0');
    const bBuffered = (await rowB.getByTestId('node-ids-buffered').textContent()) ?? '';
    // The fleet total is both rows' sum (A may hold other tags when the whole suite runs).
    const count = async (testId: string, within = page.locator('body')) =>
      Number(((await within.getByTestId(testId).textContent()) ?? '').replace(/,/g, ''));
    await expect
      .poll(
        async () =>
          (await count('fleet-buffered')) -
          (await count('node-ids-buffered', rowA)) -
          (await count('node-ids-buffered', rowB)),
        { timeout: 10_000 },
      )
      .toBe(0);

    // Expanding B's row shows the tag it holds.
    await rowB.getByTestId('node-expand').click();
    await expect(page.getByTestId('node-tags-node-b').getByTestId(`node-tag-row-${bizTag}`)).toBeVisible();

    // The dashboard, served by A, which holds nothing of the tag: the fleet columns are B's.
    await page.goto('/');
    // One page of 50 rows, sorted by name: with the whole suite's tags, find this one by searching.
    await page.getByLabel('Search tags').fill(bizTag);
    const row = page.getByTestId(`tag-row-${bizTag}`);
    await expect(row.getByTestId('fleet-nodes-cell')).toHaveText('1');
    await expect(row.getByTestId('fleet-buffered-cell')).toHaveText(bBuffered);

    // More from B: its buffer and the fleet's move on A's page.
    await takeFromB(bizTag, 200);
    await expect(row.getByTestId('fleet-buffered-cell')).not.toHaveText(bBuffered, { timeout: 10_000 });

    await page.goto('/nodes');
    await expect(rowB.getByTestId('node-tags-held')).toHaveText('1');
    await rowB.getByTestId('node-expand').click();
    await expect(page.getByTestId(`node-tag-row-${bizTag}`)).toBeVisible();
    await page.screenshot({ path: path.join(SCREENSHOTS, 'nodes.png'), fullPage: true });
  });

  test('the Nodes page tells when a snowflake ID was issued, and which IDs were issued in a window', async ({
    signedIn: page,
  }) => {
    const from = new Date(Date.now() - 1).toISOString();
    const [id] = await takeIdStrings(`${nodeB!.url}/api/id/snowflake`);
    await new Promise((resolve) => setTimeout(resolve, 2));
    const to = new Date().toISOString();
    await page.goto('/nodes');
    const card = page.getByTestId('snowflake-time');
    await card.getByLabel('When was this snowflake ID issued?').fill(id!);
    await card.getByRole('button', { name: 'Decode' }).click();
    // B's worker id is one of its reserved ones; the time lies in the window the ID was taken in.
    await expect(card.getByTestId('snowflake-decode-fields')).toHaveText(/^0 · (60[0-3]|700) · \d+$/);
    const issued = Date.parse((await card.getByTestId('snowflake-decode-time').textContent()) ?? '');
    expect(issued).toBeGreaterThanOrEqual(Date.parse(from) - 1);
    expect(issued).toBeLessThanOrEqual(Date.parse(to));

    await card.getByLabel('IDs issued from').fill(from);
    await card.getByLabel('until (not including)').fill(to);
    await card.getByRole('button', { name: 'Find the IDs' }).click();
    const range = (await card.getByTestId('snowflake-between-range').textContent()) ?? '';
    const [, low, high] = /^id BETWEEN (\d+) AND (\d+)$/.exec(range) ?? [];
    expect(BigInt(id!) >= BigInt(low!) && BigInt(id!) <= BigInt(high!), `${id} in ${range}`).toBe(true);
    // A window written without its zone is refused, not read in the browser's zone.
    await card.getByLabel('IDs issued from').fill('2026-12-07T10:00:00');
    await card.getByRole('button', { name: 'Find the IDs' }).click();
    await expect(card.getByTestId('snowflake-between-error')).toContainText('ISO 8601 with its zone');
  });

  test('the tag page shows each node’s buffer, the fleet rate chart and the step advice', async ({
    signedIn: page,
    request,
  }) => {
    const bizTag = 'checkout';
    const api = await adminApi(request);
    // A step far too small for its rate: 20 IDs last well under the 120 s a database restart takes.
    await api.createTag({ bizTag, step: 20, description: 'Checkout sessions' });
    await page.goto(`/tags/${bizTag}`);
    await expect(page.getByRole('heading', { name: bizTag, level: 1 })).toBeVisible();

    // Keep both nodes busy for a few seconds, so each has a rate and the chart has two beats per node.
    for (let i = 0; i < 8; i++) {
      await api.takeIds(bizTag, 5);
      await takeFromB(bizTag, 8);
      await page.waitForTimeout(400);
    }
    const buffers = page.getByTestId('node-buffers');
    await expect(buffers.getByTestId('node-buffer-node-a')).toBeVisible({ timeout: 10_000 });
    await expect(buffers.getByTestId('node-buffer-node-b')).toBeVisible();
    await expect(page.getByTestId('tag-fleet-nodes')).toHaveText('2');
    await expect(page.getByTestId('step-advice')).toContainText('raise the step');
    await expect(page.getByTestId('runway-warning')).toBeVisible();
    await expect(page.getByTestId('tag-fleet-runway')).toHaveAttribute('data-low', 'true');

    await page.getByTestId('chart-source').selectOption('fleet');
    await expect
      .poll(async () => Number(await page.getByTestId('rate-chart').getAttribute('data-total')), { timeout: 10_000 })
      .toBeGreaterThan(0);
    await page.getByTestId('chart-source').selectOption('node:node-b');
    await expect
      .poll(async () => Number(await page.getByTestId('rate-chart').getAttribute('data-total')), { timeout: 10_000 })
      .toBeGreaterThan(0);
    await page.getByTestId('chart-source').selectOption('fleet');
    await page.screenshot({ path: path.join(SCREENSHOTS, 'tag-fleet.png'), fullPage: true });
  });

  test('phone width: the Nodes page (expanded) and the tag page with two nodes have no sideways scrolling', async ({
    signedIn: page,
  }) => {
    await page.setViewportSize({ width: 375, height: 812 });
    await page.goto('/nodes');
    const rowB = page.getByTestId('node-row-node-b');
    await expect(rowB.getByTestId('node-state')).toHaveText('up');
    await rowB.getByTestId('node-expand').click();
    await expect(page.getByTestId('node-tags-node-b').getByTestId('node-tag-row-payments')).toBeVisible();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    await page.goto('/tags/checkout');
    await expect(page.getByTestId('node-buffers').getByTestId('node-buffer-node-b')).toBeVisible();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
  });

  test('the audit list on A shows an edit made through B', async ({ signedIn: page, request }) => {
    const bizTag = 'payments';
    const r = await request.patch(`${nodeB!.url}/api/admin/tags/${bizTag}`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      data: { description: 'Edited through node B' },
    });
    expect(r.status(), await r.text()).toBe(200);
    await page.goto('/audit');
    const edit = page.getByTestId('audit-list').getByTestId('audit-row').filter({ hasText: 'Edited through node B' });
    await expect(edit).toHaveAttribute('data-action', 'tag.edit');
    await expect(edit.getByRole('cell', { name: 'node-b', exact: true })).toBeVisible();
  });

  test('a killed node turns gone', async ({ signedIn: page }) => {
    await page.goto('/nodes');
    const rowB = page.getByTestId('node-row-node-b');
    await expect(rowB.getByTestId('node-state')).toHaveText('up');
    // SIGKILL: no goodbye, so the registry can only see its heartbeats stop (gone after 2 s without one).
    await stopChild(nodeB!.child, 0, { signal: 'SIGKILL' });
    await expect(rowB.getByTestId('node-state')).toHaveText('gone', { timeout: 10_000 });
    await expect(rowB).toHaveAttribute('data-state', 'gone');
    await expect(page.getByTestId('node-row-node-a').getByTestId('node-state')).toHaveText('up');
    await expect(page.getByTestId('fleet-nodes-up')).toContainText('1');
    await expect(page.getByTestId('fleet-nodes-up')).toContainText('1 gone');
  });
});
