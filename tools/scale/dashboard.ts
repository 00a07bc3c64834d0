/**
 * The dashboard as a new user meets it: Debian's Chromium driven by Playwright, signed in, then `/` loaded and
 * timed by the browser's own clock from navigation until the tag table shows every row of its first answer (the
 * old console renders all tags, the new one a page), and until the load event; the median of 3 first visits,
 * each in a fresh context (nothing cached). Then rows in the DOM, the page's JS heap (CDP
 * Performance.getMetrics) and the bytes its polls fetch.
 */
import { type Browser, type BrowserContext, chromium } from '@playwright/test';
import { percentile } from '../harness';
import { SCALE_TOKEN, get } from './fleet';

export interface DashboardFigures {
  /** ms from navigation until the first answer's rows are all in the table (median of 3 first visits). */
  usableMs: number;
  /** ms from navigation until the load event (the page's scripts are in), same visits. */
  loadMs?: number;
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
    const visits = [];
    for (let i = 0; i < VISITS; i++) {
      const fresh = await signedInContext(browser, port);
      visits.push(await firstVisit(fresh, expectedRows));
      await fresh.close();
    }
    const usableMs = median(visits.map((v) => v.rowsMs));
    const loadMs = median(visits.map((v) => v.loadMs));
    const context = await signedInContext(browser, port);
    const page = await context.newPage();
    const responses: Array<{ url: string; bytes: number; at: number }> = [];
    page.on('response', (response) => {
      const url = response.url();
      if (!url.includes('/api/')) return;
      void response.body().then(
        (body) => responses.push({ url, bytes: body.length, at: Date.now() }),
        () => undefined,
      );
    });
    await page.goto('/');
    await page.waitForFunction(
      ({ rows, n }) => document.querySelectorAll(rows).length >= n,
      { rows: TAG_ROWS, n: expectedRows },
      { timeout: 120_000, polling: 50 },
    );
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
      loadMs,
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

const VISITS = 3;
/** The tag table's rows (not its header or an empty-state row). */
const TAG_ROWS = 'tbody tr[data-testid^="tag-row-"]';

async function signedInContext(browser: Browser, port: number): Promise<BrowserContext> {
  const context = await browser.newContext({
    baseURL: `http://127.0.0.1:${port}`,
    viewport: { width: 1280, height: 860 },
  });
  const login = await context.request.post('/api/auth/login', { data: { token: SCALE_TOKEN } });
  if (login.status() !== 200) throw new Error(`login answered ${login.status()}`);
  return context;
}

/**
 * One first visit, timed in the page: from the document's start, each animation frame checks for the first
 * answer's rows, so the time is when a frame with them is drawn (performance.now() counts from the navigation's
 * start), not when Playwright next gets to look.
 */
async function firstVisit(context: BrowserContext, rows: number): Promise<{ rowsMs: number; loadMs: number }> {
  const page = await context.newPage();
  // A string, not a function: tsx wraps named functions in a helper that the page does not have.
  await page.addInitScript(`(() => {
    const check = () => {
      if (document.querySelectorAll(${JSON.stringify(TAG_ROWS)}).length >= ${rows}) window.__rowsAt = performance.now();
      else requestAnimationFrame(check);
    };
    requestAnimationFrame(check);
  })();`);
  await page.goto('/', { waitUntil: 'commit' });
  const seen = await page.waitForFunction(() => (window as unknown as { __rowsAt?: number }).__rowsAt, undefined, {
    timeout: 120_000,
  });
  const rowsMs = (await seen.jsonValue()) as number;
  await page.waitForLoadState('load');
  const loadMs = await page.evaluate(() => performance.getEntriesByType('navigation')[0]?.duration ?? NaN);
  await page.close();
  return { rowsMs, loadMs };
}

const median = (values: number[]) => Math.round(percentile(values, 50));
