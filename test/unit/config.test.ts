import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SQLITE_FILE, type Env, loadConfig } from '@/lib/config';
import { DEFAULT_EPOCH_MS, LAYOUT_GRAMMAR } from '@/lib/snowflake/layout';
import type { LeafConfig } from '@/lib/leafConfig';

const NOW = Date.parse('2026-12-02T00:00:00Z');
const load = (env: Env) => loadConfig(env, NOW);
const sqliteFileOf = (c: LeafConfig) => (c.store.kind === 'sqlite' ? c.store.sqliteFile : null);

/** The message a bad value gets: it names the variable, what it got and what it accepts. */
function problem(env: Env): string {
  try {
    load(env);
  } catch (error) {
    expect((error as { code?: string }).code).toBe('invalid_config');
    return (error as Error).message;
  }
  throw new Error(`accepted ${JSON.stringify(env)}`);
}

describe('loadConfig', () => {
  it('has working defaults for an empty environment', () => {
    const c = load({});
    expect(c).toMatchObject({
      port: 3000,
      host: '127.0.0.1',
      dev: true,
      fastLane: true,
      giveBack: true,
      logLevel: 'info',
      workers: 1,
      workerIndex: null,
      adminToken: null,
      idToken: null,
      benchRoutes: false,
      runwayWarnSeconds: 120,
      metricsTags: { kind: 'top', n: 100 },
      store: { kind: 'sqlite', sqliteFile: DEFAULT_SQLITE_FILE, migrationsDir: path.resolve('drizzle') },
      dataDir: path.resolve('data'),
      snowflake: { enabled: true, epochMs: DEFAULT_EPOCH_MS, minId: null, leaseMs: 10_000 },
    });
    expect(c.node.id).toMatch(/:3000$/);
    expect(c.node).toEqual({
      id: c.node.id,
      address: '127.0.0.1:3000',
      heartbeatMs: 3_000,
      goneMs: 10_000,
      pruneMs: 86_400_000,
    });
  });

  it.each<[string, Env, (c: ReturnType<typeof load>) => unknown, unknown]>([
    ['PORT', { PORT: '8080' }, (c) => c.port, 8080],
    ['PORT 0 (any free port)', { PORT: '0' }, (c) => c.port, 0],
    ['NODE_ENV=production', { NODE_ENV: 'production' }, (c) => c.dev, false],
    ['LEAF_FAST_LANE=off', { LEAF_FAST_LANE: 'off' }, (c) => c.fastLane, false],
    ['LEAF_FAST_LANE=ON', { LEAF_FAST_LANE: 'ON' }, (c) => c.fastLane, true],
    ['LEAF_GIVE_BACK=off', { LEAF_GIVE_BACK: 'off' }, (c) => c.giveBack, false],
    ['LEAF_SNOWFLAKE=false', { LEAF_SNOWFLAKE: 'false' }, (c) => c.snowflake.enabled, false],
    ['LEAF_BENCH_ROUTES=on', { LEAF_BENCH_ROUTES: 'on' }, (c) => c.benchRoutes, true],
    ['LEAF_RUNWAY_WARN_SECONDS=600', { LEAF_RUNWAY_WARN_SECONDS: '600' }, (c) => c.runwayWarnSeconds, 600],
    ['LEAF_METRICS_TAGS=top:20', { LEAF_METRICS_TAGS: 'top:20' }, (c) => c.metricsTags, { kind: 'top', n: 20 }],
    ['LEAF_METRICS_TAGS=ALL', { LEAF_METRICS_TAGS: 'ALL' }, (c) => c.metricsTags, { kind: 'all' }],
    ['LEAF_METRICS_TAGS=none', { LEAF_METRICS_TAGS: 'none' }, (c) => c.metricsTags, { kind: 'none' }],
    ['LEAF_SEGMENT_SEMANTICS unset', {}, (c) => c.segmentSemantics, null],
    ['LEAF_SEGMENT_SEMANTICS=leaf', { LEAF_SEGMENT_SEMANTICS: 'leaf' }, (c) => c.segmentSemantics, 'leaf'],
    ['LEAF_SEGMENT_SEMANTICS=leaf-ts', { LEAF_SEGMENT_SEMANTICS: 'leaf-ts' }, (c) => c.segmentSemantics, 'leaf-ts'],
    ['LEAF_LOG_LEVEL=WARN', { LEAF_LOG_LEVEL: 'WARN' }, (c) => c.logLevel, 'warn'],
    ['LEAF_WORKERS', { LEAF_WORKERS: '4' }, (c) => c.workers, 4],
    ['an empty value counts as unset', { PORT: '', LEAF_LOG_LEVEL: '' }, (c) => [c.port, c.logLevel], [3000, 'info']],
    ['mysql URL', { DATABASE_URL: 'mysql://u:p@127.0.0.1:3306/leaf' }, (c) => c.store.kind, 'mysql'],
    [
      'mysql URL, parsed',
      { DATABASE_URL: 'mysql://u:p%40ss@127.0.0.1:3306/leaf?ssl=false' },
      (c) => (c.store.kind === 'mysql' ? c.store.mysql : null),
      {
        hosts: [{ host: '127.0.0.1', port: 3306 }],
        user: 'u',
        password: 'p@ss',
        database: 'leaf',
        options: { ssl: false },
      },
    ],
    [
      'mysql URL with several hosts, in order',
      { DATABASE_URL: 'mysql://u:p@127.0.0.1:3613,db-b,[::1]:3611/leaf?connectTimeout=500&charset=utf8mb4' },
      (c) => [c.store.kind, c.store.kind === 'mysql' ? c.store.mysql : null],
      [
        'mysql',
        {
          hosts: [
            { host: '127.0.0.1', port: 3613 },
            { host: 'db-b', port: 3306 },
            { host: '::1', port: 3611 },
          ],
          user: 'u',
          password: 'p',
          database: 'leaf',
          options: { connectTimeout: 500, charset: 'utf8mb4' },
        },
      ],
    ],
    [
      'postgres URL with several hosts, parsed',
      {
        DATABASE_URL: 'postgres://u:p%40ss@h1:5433,h2,[::1]:5434/leaf?sslmode=require&target_session_attrs=read-write',
      },
      (c) => [c.store.kind, c.store.kind === 'postgres' ? c.store.postgres : null],
      [
        'postgres',
        {
          hosts: [
            { host: 'h1', port: 5433 },
            { host: 'h2', port: 5432 },
            { host: '::1', port: 5434 },
          ],
          user: 'u',
          password: 'p@ss',
          database: 'leaf',
          sslmode: 'require',
          applicationName: 'leaf-ts',
        },
      ],
    ],
    [
      'postgresql:// URL',
      { DATABASE_URL: 'postgresql://u@db/leaf' },
      (c) => (c.store.kind === 'postgres' ? c.store.postgres.hosts : null),
      [{ host: 'db', port: 5432 }],
    ],
    ['no server for a file: URL', { DATABASE_URL: 'file:./x/leaf.db' }, (c) => c.store.kind, 'sqlite'],
    [
      'file: URL',
      { DATABASE_URL: 'file:./x/leaf.db' },
      (c) => [c.store.kind, sqliteFileOf(c)],
      ['sqlite', './x/leaf.db'],
    ],
    ['sqlite:// URL', { DATABASE_URL: 'sqlite:///tmp/a.db' }, sqliteFileOf, '/tmp/a.db'],
    [
      'LEAF_SQLITE_FILE',
      { LEAF_SQLITE_FILE: '/tmp/l/leaf.db' },
      (c) => [sqliteFileOf(c), c.dataDir],
      ['/tmp/l/leaf.db', '/tmp/l'],
    ],
    ['LEAF_DATA_DIR wins', { LEAF_SQLITE_FILE: '/tmp/l/leaf.db', LEAF_DATA_DIR: '/tmp/d' }, (c) => c.dataDir, '/tmp/d'],
    ['LEAF_MIGRATIONS_DIR', { LEAF_MIGRATIONS_DIR: '/opt/m' }, (c) => c.store.migrationsDir, '/opt/m'],
    ['admin token of 16', { LEAF_ADMIN_TOKEN: 'a'.repeat(16) }, (c) => c.adminToken, 'a'.repeat(16)],
    ['ID token', { LEAF_ID_TOKEN: 'id' }, (c) => c.idToken, 'id'],
    ['epoch in ms', { LEAF_SNOWFLAKE_EPOCH: '1288834974657' }, (c) => c.snowflake.epochMs, 1288834974657],
    [
      'epoch as ISO',
      { LEAF_SNOWFLAKE_EPOCH: '2020-01-01T00:00:00Z' },
      (c) => c.snowflake.epochMs,
      Date.parse('2020-01-01T00:00:00Z'),
    ],
    ["Leaf's epoch by name", { LEAF_SNOWFLAKE_EPOCH: 'leaf' }, (c) => c.snowflake.epochMs, 1288834974657],
    ["Leaf's epoch by name, any case", { LEAF_SNOWFLAKE_EPOCH: 'Leaf' }, (c) => c.snowflake.epochMs, 1288834974657],
    // Above 2^53: a JS number would round it.
    ['floor as a bigint', { LEAF_SNOWFLAKE_MIN_ID: '9007199254740993' }, (c) => c.snowflake.minId, 9007199254740993n],
    ['the largest floor', { LEAF_SNOWFLAKE_MIN_ID: '9223372036854775807' }, (c) => c.snowflake.minId, 2n ** 63n - 1n],
    ['floor 0', { LEAF_SNOWFLAKE_MIN_ID: '0' }, (c) => c.snowflake.minId, 0n],
    ['no floor when empty', { LEAF_SNOWFLAKE_MIN_ID: '' }, (c) => c.snowflake.minId, null],
    [
      'node id and worker index',
      { LEAF_NODE_ID: 'a:1', LEAF_WORKER_INDEX: '2' },
      (c) => [c.node.id, c.workerIndex],
      ['a:1#2', 2],
    ],
    ['lease', { LEAF_WORKER_LEASE_MS: '3000' }, (c) => c.snowflake.leaseMs, 3000],
    [
      'all worker ids by default',
      {},
      (c) => [c.snowflake.workerIds.text, c.snowflake.workerIds.size],
      ['0-1023', 1024],
    ],
    [
      'LEAF_WORKER_IDS range',
      { LEAF_WORKER_IDS: '512-1023' },
      (c) => [c.snowflake.workerIds.text, c.snowflake.workerIds.size],
      ['512-1023', 512],
    ],
    ['LEAF_WORKER_IDS list', { LEAF_WORKER_IDS: '3,5,7' }, (c) => c.snowflake.workerIds.ids, [3, 5, 7]],
    [
      'LEAF_WORKER_IDS mix, spaced',
      { LEAF_WORKER_IDS: ' 100-199 , 0 - 9 ' },
      (c) => [c.snowflake.workerIds.text, c.snowflake.workerIds.size],
      ['0-9,100-199', 110],
    ],
    [
      'LEAF_WORKER_IDS overlaps merge',
      { LEAF_WORKER_IDS: '5-9,0-5,10,1023' },
      (c) => c.snowflake.workerIds.text,
      '0-10,1023',
    ],
    ['LEAF_WORKER_IDS one id', { LEAF_WORKER_IDS: '0' }, (c) => c.snowflake.workerIds.ids, [0]],
    ['LEAF_SNOWFLAKE_LAYOUT unset is leaf', {}, (c) => c.snowflake.layout.text, 'leaf'],
    [
      'LEAF_SNOWFLAKE_LAYOUT sonyflake',
      { LEAF_SNOWFLAKE_LAYOUT: 'SonyFlake' },
      (c) => c.snowflake.layout.text,
      'sonyflake',
    ],
    [
      'LEAF_SNOWFLAKE_LAYOUT custom',
      { LEAF_SNOWFLAKE_LAYOUT: 'time=39,region=2,worker=14,sequence=8,unit=10ms' },
      (c) => [c.snowflake.layout.text, c.snowflake.workerIds.size],
      ['time=39,region=2,worker=14,sequence=8,unit=10ms', 16_384],
    ],
    [
      "LEAF_WORKER_IDS in sonyflake's 16-bit space",
      { LEAF_SNOWFLAKE_LAYOUT: 'sonyflake', LEAF_WORKER_IDS: '60000-65535' },
      (c) => c.snowflake.workerIds.text,
      '60000-65535',
    ],
    ['js-safe: all 128 worker ids', { LEAF_SNOWFLAKE_LAYOUT: 'js-safe' }, (c) => c.snowflake.workerIds.size, 128],

    ['LEAF_WORKER_IDS empty counts as unset', { LEAF_WORKER_IDS: '' }, (c) => c.snowflake.workerIds.size, 1024],
    ['LEAF_TRUSTED_PROXIES unset', {}, (c) => c.trustedProxies, []],
    [
      'LEAF_TRUSTED_PROXIES list',
      { LEAF_TRUSTED_PROXIES: ' 127.0.0.1, 10.0.0.0/8 ,::1,fd00::/8' },
      (c) => c.trustedProxies,
      ['127.0.0.1', '10.0.0.0/8', '::1', 'fd00::/8'],
    ],
    ['node id for the registry', { LEAF_NODE_ID: 'a:1', LEAF_WORKER_INDEX: '0' }, (c) => c.node.id, 'a:1#0'],
    [
      'address of a wildcard bind names the host',
      { HOST: '0.0.0.0', PORT: '8080' },
      (c) => c.node.address,
      `${os.hostname()}:8080`,
    ],
    ['address of a named bind', { HOST: '10.1.2.3', PORT: '8080' }, (c) => c.node.address, '10.1.2.3:8080'],
    [
      'node heartbeat, gone and prune',
      { LEAF_NODE_HEARTBEAT_MS: '500', LEAF_NODE_GONE_MS: '1001', LEAF_NODE_PRUNE_MS: '60000' },
      (c) => [c.node.heartbeatMs, c.node.goneMs, c.node.pruneMs],
      [500, 1001, 60_000],
    ],
  ])('reads %s', (_name, env, pick, expected) => {
    expect(pick(load(env))).toEqual(expected);
  });

  it.each<[Env, string]>([
    [{ PORT: 'abc' }, 'PORT must be a port number from 0 to 65535 (got "abc")'],
    [{ PORT: '65536' }, 'PORT must be a port number from 0 to 65535 (got "65536")'],
    [{ PORT: '-1' }, 'PORT must be a port number from 0 to 65535 (got "-1")'],
    [{ PORT: '3000.5' }, 'PORT must be a port number from 0 to 65535 (got "3000.5")'],
    [{ LEAF_LOG_LEVEL: 'verbose' }, 'LEAF_LOG_LEVEL must be debug, info, warn, error (got "verbose")'],
    [{ LEAF_FAST_LANE: 'maybe' }, 'LEAF_FAST_LANE must be on or off (got "maybe")'],
    [{ LEAF_GIVE_BACK: 'later' }, 'LEAF_GIVE_BACK must be on or off (got "later")'],
    [{ LEAF_SNOWFLAKE: 'disabled' }, 'LEAF_SNOWFLAKE must be on or off (got "disabled")'],
    [{ LEAF_WORKERS: '0' }, 'LEAF_WORKERS must be an integer from 1 to 64 (got "0")'],
    [{ LEAF_WORKERS: '65' }, 'LEAF_WORKERS must be an integer from 1 to 64 (got "65")'],
    [
      { LEAF_METRICS_TAGS: 'top' },
      'LEAF_METRICS_TAGS must be top:N (N from 0 to 100000; the N busiest tags plus tags with a problem), all, or none (got "top")',
    ],
    [
      { LEAF_METRICS_TAGS: 'top:-1' },
      'LEAF_METRICS_TAGS must be top:N (N from 0 to 100000; the N busiest tags plus tags with a problem), all, or none (got "top:-1")',
    ],
    [{ LEAF_WORKER_LEASE_MS: '0' }, 'LEAF_WORKER_LEASE_MS must be a positive integer (ms) (got "0")'],
    [
      { LEAF_SNOWFLAKE_LAYOUT: 'time=42,worker=10,sequence=12' },
      `LEAF_SNOWFLAKE_LAYOUT must be ${LAYOUT_GRAMMAR} (the fields take 64 bits; at most 63 fit) (got "time=42,worker=10,sequence=12")`,
    ],
    [
      { LEAF_SNOWFLAKE_LAYOUT: 'js-safe', LEAF_WORKER_IDS: '100-200' },
      'LEAF_WORKER_IDS must be worker ids from 0 to 127: a range (512-1023), a list (3,5,7) or both (0-9,100-199) (200 is above 127) (got "100-200")',
    ],
    [
      // 39 bits of ms from 2009 end in 2027: under a year after NOW, refused before anything opens.
      { LEAF_SNOWFLAKE_LAYOUT: 'time=39,worker=10,sequence=12', LEAF_SNOWFLAKE_EPOCH: '2009-08-01T00:00:00Z' },
      'LEAF_SNOWFLAKE_LAYOUT time=39,region=0,worker=10,sequence=12,unit=1ms with LEAF_SNOWFLAKE_EPOCH 2009-08-01T00:00:00.000Z runs out in 31 days, at 2027-01-01T21:56:53.888Z: its 39 time bits of 1 ms end there; choose a later epoch or more time bits (at least 1 year must be left)',
    ],

    [
      { LEAF_TRUSTED_PROXIES: '10.0.0.0/33' },
      'LEAF_TRUSTED_PROXIES must be a comma list of IP addresses or CIDR ranges (10.0.0.5, 10.0.0.0/8, ::1) ("10.0.0.0/33" is neither) (got "10.0.0.0/33")',
    ],
    [
      { LEAF_TRUSTED_PROXIES: 'haproxy.local' },
      'LEAF_TRUSTED_PROXIES must be a comma list of IP addresses or CIDR ranges (10.0.0.5, 10.0.0.0/8, ::1) ("haproxy.local" is neither) (got "haproxy.local")',
    ],
    [
      { LEAF_WORKER_IDS: '1024' },
      'LEAF_WORKER_IDS must be worker ids from 0 to 1023: a range (512-1023), a list (3,5,7) or both (0-9,100-199) (1024 is above 1023) (got "1024")',
    ],
    [
      { LEAF_WORKER_IDS: '0-99999999999999999999999' },
      'LEAF_WORKER_IDS must be worker ids from 0 to 1023: a range (512-1023), a list (3,5,7) or both (0-9,100-199) (99999999999999999999999 is above 1023) (got "0-99999999999999999999999")',
    ],
    [
      { LEAF_WORKER_IDS: '512-2047' },
      'LEAF_WORKER_IDS must be worker ids from 0 to 1023: a range (512-1023), a list (3,5,7) or both (0-9,100-199) (2047 is above 1023) (got "512-2047")',
    ],
    [
      { LEAF_WORKER_IDS: '600-500' },
      'LEAF_WORKER_IDS must be worker ids from 0 to 1023: a range (512-1023), a list (3,5,7) or both (0-9,100-199) ("600-500" starts above its end) (got "600-500")',
    ],
    [
      { LEAF_WORKER_IDS: '-5' },
      'LEAF_WORKER_IDS must be worker ids from 0 to 1023: a range (512-1023), a list (3,5,7) or both (0-9,100-199) ("-5" is neither an id nor a range start-end) (got "-5")',
    ],
    [
      { LEAF_WORKER_IDS: '1-2-3' },
      'LEAF_WORKER_IDS must be worker ids from 0 to 1023: a range (512-1023), a list (3,5,7) or both (0-9,100-199) ("1-2-3" is neither an id nor a range start-end) (got "1-2-3")',
    ],
    [
      { LEAF_WORKER_IDS: 'all' },
      'LEAF_WORKER_IDS must be worker ids from 0 to 1023: a range (512-1023), a list (3,5,7) or both (0-9,100-199) ("all" is neither an id nor a range start-end) (got "all")',
    ],
    [
      { LEAF_WORKER_IDS: '1.5' },
      'LEAF_WORKER_IDS must be worker ids from 0 to 1023: a range (512-1023), a list (3,5,7) or both (0-9,100-199) ("1.5" is neither an id nor a range start-end) (got "1.5")',
    ],
    [
      { LEAF_WORKER_IDS: '3,,7' },
      'LEAF_WORKER_IDS must be worker ids from 0 to 1023: a range (512-1023), a list (3,5,7) or both (0-9,100-199) (entry 2 is empty) (got "3,,7")',
    ],
    [
      { LEAF_WORKER_IDS: '512-1023,' },
      'LEAF_WORKER_IDS must be worker ids from 0 to 1023: a range (512-1023), a list (3,5,7) or both (0-9,100-199) (entry 2 is empty) (got "512-1023,")',
    ],
    [
      { LEAF_WORKER_IDS: '  ' },
      'LEAF_WORKER_IDS must be worker ids from 0 to 1023: a range (512-1023), a list (3,5,7) or both (0-9,100-199) (it is empty) (got "  ")',
    ],
    [
      { LEAF_RUNWAY_WARN_SECONDS: '0' },
      'LEAF_RUNWAY_WARN_SECONDS must be a whole number of seconds from 1 to 86400 (got "0")',
    ],
    [{ LEAF_SEGMENT_SEMANTICS: 'java' }, 'LEAF_SEGMENT_SEMANTICS must be leaf or leaf-ts (got "java")'],
    [
      { LEAF_RUNWAY_WARN_SECONDS: '2m' },
      'LEAF_RUNWAY_WARN_SECONDS must be a whole number of seconds from 1 to 86400 (got "2m")',
    ],
    [
      { LEAF_ADMIN_TOKEN: 'short' },
      'LEAF_ADMIN_TOKEN must be at least 16 characters (it guards deletes) (got 5 characters)',
    ],
    [
      { DATABASE_URL: 'redis://x' },
      'DATABASE_URL must be mysql://user:pass@host:port/db, postgres://user:pass@host:port/db or file:path (got "redis:…")',
    ],
    [
      { DATABASE_URL: 'postgres://x' },
      'DATABASE_URL must be a database name after the hosts (postgres://…@host:port/db) (got "postgres:…")',
    ],
    [
      { DATABASE_URL: 'postgres://u:p@h/db?sslmode=prefer' },
      'DATABASE_URL must be sslmode one of disable, require, verify-ca, verify-full (got "prefer") (got "postgres:…")',
    ],
    [
      { DATABASE_URL: 'postgresql://u:p@h/db?target_session_attrs=any' },
      'DATABASE_URL must be target_session_attrs read-write or primary (leaf-ts writes only through the primary) (got "postgresql:…")',
    ],
    [
      { DATABASE_URL: 'mysql://u:p@127.0.0.1:3611,,127.0.0.1:3613/leaf' },
      'DATABASE_URL must be a host list of host:port entries separated by commas (host 2 of the host list is "") (got "mysql:…")',
    ],
    [
      { DATABASE_URL: 'mysql://u:p@127.0.0.1:3611,127.0.0.1:99999/leaf' },
      'DATABASE_URL must be a host list with ports from 1 to 65535 (host 2 of the host list has port "99999") (got "mysql:…")',
    ],
    [
      { DATABASE_URL: 'mysql://u:p@127.0.0.1:3611,127.0.0.1:x/leaf' },
      'DATABASE_URL must be a host list of host:port entries separated by commas (host 2 of the host list is "127.0.0.1:x") (got "mysql:…")',
    ],
    [
      { DATABASE_URL: 'mysql://u:p@a:1,b:2,a:1/leaf' },
      'DATABASE_URL must be a host list without repeats (a:1 appears twice) (got "mysql:…")',
    ],
    [
      { DATABASE_URL: 'mysql://u:p@a:1,b:2' },
      'DATABASE_URL must be a database name after the hosts (mysql://…@host:port/db) (got "mysql:…")',
    ],
    [
      { DATABASE_URL: 'mysql://u:p@/leaf' },
      'DATABASE_URL must be a host list (host:port[,host:port…]) after "@" (got "mysql:…")',
    ],
    [
      { DATABASE_URL: 'mysql:leaf' },
      'DATABASE_URL must be mysql://user:pass@host:port[,host:port…]/db (got "mysql:…")',
    ],
    [{ LEAF_NODE_HEARTBEAT_MS: '50' }, 'LEAF_NODE_HEARTBEAT_MS must be an integer from 100 to 600000 (ms) (got "50")'],
    [
      { LEAF_NODE_GONE_MS: '6000' },
      'LEAF_NODE_GONE_MS must be more than twice LEAF_NODE_HEARTBEAT_MS (3000 ms) (got "6000")',
    ],
    [
      { LEAF_NODE_HEARTBEAT_MS: '5000' },
      'LEAF_NODE_GONE_MS must be more than twice LEAF_NODE_HEARTBEAT_MS (5000 ms) (got the default 10000)',
    ],
    [{ LEAF_NODE_PRUNE_MS: '5000' }, 'LEAF_NODE_PRUNE_MS must be at least LEAF_NODE_GONE_MS (10000 ms) (got "5000")'],
    [
      { LEAF_SNOWFLAKE_EPOCH: 'yesterday' },
      `LEAF_SNOWFLAKE_EPOCH must be an ISO date (2026-01-01T00:00:00Z), ms since 1970, or leaf (Leaf's epoch, 1288834974657) (got "yesterday")`,
    ],
    [
      { LEAF_SNOWFLAKE_EPOCH: 'leafy' },
      `LEAF_SNOWFLAKE_EPOCH must be an ISO date (2026-01-01T00:00:00Z), ms since 1970, or leaf (Leaf's epoch, 1288834974657) (got "leafy")`,
    ],
    [
      { LEAF_SNOWFLAKE_MIN_ID: '9223372036854775808' },
      `LEAF_SNOWFLAKE_MIN_ID must be a snowflake ID, a decimal integer from 0 to 9223372036854775807 (got "9223372036854775808")`,
    ],
    [
      { LEAF_SNOWFLAKE_MIN_ID: '-1' },
      `LEAF_SNOWFLAKE_MIN_ID must be a snowflake ID, a decimal integer from 0 to 9223372036854775807 (got "-1")`,
    ],
    [
      { LEAF_SNOWFLAKE_MIN_ID: '1e18' },
      `LEAF_SNOWFLAKE_MIN_ID must be a snowflake ID, a decimal integer from 0 to 9223372036854775807 (got "1e18")`,
    ],
    [
      { LEAF_SNOWFLAKE_MIN_ID: '12345678901234567890' },
      `LEAF_SNOWFLAKE_MIN_ID must be a snowflake ID, a decimal integer from 0 to 9223372036854775807 (got "12345678901234567890")`,
    ],
    [
      { LEAF_SNOWFLAKE_EPOCH: '2030-01-01T00:00:00Z' },
      'LEAF_SNOWFLAKE_EPOCH must not be in the future (got "2030-01-01T00:00:00Z")',
    ],
  ])('refuses %j', (env, message) => {
    expect(problem(env)).toBe(message);
  });

  it('refuses an order lease whose margin tolerates under 1 % of clock-rate difference (2m / (L − m))', () => {
    expect(problem({ LEAF_ORDER_LEASE_MS: '600000', LEAF_ORDER_MARGIN_MS: '50' })).toBe(
      "LEAF_ORDER_MARGIN_MS must be at least 2986 with LEAF_ORDER_LEASE_MS 600000, so that clocks running 1 % apart in rate cannot break a strict tag's order (got 50: it tolerates 0.017 %)",
    );
    const tolerance = (l: number, m: number) => (2 * m) / (l - m);
    expect(tolerance(600_000, 2_986)).toBeGreaterThanOrEqual(0.01);
    expect(tolerance(600_000, 2_985)).toBeLessThan(0.01);
    expect(load({ LEAF_ORDER_LEASE_MS: '600000', LEAF_ORDER_MARGIN_MS: '2986' }).ordered.marginMs).toBe(2_986);
    expect(load({}).ordered).toMatchObject({ leaseMs: 5_000, marginMs: 1_000 }); // the defaults tolerate 50 %
  });

  it('names every bad variable, one line each', () => {
    expect(problem({ PORT: 'abc', LEAF_LOG_LEVEL: 'loud' }).split('\n')).toEqual([
      'PORT must be a port number from 0 to 65535 (got "abc")',
      'LEAF_LOG_LEVEL must be debug, info, warn, error (got "loud")',
    ]);
  });

  it('names a bad LEAF_WORKER_IDS on its own line beside other bad variables', () => {
    expect(problem({ LEAF_WORKER_IDS: '9-1', PORT: 'abc' }).split('\n')).toEqual([
      'PORT must be a port number from 0 to 65535 (got "abc")',
      'LEAF_WORKER_IDS must be worker ids from 0 to 1023: a range (512-1023), a list (3,5,7) or both (0-9,100-199) ("9-1" starts above its end) (got "9-1")',
    ]);
  });

  it('never prints a secret it refuses', () => {
    expect(problem({ LEAF_ADMIN_TOKEN: 'hunter2' })).not.toContain('hunter2');
    expect(problem({ DATABASE_URL: 'redis://leaf:s3cret@db/leaf' })).not.toContain('s3cret');
    expect(problem({ DATABASE_URL: 'postgres://leaf:s3cret@db,db/leaf' })).not.toContain('s3cret');
    expect(problem({ DATABASE_URL: 'mysql://leaf:s3cret@db:1,db:1/leaf' })).not.toContain('s3cret');
  });
});
