import path from 'node:path';
import { DashboardPage, SCREENSHOTS, TagPage, adminApi, expect, test, uniqueTag } from './support/console';

test.describe('tag page', () => {
  test('"Try it" takes IDs from the real route, and the charts, buffer and load log move', async ({
    signedIn: page,
    request,
  }) => {
    // A plain name: this page is the committed screenshot (each run has its own database).
    const bizTag = 'orders';
    const api = await adminApi(request);
    await api.createTag({ bizTag, step: 200, maxId: '5000', description: 'Order numbers' });
    await api.waitForSampling(bizTag);
    const tag = new TagPage(page, bizTag);
    await tag.goto();
    await expect(page.getByTestId('buffer-gauges')).toContainText('no load yet');
    await expect(page.getByRole('table', { name: 'Claims' })).toHaveCount(0);

    const ids = await tag.tryIt(50);
    expect(ids[0]).toBe(5001n);
    for (let i = 1; i < ids.length; i++) expect(ids[i]).toBe(ids[i - 1]! + 1n);

    // The rate history is sampled once a second and the page polls every 2 s.
    await expect.poll(() => tag.rateTotal(), { timeout: 10_000 }).toBeGreaterThanOrEqual(50);
    await expect(page.getByTestId('rate-total')).toContainText('IDs recorded');
    await expect(page.getByRole('meter', { name: 'Current segment left' })).toHaveAttribute('aria-valuenow', '75');
    await expect(page.getByRole('table', { name: 'Claims' }).getByRole('row')).not.toHaveCount(1);
    await expect(page.getByTestId('step-chart').locator('.recharts-line')).toBeVisible();

    // A second batch continues where the first ended.
    const more = await tag.tryIt(20);
    expect(more[0]).toBe(ids[ids.length - 1]! + 1n);
    await expect.poll(() => tag.rateTotal(), { timeout: 10_000 }).toBeGreaterThanOrEqual(70);

    await page.screenshot({ path: path.join(SCREENSHOTS, 'tag.png'), fullPage: true });
    await new DashboardPage(page).goto();
    await expect(new DashboardPage(page).row(bizTag)).toBeVisible();
    await page.screenshot({ path: path.join(SCREENSHOTS, 'dashboard.png'), fullPage: true });
  });

  test('edit step and description', async ({ signedIn: page, request }) => {
    const bizTag = uniqueTag('edit');
    await (await adminApi(request)).createTag({ bizTag, step: 100 });
    const tag = new TagPage(page, bizTag);
    await tag.goto();
    const settings = page.getByRole('form', { name: 'Settings' });

    await settings.getByLabel('Step').fill('2000000');
    await settings.getByRole('button', { name: 'Save settings' }).click();
    await expect(settings.getByText('At most 1,000,000.')).toBeVisible();

    await settings.getByLabel('Step').fill('750');
    await settings.getByLabel('Description').fill('Invoices, edited');
    await settings.getByRole('button', { name: 'Save settings' }).click();
    await expect(settings.getByRole('status')).toHaveText('Saved.');
    await expect(page.getByText('Invoices, edited').first()).toBeVisible();

    await page.reload();
    await expect(page.getByRole('form', { name: 'Settings' }).getByLabel('Step')).toHaveValue('750');
    await expect(page.getByTestId('stat-step')).toContainText('750');
    const dashboard = new DashboardPage(page);
    await dashboard.goto();
    await dashboard.search(bizTag);
    await expect(dashboard.row(bizTag)).toContainText('750');
    await expect(dashboard.row(bizTag)).toContainText('Invoices, edited');
  });

  test('max_id can be raised but not lowered: the refusal is shown beside the field', async ({
    signedIn: page,
    request,
  }) => {
    const bizTag = uniqueTag('maxid');
    await (await adminApi(request)).createTag({ bizTag, step: 100, maxId: '10000' });
    const tag = new TagPage(page, bizTag);
    await tag.goto();
    const form = page.getByRole('form', { name: 'Raise max_id' });

    await form.getByLabel('New max_id').fill('500');
    await form.getByRole('button', { name: 'Raise max_id' }).click();
    await expect(form.getByLabel('New max_id')).toHaveAttribute('aria-invalid', 'true');
    await expect(form.getByText('Must be at least 10000.')).toBeVisible();
    await expect(form.getByRole('alert').filter({ hasText: 'It can only be raised.' })).toBeVisible();
    await expect(page.getByTestId('current-max-id')).toHaveText('10,000');

    await form.getByLabel('New max_id').fill('20000');
    await form.getByRole('button', { name: 'Raise max_id' }).click();
    await expect(form.getByRole('status')).toHaveText('max_id is now 20,000.');
    await expect(page.getByTestId('current-max-id')).toHaveText('20,000');
    const [first] = await tag.tryIt(1);
    expect(first).toBe(20001n);
  });

  test('delete with typed confirmation, re-create, and the new IDs are above the old ones', async ({
    signedIn: page,
  }) => {
    const bizTag = uniqueTag('again');
    const dashboard = new DashboardPage(page);
    await dashboard.goto();
    await dashboard.createTag({ bizTag, step: '100' });
    await dashboard.search(bizTag);
    await dashboard.row(bizTag).getByRole('link', { name: bizTag }).click();
    const tag = new TagPage(page, bizTag);
    await expect(page.getByRole('heading', { name: bizTag, level: 1 })).toBeVisible();
    const before = await tag.tryIt(30);
    const highest = before[before.length - 1]!;

    const form = page.getByRole('form', { name: 'Delete tag' });
    const button = form.getByRole('button', { name: 'Delete tag' });
    await form.getByLabel(`Type ${bizTag} to confirm`).fill(bizTag.slice(0, -1));
    await expect(button).toBeDisabled();
    await form.getByLabel(`Type ${bizTag} to confirm`).fill(bizTag);
    await button.click();
    await expect(page).toHaveURL(/\/$/);
    await expect(dashboard.row(bizTag)).toHaveCount(0);
    const gone = await page.request.get(`/api/id/segment/${bizTag}`);
    expect(gone.status()).toBe(404);

    await dashboard.createTag({ bizTag, step: '100' });
    await dashboard.search(bizTag);
    await expect(dashboard.row(bizTag)).toBeVisible();
    await dashboard.row(bizTag).getByRole('link', { name: bizTag }).click();
    await expect(page.getByRole('heading', { name: bizTag, level: 1 })).toBeVisible();
    const after = await tag.tryIt(10);
    expect(after[0]! > highest).toBe(true);
  });

  test('the claim log says when an ID was handed out, and which IDs a window holds', async ({
    signedIn: page,
    request,
  }) => {
    const bizTag = uniqueTag('when');
    const api = await adminApi(request);
    await api.createTag({ bizTag, step: 100 });
    const tag = new TagPage(page, bizTag);
    await tag.goto();
    const before = new Date(Date.now() - 60_000).toISOString();
    const ids = await tag.tryIt(5);
    const after = new Date(Date.now() + 60_000).toISOString();

    const decode = page.getByTestId('decode-id');
    await decode.getByLabel('ID').fill(String(ids[2]));
    await decode.getByRole('button', { name: 'Decode' }).click();
    await expect(decode.getByTestId('decode-issued')).toContainText('claimed by');
    await expect(decode.getByTestId('decode-issued')).toContainText('handed out between');

    const issued = page.getByTestId('issued-between');
    await issued.getByLabel('From').fill(before);
    await issued.getByLabel('To').fill(after);
    await issued.getByRole('button', { name: 'Find the IDs' }).click();
    const ranges = issued.getByTestId('issued-ranges');
    await expect(ranges).toBeVisible();
    const [first, last] = ((await ranges.locator('li').first().textContent()) ?? '')
      .split('…')
      .map((t) => BigInt(t.replace(/[^0-9]/g, '')));
    expect(first! <= ids[0]! && ids[4]! <= last!).toBe(true);
    await expect(issued.getByTestId('issued-retention')).toContainText('90 days');

    // A window before the tag existed holds none of its IDs.
    await issued.getByLabel('From').fill('2020-01-01T00:00:00Z');
    await issued.getByLabel('To').fill('2020-01-02T00:00:00Z');
    await issued.getByRole('button', { name: 'Find the IDs' }).click();
    await expect(issued.getByTestId('issued-none')).toBeVisible();
  });

  test('an unknown tag says so', async ({ signedIn: page }) => {
    await page.goto('/tags/no-such-tag');
    await expect(page.getByTestId('tag-error')).toContainText('There is no tag named “no-such-tag”.');
  });
});
