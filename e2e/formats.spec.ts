import path from 'node:path';
import { dateFields, periodKey } from '../lib/format/period';
import { SCREENSHOTS, expect, test } from './support/console';

/**
 * Formatted tags in the console: the create form's preview follows the pattern, zone and reset as they are typed;
 * the created tag serves IDs from the detail page's "Take IDs" box, and its period count shows there and in the list.
 */
test.describe('formatted tags', () => {
  test('create with a live preview, take IDs, see them and the period count', async ({ signedIn: page }) => {
    const bizTag = 'invoice';
    await page.goto('/');
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Formats' }).click();
    await expect(page.getByRole('heading', { name: 'Formatted tags', level: 1 })).toBeVisible();

    const form = page.getByRole('form', { name: 'New formatted tag' });
    const preview = form.getByTestId('format-preview');
    await form.getByLabel('Tag').fill(bizTag);
    await form.getByLabel('Pattern').fill('INV-{yyyyMMdd}-{seq:5}');
    await form.getByLabel('Time zone').fill('Asia/Shanghai');
    const shanghaiToday = periodKey('daily', dateFields('Asia/Shanghai', Date.now()));
    await expect(preview.getByTestId('preview-ids').getByRole('listitem').first()).toHaveText(
      `INV-${shanghaiToday}-00001`,
    );
    await expect(preview.getByTestId('preview-period')).toHaveText(shanghaiToday);

    // As the operator types: a pattern that cannot serve the reset says why; the preview follows every change.
    await form.getByLabel('Pattern').fill('INV-{yyyyMM}-{seq:5}');
    await expect(preview.getByTestId('preview-error')).toContainText('{dd}');
    await form.getByLabel('Reset').selectOption('monthly');
    await expect(preview.getByTestId('preview-ids').getByRole('listitem').first()).toHaveText(
      `INV-${shanghaiToday.slice(0, 6)}-00001`,
    );
    await form.getByLabel('Reset').selectOption('daily');
    await form.getByLabel('Pattern').fill('INV{{{yyyyMMdd}}}-{seq:4}');
    await expect(preview.getByTestId('preview-ids').getByRole('listitem').nth(2)).toHaveText(
      `INV{${shanghaiToday}}-0003`,
    );
    await form.getByLabel('Time zone').fill('Mars/Base');
    await expect(preview.getByTestId('preview-error')).toContainText('not a time zone');
    await form.getByLabel('Time zone').fill('America/New_York');
    const newYorkToday = periodKey('daily', dateFields('America/New_York', Date.now()));
    await expect(preview.getByTestId('preview-period')).toHaveText(newYorkToday);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'formats.png'), fullPage: true });

    await form.getByLabel('Step').fill('25');
    await form.getByRole('button', { name: 'Create formatted tag' }).click();
    await expect(page.getByRole('heading', { name: bizTag, level: 1 })).toBeVisible();
    await expect(page.getByTestId('stat-period-count').locator('dd')).toHaveText('0');

    // Take IDs through the real route: they appear, and the period's count (what was claimed) follows.
    await page.getByLabel('How many IDs').fill('30');
    await page.getByRole('button', { name: 'Try it' }).click();
    const out = page.getByTestId('fetched-ids');
    await expect(out).toHaveAttribute('data-first', `INV{${newYorkToday}}-0001`);
    await expect(out).toHaveAttribute('data-last', `INV{${newYorkToday}}-0030`);
    await expect(out).toContainText(`INV{${newYorkToday}}-0017`);
    // 30 IDs from a step of 25: 25, then the preload of a doubled 50, and once the second segment is 10% used the
    // preload of 100 — 175 claimed.
    await expect(page.getByTestId('stat-period-count').locator('dd')).toHaveText('175');
    await expect(page.getByTestId(`period-${newYorkToday}`).getByRole('cell').nth(1)).toHaveText('175');

    // The edit form's preview continues above the count; only a wider sequence is accepted.
    const edit = page.getByRole('form', { name: 'Edit' });
    await expect(edit.getByTestId('preview-ids').getByRole('listitem').first()).toHaveText(`INV{${newYorkToday}}-0176`);
    await edit.getByLabel('Pattern').fill('INV{{{yyyyMMdd}}}-{seq:3}');
    await edit.getByRole('button', { name: 'Save' }).click();
    await expect(edit.getByText('may grow but not shrink').first()).toBeVisible();
    await edit.getByLabel('Pattern').fill('INV{{{yyyyMMdd}}}-{seq:6}');
    await edit.getByRole('button', { name: 'Save' }).click();
    await expect(page.getByText('INV{{{yyyyMMdd}}}-{seq:6}').first()).toBeVisible();

    await page.getByRole('link', { name: '← Formats' }).click();
    const row = page.getByTestId(`format-row-${bizTag}`);
    await expect(row).toContainText('America/New_York');
    await expect(row.getByTestId('format-count')).toHaveText('175');
  });
});
