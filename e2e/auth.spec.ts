import { ADMIN_TOKEN, expect, test } from './support/console';

test.describe('login', () => {
  test('an unauthenticated visit goes to the login page and comes back after it', async ({ page }) => {
    await page.goto('/tags/demo');
    await expect(page).toHaveURL(/\/login\?next=%2Ftags%2Fdemo$/);
    await expect(page.getByRole('heading', { name: 'Log in' })).toBeVisible();

    await page.getByLabel('Admin token').fill(ADMIN_TOKEN);
    await page.getByRole('button', { name: 'Log in' }).click();
    await expect(page).toHaveURL(/\/tags\/demo$/);
    await expect(page.getByRole('heading', { name: 'demo', level: 1 })).toBeVisible();
  });

  test('a shared link to a searched, sorted page of tags comes back whole after the login', async ({ page }) => {
    await page.goto('/?q=demo&sort=-rate');
    await expect(page).toHaveURL(/\/login\?next=%2F%3Fq%3Ddemo%26sort%3D-rate$/);
    await page.getByLabel('Admin token').fill(ADMIN_TOKEN);
    await page.getByRole('button', { name: 'Log in' }).click();
    await expect(page).toHaveURL(/\/\?q=demo&sort=-rate$/);
    await expect(page.getByLabel('Search tags')).toHaveValue('demo');
    await expect(page.getByRole('columnheader', { name: /rate/i }).first()).toHaveAttribute('aria-sort', 'descending');
  });

  test('a wrong token is refused and no session is set', async ({ page }) => {
    await page.goto('/');
    await expect(page).toHaveURL(/\/login/);
    await page.getByLabel('Admin token').fill('not-the-token');
    await page.getByRole('button', { name: 'Log in' }).click();
    await expect(page.getByText('That token is not accepted.')).toBeVisible();
    await expect(page.getByLabel('Admin token')).toHaveAttribute('aria-invalid', 'true');
    await expect(page).toHaveURL(/\/login/);
    const session = await page.request.get('/api/auth/session');
    expect(await session.json()).toEqual({ authenticated: false });
    const tags = await page.request.get('/api/admin/tags');
    expect(tags.status()).toBe(401);
  });

  test('the login link from the URL fragment signs in by itself and leaves no token in the address bar', async ({
    page,
  }) => {
    // The session answer comes with the HTML; any session check the page still sends before the cookie exists
    // answers late, after the login, with what the server said then: it must not undo the login.
    let loggedIn = false;
    const lateAnswers: Promise<void>[] = [];
    await page.route('**/api/auth/login', async (route) => {
      const response = await route.fetch();
      loggedIn = true;
      await route.fulfill({ response });
    });
    await page.route('**/api/auth/session', (route) => {
      if (loggedIn) return route.continue();
      const late = new Promise<void>((resolve) => setTimeout(resolve, 1_500)).then(() =>
        route.fulfill({ json: { authenticated: false } }),
      );
      lateAnswers.push(late);
      return late;
    });
    await page.goto(`/login#token=${ADMIN_TOKEN}`);
    await expect(page.getByRole('heading', { name: 'Tags', level: 1 })).toBeVisible();
    expect(new URL(page.url()).hash).toBe('');
    expect(page.url()).not.toContain(ADMIN_TOKEN);
    // Once every stale answer has landed (however slow the machine), the console must still be signed in.
    await Promise.all(lateAnswers);
    await page.waitForTimeout(500); // room for a wrong redirect to happen; on a slow machine it can only pass, not flake
    await expect(page.getByRole('heading', { name: 'Tags', level: 1 })).toBeVisible();
    await expect(page).not.toHaveURL(/\/login/);
  });

  test('log out ends the session', async ({ page }) => {
    await page.goto(`/login#token=${ADMIN_TOKEN}`);
    await expect(page.getByRole('heading', { name: 'Tags', level: 1 })).toBeVisible();
    await page.getByRole('button', { name: 'Log out' }).click();
    await expect(page).toHaveURL(/\/login/);
    await page.goto('/');
    await expect(page).toHaveURL(/\/login\?next=%2F$/);
  });

  test('a session that ends while a page is open sends the operator to the login page', async ({ page, context }) => {
    await page.goto(`/login#token=${ADMIN_TOKEN}`);
    await expect(page.getByRole('heading', { name: 'Tags', level: 1 })).toBeVisible();
    await context.clearCookies();
    // The next 2-second poll answers 401.
    await expect(page).toHaveURL(/\/login\?next=%2F$/, { timeout: 8_000 });
    await expect(page.getByRole('heading', { name: 'Log in' })).toBeVisible();
  });
});
