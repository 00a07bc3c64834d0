import path from 'node:path';
import { type NodeServer, startNodeServer } from '../tools/harness/node';
import { takeIdStrings } from '../test/support/clientIds';
import { ADMIN_TOKEN, E2E_URL, SCREENSHOTS, adminApi, expect, test, uniqueTag } from './support/console';

/**
 * A newcomer makes a tag strict on its page and watches its owner move: node B (started here on the suite's SQLite
 * file) serves the tag first and owns it; B stops; node A (the console's server) takes over at the next request,
 * at a new epoch. IDs from both nodes keep increasing across the handover.
 */
const dir = process.env.LEAF_E2E_DIR as string;

test.describe.serial('a strict tag and its owner', () => {
  let nodeB: NodeServer | null = null;

  test.beforeAll(async () => {
    nodeB = await startNodeServer({
      env: {
        ...process.env,
        NODE_ENV: 'production',
        DATABASE_URL: '',
        LEAF_SQLITE_FILE: path.join(dir, 'leaf.db'),
        LEAF_DATA_DIR: dir,
        LEAF_ADMIN_TOKEN: ADMIN_TOKEN,
        LEAF_LOG_LEVEL: 'warn',
        LEAF_NODE_ID: 'node-b-ordered',
        LEAF_SNOWFLAKE: 'off',
      },
      timeoutMs: 30_000,
    });
  });

  test.afterAll(async () => {
    await nodeB?.stop(5_000);
  });

  test('Make strict on the tag page; the owner moves from B to A when B stops', async ({ signedIn: page, request }) => {
    const bizTag = uniqueTag('tickets');
    await (await adminApi(request)).createTag({ bizTag, step: 100, description: 'Ticket numbers shown to people' });
    await page.goto(`/tags/${bizTag}`);
    const card = page.getByTestId('tag-ordering');
    await expect(card.getByTestId('tag-ordering-value')).toHaveText('segment order');
    await card.getByRole('button', { name: 'Make strict' }).click();
    await expect(card.getByTestId('tag-ordering-value')).toHaveText('strict');
    await expect(card.getByTestId('tag-owner-node')).toHaveText('none yet');
    // Complete once both nodes applied it: the card then says since when the order holds.
    await expect(card.getByTestId('tag-strict-since')).toContainText(/since \d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ/, {
      timeout: 10_000,
    });

    // The first request after the change completed (retried by the client meanwhile) makes B the owner.
    const fromB = await takeIdStrings(`${nodeB!.url}/api/id/segment/${bizTag}?count=3`);
    await expect(card.getByTestId('tag-owner-node')).toHaveText('node-b-ordered', { timeout: 10_000 });
    await expect(card.getByTestId('tag-owner-epoch')).toHaveText('1');
    await card.screenshot({ path: path.join(SCREENSHOTS, 'tag-ordering-owner.png') });

    // A relays to B while B owns the tag; after B's graceful stop (its lease released) A owns it at epoch 2.
    const relayed = await takeIdStrings(`${E2E_URL}/api/id/segment/${bizTag}?count=3`);
    await nodeB!.stop(5_000);
    nodeB = null;
    const fromA = await takeIdStrings(`${E2E_URL}/api/id/segment/${bizTag}?count=3`);
    await expect(card.getByTestId('tag-owner-node')).toHaveText('node-a', { timeout: 10_000 });
    await expect(card.getByTestId('tag-owner-epoch')).toHaveText('2');
    const ids = [...fromB, ...relayed, ...fromA].map(BigInt);
    expect(ids).toEqual([...ids].sort((a, b) => (a < b ? -1 : 1)));
    await expect(page.getByTestId('audit-list')).toContainText('ordering none → strict');
  });
});
