import { DashboardPage, TagPage, adminApi, expect, test, uniqueTag } from './support/console';

// The fleet default is shared by every spec running at once: these tests only read it, and switch one tag.
test.describe('claim semantics', () => {
  test('the tag page switches a tag to leaf: one ID skipped, the next IDs continue above, the change is audited', async ({
    signedIn: page,
    request,
  }) => {
    const bizTag = uniqueTag('sem');
    await (await adminApi(request)).createTag({ bizTag, step: 10, maxId: '1000' });
    const tag = new TagPage(page, bizTag);
    await tag.goto();
    const card = page.getByTestId('tag-semantics');
    await expect(card.getByTestId('tag-semantics-value')).toHaveText('leaf-ts');
    await expect(card.getByRole('button', { name: 'Switch' })).toBeDisabled();

    const before = await tag.tryIt(10); // 1001..1010: the whole first segment
    expect(before[0]).toBe(1001n);
    await card.getByLabel('Semantics').selectOption('leaf');
    await card.getByRole('button', { name: 'Switch' }).click();
    await expect(card.getByRole('status')).toContainText('Switched; max_id is now');
    await expect(card.getByTestId('tag-semantics-value')).toHaveText('leaf');
    await expect(card).toContainText('this tag’s own setting');

    const after = await tag.tryIt(30);
    const all = [...before, ...after];
    expect(new Set(all).size).toBe(all.length);
    for (let i = 1; i < all.length; i++) expect(all[i]! > all[i - 1]!).toBe(true);
    await expect(page.getByTestId('audit-row').first()).toContainText('semantics leaf-ts → leaf');
  });

  test('the dashboard shows the fleet default', async ({ signedIn: page }) => {
    await new DashboardPage(page).goto();
    const card = page.getByTestId('fleet-semantics');
    await expect(card.getByTestId('fleet-semantics-value')).toHaveText(/^leaf(-ts)?$/);
    await expect(card.getByRole('button', { name: 'Switch' })).toBeDisabled();
  });
});
