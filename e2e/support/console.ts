import path from 'node:path';
import { type APIRequestContext, type Locator, type Page, expect, test as base } from '@playwright/test';
import { takeIdStrings } from '../../test/support/clientIds';

export const ADMIN_TOKEN = process.env.LEAF_E2E_TOKEN as string;
/** The server playwright.config.ts starts. */
export const E2E_URL = `http://127.0.0.1:${process.env.LEAF_E2E_PORT}`;
/**
 * Screenshots are test artifacts (test-results/); LEAF_E2E_SCREENSHOTS=update refreshes the committed copies in
 * e2e/screenshots/ that the README shows, so an ordinary run leaves the tree clean.
 */
export const SCREENSHOTS =
  process.env.LEAF_E2E_SCREENSHOTS === 'update'
    ? path.join(__dirname, '..', 'screenshots')
    : path.join(__dirname, '..', '..', 'test-results', 'e2e', 'screenshots');

let counter = 0;
/** A tag name no other test uses (the server's database lives for the whole run). */
export function uniqueTag(prefix: string): string {
  counter += 1;
  return `${prefix}-${Date.now().toString(36)}${counter}`;
}

/** The admin API with the Bearer token, for setting the scene without clicking. */
export async function adminApi(request: APIRequestContext) {
  const headers = { authorization: `Bearer ${ADMIN_TOKEN}` };
  return {
    async createTag(body: { bizTag: string; step: number; maxId?: string; description?: string }) {
      const r = await request.post('/api/admin/tags', { headers, data: body });
      expect(r.status(), await r.text()).toBe(201);
    },
    /**
     * Waits until the node samples the tag's consumption (once a second). IDs taken before a tag's first sample
     * count as its starting total, not as consumption, so rate assertions start after it.
     */
    async waitForSampling(bizTag: string) {
      await expect
        .poll(
          async () => {
            const r = await request.get(`/api/admin/tags/${bizTag}`, { headers });
            return ((await r.json()) as { history: { rate: unknown[] } }).history.rate.length;
          },
          { timeout: 5_000, intervals: [200] },
        )
        .toBeGreaterThan(0);
    },
    /** As a client takes them (test/support/clientIds.ts: retryable answers retried). */
    takeIds(bizTag: string, count: number): Promise<string[]> {
      return takeIdStrings(`${E2E_URL}/api/id/segment/${bizTag}?count=${count}`);
    },
  };
}

export class DashboardPage {
  constructor(readonly page: Page) {}
  async goto() {
    await this.page.goto('/');
    await expect(this.page.getByRole('heading', { name: 'Tags', level: 1 })).toBeVisible();
  }
  row(bizTag: string): Locator {
    return this.page.getByTestId(`tag-row-${bizTag}`);
  }
  /** The list shows a page of 50: narrows it to `text` (tags from other tests may push a row to a later page). */
  async search(text: string) {
    const answered = this.page.waitForResponse(
      (r) => r.url().includes('/api/admin/tags?') && new URL(r.url()).searchParams.get('q') === text.trim(),
    );
    await this.page.getByLabel('Search tags').fill(text);
    await answered;
  }
  async createTag(values: {
    bizTag: string;
    step?: string;
    maxId?: string;
    description?: string;
    encoding?: 'plain' | 'opaque' | 'opaque-js-safe';
  }) {
    const form = this.page.getByRole('form', { name: 'New tag' });
    if (!(await form.isVisible())) await this.page.getByRole('button', { name: 'New tag' }).click();
    await form.getByLabel('Tag', { exact: true }).fill(values.bizTag);
    if (values.encoding !== undefined) await form.getByLabel('Encoding').selectOption(values.encoding);
    if (values.step !== undefined) await form.getByLabel('Step').fill(values.step);
    await form.getByLabel('Initial max_id').fill(values.maxId ?? '');
    await form.getByLabel('Description').fill(values.description ?? '');
    await form.getByRole('button', { name: 'Create tag' }).click();
    return form;
  }
}

export class TagPage {
  constructor(
    readonly page: Page,
    readonly bizTag: string,
  ) {}
  async goto() {
    await this.page.goto(`/tags/${this.bizTag}`);
    await expect(this.page.getByRole('heading', { name: this.bizTag, level: 1 })).toBeVisible();
  }
  /** Takes `count` IDs with "Try it" and returns them as numbers. */
  async tryIt(count: number): Promise<bigint[]> {
    await this.page.getByLabel('How many IDs').fill(String(count));
    const shown = this.page.getByTestId('fetched-ids');
    const before = (await shown.count()) > 0 ? await shown.getAttribute('data-last') : null;
    await this.page.getByRole('button', { name: 'Try it' }).click();
    const out = this.page.getByTestId('fetched-ids');
    await expect(out).toBeVisible();
    if (before !== null) await expect(out).not.toHaveAttribute('data-last', before);
    const text = (await out.locator('.id-list').textContent()) ?? '';
    const ids = text
      .trim()
      .split(/\s+/)
      .map((s) => BigInt(s));
    expect(ids).toHaveLength(count);
    return ids;
  }
  /** IDs issued in the rate chart's 15-minute window. */
  rateTotal(): Promise<number> {
    return this.page.getByTestId('rate-chart').getAttribute('data-total').then(Number);
  }
}

/**
 * A console error is a fault — a CSP violation, a hydration mismatch, anything — except the browser's note of a
 * request that failed, which specs provoke on purpose (a wrong token's 401, a missing tag's 404, a refused connection).
 */
const EXPECTED_CONSOLE_ERROR = /^Failed to load resource: /;

/**
 * `page` comes signed in (session cookie from the login route), so tests start where they mean to. Every test
 * also fails on an uncaught page error or a console error: a hydration mismatch (server HTML that the browser
 * rendered otherwise), a script or style the Content-Security-Policy refused, a CSP violation report.
 */
export const test = base.extend<{ signedIn: Page; pageFaults: string[] }>({
  pageFaults: [
    async ({ page }, use) => {
      const faults: string[] = [];
      page.on('pageerror', (error) => faults.push(`pageerror: ${error.message}`));
      page.on('console', (message) => {
        if (message.type() === 'error' && !EXPECTED_CONSOLE_ERROR.test(message.text()))
          faults.push(`console: ${message.text()}`);
      });
      await use(faults);
      expect(faults, 'page errors or hydration mismatches').toEqual([]);
    },
    { auto: true },
  ],
  signedIn: async ({ page }, use) => {
    const r = await page.request.post('/api/auth/login', { data: { token: ADMIN_TOKEN } });
    expect(r.status()).toBe(200);
    await use(page);
  },
});

export { expect };
