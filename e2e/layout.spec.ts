import { DashboardPage, TagPage, adminApi, expect, test, uniqueTag } from './support/console';

/** Phone width and dark mode: nothing wider than the screen, and the dark palette in force. */
test.describe('layout', () => {
  test('phone width (375 px) in dark mode: rows become cards, no sideways scrolling', async ({
    signedIn: page,
    request,
  }, testInfo) => {
    const bizTag = uniqueTag('phone');
    const api = await adminApi(request);
    await api.createTag({ bizTag, step: 1000, description: 'A long description that has to wrap on a phone screen' });
    await api.takeIds(bizTag, 120);
    await page.setViewportSize({ width: 375, height: 812 });
    await page.emulateMedia({ colorScheme: 'dark' });

    const dashboard = new DashboardPage(page);
    await dashboard.goto();
    await dashboard.search(bizTag);
    await expect(dashboard.row(bizTag)).toBeVisible();
    await expect(page.locator('thead').first()).toBeHidden();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    expect(bg).toBe('rgb(16, 19, 24)');
    await page.screenshot({ path: testInfo.outputPath('dashboard-phone-dark.png'), fullPage: true });

    const tag = new TagPage(page, bizTag);
    await tag.goto();
    await tag.tryIt(5);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    await page.screenshot({ path: testInfo.outputPath('tag-phone-dark.png'), fullPage: true });
  });
});
