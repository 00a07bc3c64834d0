import { DashboardPage, TagPage, expect, test, uniqueTag } from './support/console';

test.describe('opaque tags', () => {
  test('created opaque in the form; its IDs are permuted, and the decode box gives one back as its sequence number', async ({
    signedIn: page,
  }) => {
    const bizTag = uniqueTag('opq');
    const dashboard = new DashboardPage(page);
    await dashboard.goto();
    const form = await dashboard.createTag({ bizTag, step: '100', encoding: 'opaque' });
    await expect(form.getByRole('status')).toContainText(`Created ${bizTag}`);

    const tag = new TagPage(page, bizTag);
    await tag.goto();
    await expect(page.getByTestId('stat-encoding')).toContainText(/^opaque \(key [0-9a-f]{16}\)$/);
    const ids = await tag.tryIt(5);
    expect(new Set(ids).size).toBe(5);
    // Spread over the 63-bit space, not counting up from 1.
    expect(ids.every((id) => id > 2n ** 40n)).toBe(true);

    const decode = page.getByTestId('decode-id');
    await decode.getByLabel('ID').fill(String(ids[2]));
    await decode.getByRole('button', { name: 'Decode' }).click();
    // The third ID of a new tag (max_id 1, step 100) is sequence number 4.
    await expect(decode.getByTestId('decode-sequence')).toContainText(/^4 \(before the permutation\)$/);
    await expect(decode.getByTestId('decode-claimed')).toContainText('yes');

    await decode.getByLabel('ID').fill('12x');
    await decode.getByRole('button', { name: 'Decode' }).click();
    await expect(decode.getByTestId('decode-error')).toContainText('1 to 19 digits');
  });
});
