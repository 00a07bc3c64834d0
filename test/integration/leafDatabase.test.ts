/**
 * leaf-ts started on a database a Java Leaf fleet already uses: Leaf's own `leaf_alloc` (its DDL from Leaf's
 * README, comments and utf8 charset included) with live rows. The migrations must adopt the table rather than fail
 * on it, leave its rows as they are, and claims must then continue Leaf's sequence in Leaf semantics.
 */
import mysql from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MysqlStore } from '../../lib/store/mysql';
import type { TestDatabase } from '../../tools/harness';
import { freshMysqlDatabase, mariadbAvailable } from '../support/context';

const LEAF_DDL = `CREATE TABLE \`leaf_alloc\` (
  \`biz_tag\` varchar(128) NOT NULL DEFAULT '' COMMENT '业务编号，不同对业务编号的id生产互相隔离',
  \`max_id\` bigint(20) NOT NULL DEFAULT '1' COMMENT '当前的最大id',
  \`step\` int(11) NOT NULL COMMENT '号段的范围',
  \`description\` varchar(256) DEFAULT NULL,
  \`update_time\` timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP,
  PRIMARY KEY (\`biz_tag\`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8`;

let database: TestDatabase | undefined;

beforeAll(async () => {
  if (!mariadbAvailable()) return;
  database = await freshMysqlDatabase();
  const conn = await mysql.createConnection(database.url);
  await conn.query(LEAF_DDL);
  await conn.query(
    "INSERT INTO leaf_alloc (biz_tag, max_id, step, description) VALUES ('leaf-segment-test', 5001, 2000, 'Test leaf Segment Mode Get Id'), ('order', 1, 1000, NULL)",
  );
  await conn.end();
});
afterAll(async () => {
  await database?.drop();
});

async function rows(): Promise<unknown[]> {
  const conn = await mysql.createConnection(database!.url);
  const [r] = await conn.query('SELECT biz_tag, max_id, step, description FROM leaf_alloc ORDER BY biz_tag');
  await conn.end();
  return r as unknown[];
}

describe.skipIf(!mariadbAvailable())('a database Java Leaf already uses', () => {
  it('the migrations adopt Leaf’s leaf_alloc (twice: a second node, a restart) and leave its rows alone', async () => {
    const before = await rows();
    for (let i = 0; i < 2; i++) {
      const store = await MysqlStore.open({ url: database!.url });
      await store.close();
    }
    expect(await rows()).toEqual(before);
  });

  it('in leaf semantics a claim continues Leaf’s sequence exactly where a Java claim would', async () => {
    const store = await MysqlStore.open({ url: database!.url });
    try {
      await store.semantics.setDefaultSemantics('leaf');
      // The switch skipped one ID (leaf-ts may have served max_id): 5001 → 5002; a Java claim would now serve
      // [5002, 7001], and so does ours.
      const claim = await store.tags.allocate('leaf-segment-test');
      expect(claim).toMatchObject({ maxId: 7002, step: 2000, semantics: 'leaf' });
    } finally {
      await store.close();
    }
  });
});
