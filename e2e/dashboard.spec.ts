import { DashboardPage, adminApi, expect, test, uniqueTag } from './support/console';

test.describe('dashboard', () => {
  test('create a tag: field errors beside fields, then the new row with "no load yet"', async ({ signedIn: page }) => {
    const dashboard = new DashboardPage(page);
    await dashboard.goto();

    // Checked in the browser with the server's schema, before any request.
    let form = await dashboard.createTag({ bizTag: 'bad tag!', step: '0' });
    await expect(form.getByText('Only letters, digits and _ - . : are allowed.')).toBeVisible();
    await expect(form.getByLabel('Tag', { exact: true })).toHaveAttribute('aria-invalid', 'true');
    await expect(form.getByText('At least 1.')).toBeVisible();

    // Refused by the server: the tag exists.
    form = await dashboard.createTag({ bizTag: 'demo', step: '1000' });
    await expect(form.getByLabel('Tag', { exact: true })).toHaveAttribute('aria-invalid', 'true');
    await expect(form.getByRole('alert').filter({ hasText: /exist/i })).toBeVisible();

    const bizTag = uniqueTag('order');
    form = await dashboard.createTag({ bizTag, step: '500', maxId: '1000', description: 'Order numbers' });
    await expect(form.getByRole('status')).toContainText(`Created ${bizTag}`);
    const row = dashboard.row(bizTag);
    await expect(row).toBeVisible();
    await expect(row.getByRole('link', { name: bizTag })).toHaveAttribute('href', `/tags/${bizTag}`);
    await expect(row).toContainText('no load yet');
    await expect(row).toContainText('1,000');
    await expect(row).toContainText('Order numbers');
  });

  test('rows refresh by themselves: rate, buffer and next segment after IDs are taken elsewhere', async ({ signedIn: page, request }) => {
    const api = await adminApi(request);
    const bizTag = uniqueTag('live');
    await api.createTag({ bizTag, step: 1000, description: 'Live row' });
    const dashboard = new DashboardPage(page);
    await dashboard.goto();
    const row = dashboard.row(bizTag);
    await expect(row).toContainText('no load yet');
    await api.waitForSampling(bizTag);

    // 150 IDs of a 1,000-step segment: 85% left, and past the 10% mark the next segment is fetched.
    await api.takeIds(bizTag, 150);
    await expect(row.getByRole('meter', { name: `Buffer left for ${bizTag}` })).toHaveAttribute('aria-valuenow', '85');
    await expect(row.getByText('ready')).toBeVisible();
    await expect.poll(async () => Number((await row.locator('td').first().textContent()) ?? 0), { timeout: 10_000 }).toBeGreaterThan(0);
  });

  test('empty state', async ({ signedIn: page }) => {
    await page.route('**/api/admin/tags', (route) => route.fulfill({ json: { tags: [] } }));
    await page.goto('/');
    await expect(page.getByTestId('tags-empty')).toContainText('No tags yet');
    await page.getByRole('button', { name: 'Create a tag' }).click();
    await expect(page.getByRole('form', { name: 'New tag' })).toBeVisible();
  });

  test('error state when the server cannot reach its store', async ({ signedIn: page }) => {
    await page.route('**/api/admin/tags', (route) =>
      route.fulfill({ status: 503, json: { error: { code: 'store_unavailable', message: 'The ID store cannot be reached.' } } }),
    );
    await page.goto('/');
    const error = page.getByTestId('tags-error');
    await expect(error).toContainText('The tags cannot be loaded.');
    await expect(error).toContainText('The ID store cannot be reached.');

    // The server itself gone: no answer at all.
    await page.unroute('**/api/admin/tags');
    await page.route('**/api/admin/tags', (route) => route.abort('connectionrefused'));
    await page.reload();
    await expect(error).toContainText('The server cannot be reached.');
  });

  test('figures stay on screen, marked stale, when polls start failing', async ({ signedIn: page }) => {
    const dashboard = new DashboardPage(page);
    await dashboard.goto();
    await expect(dashboard.row('demo')).toBeVisible();
    await page.route('**/api/admin/tags', (route) => route.abort('connectionrefused'));
    await expect(page.getByTestId('tags-error')).toContainText('The server stopped answering', { timeout: 10_000 });
    await expect(dashboard.row('demo')).toBeVisible();
    await expect(page.getByText(/^stale · updated/)).toBeVisible();
  });
});
