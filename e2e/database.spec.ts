import type { HealthView } from '../lib/admin/views';
import galera from './fixtures/health-galera-3.json';
import type { Locator } from '@playwright/test';
import { DashboardPage, expect, test } from './support/console';

/**
 * The dashboard's Database card. SQLite against the real server; the three-host Galera case with /api/health
 * answered by a fixture in the shape of the real answer (HostHealth): one node Synced in the Primary component,
 * one the node cannot reach, one isolated (non-Primary). That checks the rendering only; the real JSON is tested
 * in the unit and integration suites.
 */
const threeHosts = galera as HealthView;

/** Elements of the card that stick out of it (overflow to the left escapes scrollWidth, so it is checked here). */
function overflowing(card: Locator): Promise<string[]> {
  return card.evaluate((root) => {
    const box = root.getBoundingClientRect();
    return [...root.querySelectorAll('*')]
      .filter((el) => {
        const r = el.getBoundingClientRect();
        return r.width > 0 && (r.left < box.left - 0.5 || r.right > box.right + 0.5);
      })
      .map((el) => `${el.tagName.toLowerCase()}.${el.className}: ${(el.textContent ?? '').slice(0, 40)}`);
  });
}

test.describe('database card', () => {
  test('SQLite: one line from the real server', async ({ signedIn: page }) => {
    const dashboard = new DashboardPage(page);
    await dashboard.goto();
    const card = page.getByTestId('database');
    await expect(card.getByRole('heading', { name: 'Database', level: 2 })).toBeVisible();
    await expect(card.getByTestId('database-line')).toHaveText(
      /^reachable\s*Embedded SQLite — reachable, \d+(\.\d)? ms$/,
    );
    await expect(card.getByRole('table')).toHaveCount(0);
    await expect(card.getByText(/^live · updated/)).toBeVisible();
  });

  test('three Galera hosts: one row each, the troubled ones say why in words', async ({ signedIn: page }, testInfo) => {
    await page.route('**/api/health', (route) => route.fulfill({ json: threeHosts }));
    const dashboard = new DashboardPage(page);
    await dashboard.goto();
    const card = page.getByTestId('database');
    await expect(card.getByTestId('database-summary')).toHaveText(
      'Store reachable, 1.8 ms · 2 of 3 hosts need attention',
    );
    const rows = card.getByRole('table', { name: 'Database hosts' }).locator('tbody tr');
    await expect(rows).toHaveCount(3);

    const synced = card.getByTestId('db-host-10.0.0.11:3306');
    await expect(synced).toContainText('10.0.0.11:3306');
    await expect(synced).toContainText('reachable');
    await expect(synced).toContainText('Synced · 2 nodes · Primary');
    await expect(synced).toContainText('2.4 ms');
    await expect(synced).not.toContainText('⚠');
    await expect(synced).not.toHaveClass(/db-host-problem/);

    const down = card.getByTestId('db-host-10.0.0.12:3306');
    await expect(down.getByText('unreachable', { exact: true })).toBeVisible();
    await expect(down).toContainText('unreachable (TIMEOUT)');
    await expect(down).toContainText('failed after 1,001 ms');
    await expect(down.locator('td[data-label="Galera"]')).toHaveText('—');
    await expect(down).toHaveClass(/db-host-problem/);

    const minority = card.getByTestId('db-host-10.0.0.13:3306');
    await expect(minority.getByText('reachable', { exact: true })).toBeVisible();
    await expect(minority).toContainText('Initialized · 1 node · non-Primary');
    await expect(minority).toContainText('not Synced (Initialized), non-Primary, not accepting queries');
    await expect(minority).toContainText('3.1 ms');
    await expect(minority).toHaveClass(/db-host-problem/);
    expect(await overflowing(card)).toEqual([]);
    await card.screenshot({ path: testInfo.outputPath('database-card-desktop-light.png') });
  });

  test('error, then stale when health stops answering', async ({ signedIn: page }) => {
    await page.route('**/api/health', (route) => route.abort('connectionrefused'));
    const dashboard = new DashboardPage(page);
    await dashboard.goto();
    const error = page.getByTestId('database-error');
    await expect(error).toContainText('The database health cannot be loaded.');
    await expect(error).toContainText('The server cannot be reached.');

    await page.unroute('**/api/health');
    await page.route('**/api/health', (route) => route.fulfill({ json: threeHosts }));
    await page.reload();
    await expect(page.getByTestId('db-host-10.0.0.11:3306')).toBeVisible();
    await page.unroute('**/api/health');
    await page.route('**/api/health', (route) => route.abort('connectionrefused'));
    await expect(error).toContainText('The server stopped answering; this is the last good answer.', {
      timeout: 10_000,
    });
    await expect(page.getByTestId('db-host-10.0.0.11:3306')).toBeVisible();
    await expect(page.getByTestId('database').getByText(/^stale · updated/)).toBeVisible();
  });

  test('phone width (375 px) in dark mode: host rows fit without sideways scrolling', async ({
    signedIn: page,
  }, testInfo) => {
    await page.route('**/api/health', (route) => route.fulfill({ json: threeHosts }));
    await page.setViewportSize({ width: 375, height: 812 });
    await page.emulateMedia({ colorScheme: 'dark' });
    const dashboard = new DashboardPage(page);
    await dashboard.goto();
    const card = page.getByTestId('database');
    await expect(card.getByTestId('db-host-10.0.0.13:3306')).toContainText('non-Primary');
    await expect(card.locator('thead')).toBeHidden();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    const box = await card.boundingBox();
    expect((box?.x ?? 0) + (box?.width ?? 0)).toBeLessThanOrEqual(375);
    expect(await overflowing(card)).toEqual([]);
    await card.scrollIntoViewIfNeeded();
    await page.screenshot({ path: testInfo.outputPath('database-phone-dark.png'), fullPage: true });
    await card.screenshot({ path: testInfo.outputPath('database-card-phone-dark.png') });
  });
});
