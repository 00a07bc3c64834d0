/**
 * The database clock on MariaDB whatever the server's time zone: a server whose default zone is not UTC (here
 * +05:00; a zone with daylight saving jumps an hour twice a year) must not move leases, fences or update times.
 * Every connection pins its session to UTC, so NOW(3) read back through UNIX_TIMESTAMP is the true time, and
 * timestamps the store writes read back as written.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MysqlStore } from '../../lib/store/mysql';
import { MariadbServer } from '../../tools/harness';

let server: MariadbServer;
let store: MysqlStore;

beforeAll(async () => {
  server = await MariadbServer.create({ extraArgs: ['--default-time-zone=+05:00'] });
  store = await MysqlStore.open({ url: await server.createAppUser() });
}, 120_000);
afterAll(async () => {
  await store?.close();
  await server?.destroy();
});

describe('MariaDB with a server time zone of +05:00', () => {
  it('the store’s times are the true time: the database clock, and a tag’s update time as written', async () => {
    const before = Date.now();
    const { dbNowMs } = await store.order.readOrder();
    expect(Math.abs(dbNowMs - before)).toBeLessThan(60_000);
    const row = await store.tags.createTag({ bizTag: 'tz', step: 10 });
    expect(Math.abs(row.updateTime.getTime() - Date.now())).toBeLessThan(60_000); // was 5 hours off
    await store.tags.allocate('tz');
    const after = await store.tags.getTag('tz');
    expect(Math.abs(after!.updateTime.getTime() - Date.now())).toBeLessThan(60_000);
  });
});
