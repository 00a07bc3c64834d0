import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type NodeServer, startNodeServer } from '../tools/harness/node';
import { takeIdStrings } from '../test/support/clientIds';
import { ADMIN_TOKEN, SCREENSHOTS, expect, test } from './support/console';

/**
 * Access tokens in the console, on a node of its own (its own SQLite file): the first token closes a node's ID
 * routes to requests without one, and the suite's shared server must stay open for the other specs.
 */
test.describe.serial('access tokens', () => {
  let node: NodeServer | null = null;
  let dir = '';

  test.beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leaf-e2e-tokens-'));
    node = await startNodeServer({
      env: {
        ...process.env,
        NODE_ENV: 'production',
        DATABASE_URL: '',
        LEAF_SQLITE_FILE: path.join(dir, 'leaf.db'),
        LEAF_DATA_DIR: dir,
        LEAF_ADMIN_TOKEN: ADMIN_TOKEN,
        LEAF_LOG_LEVEL: 'warn',
        LEAF_NODE_ID: 'tokens-node',
      },
      timeoutMs: 30_000,
    });
  });

  test.afterAll(async () => {
    await node?.stop(5_000);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('create a scoped token, use it, revoke it, see it refused', async ({ page }) => {
    const url = node!.url;
    const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
    expect(
      (
        await page.request.post(`${url}/api/admin/tags`, { headers: admin, data: { bizTag: 'orders', step: 100 } })
      ).status(),
    ).toBe(201);
    // No token yet: open, as before.
    expect(await takeIdStrings(`${url}/api/id/segment/orders`)).toHaveLength(1);
    expect((await page.request.post(`${url}/api/auth/login`, { data: { token: ADMIN_TOKEN } })).status()).toBe(200);

    await page.goto(`${url}/tokens`);
    await expect(page.getByRole('heading', { name: 'Access tokens', level: 1 })).toBeVisible();
    const form = page.getByRole('form', { name: 'New access token' });
    await form.getByLabel('Name').fill('orders service');
    await form.getByRole('checkbox', { name: 'orders' }).check();
    await form.getByRole('button', { name: 'Create token' }).click();

    const created = page.getByTestId('created-token');
    await expect(created).toContainText('you will not see it again');
    await expect(created.getByRole('button', { name: 'Copy' })).toBeVisible();
    const secret = (await created.getByTestId('token-secret').textContent())!.trim();
    expect(secret).toMatch(/^lts_[A-Za-z0-9_-]{43}$/);
    const row = page.getByTestId('token-row').filter({ hasText: 'orders service' });
    await expect(row).toHaveAttribute('data-revoked', 'false');
    await expect(row).toContainText('orders');
    await page.screenshot({ path: path.join(SCREENSHOTS, 'tokens.png'), fullPage: true });

    // Used by a client: its tag is served, another tag is 403 JSON, no token is 401.
    const bearer = { authorization: `Bearer ${secret}` };
    expect(await takeIdStrings(`${url}/api/id/segment/orders?count=3`, { headers: bearer })).toHaveLength(3);
    const other = await page.request.get(`${url}/api/id/segment/demo`, { headers: bearer });
    expect(other.status()).toBe(403);
    expect(((await other.json()) as { error: { code: string } }).error.code).toBe('forbidden_tag');
    expect((await page.request.get(`${url}/api/id/segment/orders`)).status()).toBe(401);
    // The list never shows the token again.
    await page.reload();
    await expect(row).toBeVisible();
    expect(await page.content()).not.toContain(secret);

    // The console's "Take IDs" box on a closed node: the 401 asks for an ID token (the operator stays signed in),
    // and with the scoped token the tag's IDs come back.
    await page.goto(`${url}/tags/orders`);
    const take = page.getByRole('region', { name: 'Take IDs' });
    await take.getByRole('button', { name: 'Try it' }).click();
    await expect(take.getByText('No IDs.')).toBeVisible();
    await expect(take).toContainText('The ID routes require a token');
    await expect(page).toHaveURL(/\/tags\/orders$/);
    await take.getByLabel('ID token').fill(secret);
    await take.getByRole('button', { name: 'Try it' }).click();
    await expect(take.getByTestId('fetched-ids')).toContainText('10 IDs');
    await page.goto(`${url}/tokens`);

    await row.getByRole('button', { name: 'Revoke…' }).click();
    await row.getByRole('button', { name: 'Revoke “orders service”' }).click();
    await expect(row).toHaveAttribute('data-revoked', 'true');
    const refused = await page.request.get(`${url}/api/id/segment/orders`, { headers: bearer });
    expect(refused.status()).toBe(401);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('unauthorized');
  });
});
