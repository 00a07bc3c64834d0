/**
 * The dashboard as a new user meets it: Debian's Chromium driven by Playwright, signed in, then `/` loaded and
 * timed until the tag table shows every row of its first answer (the old console renders all tags, the new one a
 * page); then rows in the DOM, the page's JS heap (CDP Performance.getMetrics) and the bytes its polls fetch.
 */
import { chromium } from '@playwright/test';
import { SCALE_TOKEN, get } from './fleet';

export interface DashboardFigures {
  /** ms from navigation until the first answer's rows are all in the table. */
  usableMs: number;
  domRows: number;
  heapUsedMb: number;
  heapTotalMb: number;
  /** Over `watchMs` after usable: tag-list polls, their bytes, and every /api/ answer's bytes. */
  watchMs: number;
  listPolls: number;
  listBytesPerPoll: number;
  apiBytes: number;
}

export async function measureDashboard(port: number, watchMs: number): Promise<DashboardFigures> {
  // What the first answer holds: the old API answers every tag, the new one a page (with `total`).
  const first = JSON.parse((await get(port, '/api/admin/tags')).body.toString('utf8')) as { tags: unknown[] };
  const expectedRows = first.tags.length;
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
  try {
    const context = await browser.newContext({
      baseURL: `http://127.0.0.1:${port}`,
      viewport: { width: 1280, height: 860 },
    });
    const page = await context.newPage();
    const login = await page.request.post('/api/auth/login', { data: { token: SCALE_TOKEN } });
    if (login.status() !== 200) throw new Error(`login answered ${login.status()}`);
    const responses: Array<{ url: string; bytes: number; at: number }> = [];
    page.on('response', (response) => {
      const url = response.url();
      if (!url.includes('/api/')) return;
      void response.body().then(
        (body) => responses.push({ url, bytes: body.length, at: Date.now() }),
        () => undefined,
      );
    });
    const started = Date.now();
    await page.goto('/');
    await page.waitForFunction(
      (n) => document.querySelectorAll('tbody tr[data-testid^="tag-row-"]').length >= n,
      expectedRows,
      { timeout: 120_000, polling: 50 },
    );
    const usableMs = Date.now() - started;
    const watchFrom = Date.now();
    await page.waitForTimeout(watchMs);
    const domRows = await page.locator('tr').count();
    const cdp = await context.newCDPSession(page);
    await cdp.send('Performance.enable');
    const { metrics } = (await cdp.send('Performance.getMetrics')) as {
      metrics: Array<{ name: string; value: number }>;
    };
    const metric = (name: string) => (metrics.find((m) => m.name === name)?.value ?? 0) / 2 ** 20;
    const watched = responses.filter((r) => r.at >= watchFrom);
    const list = watched.filter((r) => new URL(r.url).pathname === '/api/admin/tags');
    return {
      usableMs,
      domRows,
      heapUsedMb: metric('JSHeapUsedSize'),
      heapTotalMb: metric('JSHeapTotalSize'),
      watchMs,
      listPolls: list.length,
      listBytesPerPoll: list.length === 0 ? 0 : list.reduce((s, r) => s + r.bytes, 0) / list.length,
      apiBytes: watched.reduce((s, r) => s + r.bytes, 0),
    };
  } finally {
    await browser.close();
  }
}
