import { DashboardPage, adminApi, expect, test, uniqueTag } from './support/console';

/** The list's poll: GET /api/admin/tags with its page query. */
const TAG_LIST = '**/api/admin/tags?*';

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
    await dashboard.search(bizTag);
    const row = dashboard.row(bizTag);
    await expect(row).toBeVisible();
    await expect(row.getByRole('link', { name: bizTag })).toHaveAttribute('href', `/tags/${bizTag}`);
    await expect(row).toContainText('no load yet');
    await expect(row).toContainText('1,000');
    await expect(row).toContainText('Order numbers');
  });

  test('rows refresh by themselves: rate, buffer and next segment after IDs are taken elsewhere', async ({
    signedIn: page,
    request,
  }) => {
    const api = await adminApi(request);
    const bizTag = uniqueTag('live');
    await api.createTag({ bizTag, step: 1000, description: 'Live row' });
    const dashboard = new DashboardPage(page);
    await dashboard.goto();
    await dashboard.search(bizTag);
    const row = dashboard.row(bizTag);
    await expect(row).toContainText('no load yet');
    await api.waitForSampling(bizTag);

    // 150 IDs of a 1,000-step segment: 85% left, and past the 10% mark the next segment is fetched.
    await api.takeIds(bizTag, 150);
    await expect(row.getByRole('meter', { name: `Buffer left for ${bizTag}` })).toHaveAttribute('aria-valuenow', '85');
    await expect(row.getByText('ready')).toBeVisible();
    await expect
      .poll(async () => Number((await row.locator('td').first().textContent()) ?? 0), { timeout: 10_000 })
      .toBeGreaterThan(0);
  });

  test('empty state', async ({ signedIn: page }) => {
    await page.route(TAG_LIST, (route) =>
      route.fulfill({
        json: { tags: [], total: 0, offset: 0, limit: 50, totals: { tags: 0, loaded: 0, ratePerSec: 0 } },
      }),
    );
    await page.goto('/');
    await expect(page.getByTestId('tags-empty')).toContainText('No tags yet');
    await page.getByRole('button', { name: 'Create a tag' }).click();
    await expect(page.getByRole('form', { name: 'New tag' })).toBeVisible();
  });

  test('the first page of rows comes with the HTML, for the list the address names', async ({ signedIn: page }) => {
    const html = await (await page.request.get('/?q=demo')).text();
    expect(html).toContain('data-testid="tag-row-demo"');
    // The browser shows them with the list API out of reach: they can only have come with the page.
    await page.route(TAG_LIST, (route) => route.abort('connectionrefused'));
    await page.goto('/?q=demo');
    await expect(new DashboardPage(page).row('demo')).toBeVisible();
  });

  test('error state when the server cannot reach its store', async ({ signedIn: page }) => {
    // The first page of rows comes with the HTML; the answers after it find the store gone.
    const dashboard = new DashboardPage(page);
    await page.goto('/?q=demo');
    await expect(dashboard.row('demo')).toBeVisible();
    await page.route(TAG_LIST, (route) =>
      route.fulfill({
        status: 503,
        json: { error: { code: 'store_unavailable', message: 'The ID store cannot be reached.' } },
      }),
    );
    const error = page.getByTestId('tags-error');
    await expect(error).toContainText('The server stopped answering', { timeout: 10_000 });
    await expect(error).toContainText('The ID store cannot be reached.');
    await expect(dashboard.row('demo')).toBeVisible();

    // The server itself gone: no answer at all.
    await page.unroute(TAG_LIST);
    await page.route(TAG_LIST, (route) => route.abort('connectionrefused'));
    await expect(error).toContainText('The server cannot be reached.', { timeout: 10_000 });
  });

  test('figures stay on screen, marked stale, when polls start failing', async ({ signedIn: page }) => {
    const dashboard = new DashboardPage(page);
    await dashboard.goto();
    await dashboard.search('demo');
    await expect(dashboard.row('demo')).toBeVisible();
    await page.route(TAG_LIST, (route) => route.abort('connectionrefused'));
    await expect(page.getByTestId('tags-error')).toContainText('The server stopped answering', { timeout: 10_000 });
    await expect(dashboard.row('demo')).toBeVisible();
    await expect(page.getByText(/^stale · updated/)).toBeVisible();
  });

  test('search, sort and pages run on the server; a poll fetches only the page on screen', async ({
    signedIn: page,
    request,
  }) => {
    const api = await adminApi(request);
    const prefix = uniqueTag('page');
    for (let i = 0; i < 60; i++) {
      await api.createTag({
        bizTag: `${prefix}-${String(i).padStart(2, '0')}`,
        step: 100,
        maxId: String(1000 + i),
        description: i % 20 === 7 ? 'Needle in a haystack' : undefined,
      });
    }
    const dashboard = new DashboardPage(page);
    await dashboard.goto();
    const polls: string[] = [];
    page.on('request', (r) => {
      if (r.url().includes('/api/admin/tags?')) polls.push(r.url());
    });
    await page.getByLabel('Search tags').fill(prefix);
    await expect(page.getByTestId('tags-range')).toHaveText('1–50 of 60');
    await expect(page.locator('tbody tr')).toHaveCount(50);
    await expect(dashboard.row(`${prefix}-00`)).toBeVisible();
    await expect(dashboard.row(`${prefix}-50`)).toHaveCount(0);

    await page.getByRole('button', { name: 'Next' }).click();
    await expect(page.getByTestId('tags-range')).toHaveText('51–60 of 60');
    await expect(page.locator('tbody tr')).toHaveCount(10);
    await expect(dashboard.row(`${prefix}-59`)).toBeVisible();

    // Sorting goes back to page 1: max_id largest first.
    await page.getByRole('button', { name: 'max_id' }).click();
    await expect(page.getByRole('columnheader', { name: 'max_id' })).toHaveAttribute('aria-sort', 'descending');
    await expect(page.getByTestId('tags-range')).toHaveText('1–50 of 60');
    await expect(page.locator('tbody tr').first()).toHaveAttribute('data-testid', `tag-row-${prefix}-59`);
    await page.getByRole('button', { name: 'max_id' }).click();
    await expect(page.locator('tbody tr').first()).toHaveAttribute('data-testid', `tag-row-${prefix}-00`);

    // The address bar keeps search, sort and page: a reload (or a shared link) shows the same page.
    await page.getByRole('button', { name: 'Next' }).click();
    await expect(page.getByTestId('tags-range')).toHaveText('51–60 of 60');
    await expect(page).toHaveURL(new RegExp(`\\?q=${prefix}&sort=maxId&page=2$`));
    await page.reload();
    await expect(page.getByLabel('Search tags')).toHaveValue(prefix);
    await expect(page.getByTestId('tags-range')).toHaveText('51–60 of 60');
    await expect(page.getByRole('columnheader', { name: 'max_id' })).toHaveAttribute('aria-sort', 'ascending');
    await expect(page.locator('tbody tr').first()).toHaveAttribute('data-testid', `tag-row-${prefix}-50`);

    // Descriptions are searched too; one page, no pager.
    await page.getByLabel('Search tags').fill('needle IN a');
    await expect(page.locator('tbody tr')).toHaveCount(3);
    await expect(page.getByTestId('tags-range')).toHaveCount(0);
    await page.getByLabel('Search tags').fill('no-such-tag-anywhere');
    await expect(page.getByTestId('tags-no-match')).toBeVisible();

    expect(polls.length).toBeGreaterThan(0);
    expect(polls.every((u) => new URL(u).searchParams.get('limit') === '50')).toBe(true);
  });
});
