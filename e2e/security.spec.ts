import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ADMIN_TOKEN, E2E_URL, expect, test, uniqueTag } from './support/console';

/**
 * The console against a page on another origin, in a real browser (issue 38): the page cannot frame the console
 * (CSP frame-ancestors 'none', X-Frame-Options DENY), and its cross-origin write — sent with the operator's cookie,
 * which SameSite=Strict does not hold back between two ports of one host — is refused and creates nothing. The
 * console itself runs under its CSP: every spec fails on a CSP violation or a console error (support/console.ts).
 */
test.describe('a page on another origin', () => {
  let evil: http.Server;
  let evilUrl = '';
  const bizTag = uniqueTag('csrf');

  test.beforeAll(async () => {
    // Another port on the same host: another origin, the same site.
    evil = http.createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(`<!doctype html><title>elsewhere</title>
        <iframe id="console" src="${E2E_URL}/tags/demo" width="800" height="400"></iframe>
        <script>
          fetch(${JSON.stringify(`${E2E_URL}/api/admin/tags`)}, {
            method: 'POST', mode: 'no-cors', credentials: 'include',
            headers: { 'content-type': 'text/plain' },
            body: JSON.stringify({ bizTag: ${JSON.stringify(bizTag)}, step: 10 }),
          }).then(() => { document.title = 'sent'; }, () => { document.title = 'sent'; });
        </script>`);
    });
    await new Promise<void>((resolve) => evil.listen(0, '127.0.0.1', resolve));
    evilUrl = `http://127.0.0.1:${(evil.address() as AddressInfo).port}/`;
  });
  test.afterAll(async () => {
    await new Promise((resolve) => evil.close(resolve));
  });

  test('cannot frame the console, and its write with the operator’s cookie is refused', async ({
    signedIn: page,
    pageFaults,
  }) => {
    // The operator is signed in (the cookie is in this browser), then visits the other page.
    const refusals: string[] = [];
    page.on('console', (m) => {
      if (/frame-ancestors|Refused to display/i.test(m.text())) refusals.push(m.text());
    });
    // What the browser really sent (Chromium's own record, cookies included).
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Network.enable');
    const sentHeaders: Array<Record<string, string>> = [];
    cdp.on('Network.requestWillBeSentExtraInfo', (e) => sentHeaders.push(e.headers as Record<string, string>));
    const write = page.waitForResponse(
      (r) => r.url() === `${E2E_URL}/api/admin/tags` && r.request().method() === 'POST',
    );
    await page.goto(evilUrl);
    const answer = await write;
    expect(answer.status()).toBe(403);
    const consoleHost = new URL(E2E_URL).host;
    const fetched = sentHeaders.find((h) => h.Host === consoleHost && h['Sec-Fetch-Mode'] === 'no-cors');
    expect(fetched?.Cookie).toMatch(/leaf_session=/); // the cookie went along: only the origin check stood between
    expect(fetched?.['Sec-Fetch-Site']).toBe('same-site');
    await expect(page).toHaveTitle('sent');

    // The frame holds no console: the browser refused to render it.
    const frame = page.frames().find((f) => f !== page.mainFrame());
    await expect.poll(() => refusals.length, { timeout: 5_000 }).toBeGreaterThan(0);
    const framed = frame === undefined ? '' : await frame.content().catch(() => '');
    expect(framed).not.toContain('leaf-ts');

    // Nothing was created.
    const check = await page.request.get(`/api/admin/tags/${bizTag}`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(check.status()).toBe(404);
    // The refusal to frame is this spec's expected console error; any other still fails it.
    const expected = pageFaults.filter((f) => /frame-ancestors/.test(f));
    expect(expected.length).toBeGreaterThan(0);
    pageFaults.splice(0, pageFaults.length, ...pageFaults.filter((f) => !expected.includes(f)));
  });
});

test.describe('console sessions', () => {
  test('the Tokens page lists the live sessions; ending another one signs it out; logout ends this one', async ({
    signedIn: page,
    browser,
  }) => {
    // A second operator, in a browser context of its own.
    const other = await browser.newContext({ userAgent: 'second-operator/1.0' });
    const otherPage = await other.newPage();
    const login = await otherPage.request.post(`${E2E_URL}/api/auth/login`, { data: { token: ADMIN_TOKEN } });
    expect(login.status()).toBe(200);

    await page.goto('/tokens');
    const list = page.getByTestId('session-list');
    const otherRow = list.getByRole('row').filter({ hasText: 'second-operator/1.0' });
    await expect(otherRow).toBeVisible();
    await expect(list.getByRole('row').filter({ hasText: '(this one)' })).toHaveCount(1);
    await otherRow.getByRole('button', { name: 'End' }).click();
    await expect(otherRow).toHaveCount(0);
    const refused = await otherPage.request.get(`${E2E_URL}/api/auth/session`);
    expect(await refused.json()).toEqual({ authenticated: false });
    await other.close();

    // This tab's own cookie, kept, is refused after the logout.
    const cookie = (await page.context().cookies()).find((c) => c.name === 'leaf_session')!;
    await page.getByRole('button', { name: 'Log out' }).click();
    await expect(page).toHaveURL(/\/login/);
    const replay = await page.request.get('/api/auth/session', {
      headers: { cookie: `leaf_session=${cookie.value}` },
    });
    expect(await replay.json()).toEqual({ authenticated: false });
  });
});
