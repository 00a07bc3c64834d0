import path from 'node:path';
import { ADMIN_TOKEN, SCREENSHOTS, TagPage, adminApi, expect, test, uniqueTag } from './support/console';

test.describe('audit trail', () => {
  test("an edit in the console shows in the tag's changes and in the global list, with who, from where and the diff", async ({
    signedIn: page,
    request,
  }) => {
    const bizTag = uniqueTag('audited');
    await (await adminApi(request)).createTag({ bizTag, step: 100, description: 'before' });
    const tag = new TagPage(page, bizTag);
    await tag.goto();

    const changes = page.getByTestId('audit-list');
    await expect(changes.getByTestId('audit-row')).toHaveCount(1);
    await expect(changes.getByTestId('audit-row').first()).toHaveAttribute('data-action', 'tag.create');
    await expect(changes.getByTestId('audit-row').first()).toContainText(/token:[0-9a-f]{8}/);

    const settings = page.getByRole('form', { name: 'Settings' });
    await settings.getByLabel('Step').fill('750');
    await settings.getByLabel('Description').fill('after');
    await settings.getByRole('button', { name: 'Save settings' }).click();
    await expect(settings.getByRole('status')).toHaveText('Saved.');

    const edit = changes.getByTestId('audit-row').first();
    await expect(edit).toHaveAttribute('data-action', 'tag.edit');
    await expect(edit).toContainText('step 100 → 750');
    await expect(edit).toContainText('description “before” → “after”');
    await expect(edit).toContainText(/session:[A-Za-z0-9_-]{16}/);
    await expect(edit).toContainText('127.0.0.1');
    expect(await page.content()).not.toContain(ADMIN_TOKEN);

    await page.getByRole('link', { name: 'Audit', exact: true }).click();
    await expect(page.getByRole('heading', { name: 'Audit trail', level: 1 })).toBeVisible();
    const global = page.getByTestId('audit-list');
    const newest = global.getByTestId('audit-row').first();
    await expect(newest).toHaveAttribute('data-action', 'tag.edit');
    await expect(newest.getByRole('link', { name: bizTag })).toBeVisible();
    await expect(newest).toContainText('step 100 → 750');
    // The sign-in of this test is in the list too.
    await expect(global.locator('[data-action="auth.login"]').first()).toContainText('127.0.0.1');
    await page.screenshot({ path: path.join(SCREENSHOTS, 'audit.png'), fullPage: true });
  });

  test('"Older" pages back through more entries than one page holds', async ({ signedIn: page, request }) => {
    const bizTag = uniqueTag('many');
    const api = await adminApi(request);
    await api.createTag({ bizTag, step: 1 });
    const headers = { authorization: `Bearer ${ADMIN_TOKEN}` };
    for (let step = 2; step <= 55; step++) {
      const r = await request.patch(`/api/admin/tags/${bizTag}`, { headers, data: { step } });
      expect(r.status()).toBe(200);
    }
    await new TagPage(page, bizTag).goto();
    const rows = page.getByTestId('audit-list').getByTestId('audit-row');
    await expect(rows).toHaveCount(50);
    await expect(rows.first()).toContainText('step 54 → 55');
    await page.getByRole('button', { name: 'Older' }).click();
    await expect(rows).toHaveCount(55);
    await expect(rows.last()).toHaveAttribute('data-action', 'tag.create');
    await expect(page.getByRole('button', { name: 'Older' })).toHaveCount(0);
  });
});

test('the audit page at phone width: rows become cards, no sideways scrolling', async ({
  signedIn: page,
  request,
}, testInfo) => {
  const bizTag = uniqueTag('phone-audit');
  await (
    await adminApi(request)
  ).createTag({ bizTag, step: 10, description: 'A long description that has to wrap on a phone screen, surely' });
  await page.setViewportSize({ width: 375, height: 812 });
  await page.goto('/audit');
  await expect(page.getByTestId('audit-list').getByRole('link', { name: bizTag })).toBeVisible();
  await expect(page.getByTestId('audit-list').locator('thead')).toBeHidden();
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
  await page.screenshot({ path: testInfo.outputPath('audit-phone.png'), fullPage: true });
});
