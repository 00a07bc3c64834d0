/** The bench's settings (env), constants, its temp dir, and the progress line every step prints. */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const ROOT = path.resolve(__dirname, '../..');
export const RESULTS_FILE = path.join(__dirname, 'results.md');
export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
export const DEFAULT_DURATION_S = 5;
export const DURATION_FIXED = process.env.BENCH_DURATION !== undefined && process.env.BENCH_DURATION !== '';
/** Measured seconds per run; set once, for every row alike, by planDuration() unless BENCH_DURATION fixes it. */
export const settings = { durationS: DURATION_FIXED ? Number(process.env.BENCH_DURATION) : DEFAULT_DURATION_S };
export const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 2));
export const WARMUP_S = Number(process.env.BENCH_WARMUP ?? 2);
export const PIPELINING = Number(process.env.BENCH_PIPELINING ?? 1);
export const INPROC_MS = Number(process.env.BENCH_INPROC_MS ?? 3000);
/** The one-source loops (idLoop.ts) and the client row: measured ms per run (ROUNDS runs in all) and warm-up. */
export const LOOP_MS = Math.max(200, Math.round(INPROC_MS / 2));
export const LOOP_WARMUP_MS = 500;
export const CLIENT_MS = LOOP_MS * 2;
/** 6 min: the 3-node Galera cluster (≈ 15 s to start) and its rows raised it from 5. */
export const HARD_CAP_MS = 6 * 60_000;
export const READY_TIMEOUT_MS = 60_000;
/** Direct claim measurement (the store's allocate on SQLite, MariaDB and Galera): claims per database, how many at once, step. */
export const CLAIMS = Math.max(100, Number(process.env.BENCH_CLAIMS ?? 2000));
export const CLAIM_CONCURRENCY = Math.max(1, Number(process.env.BENCH_CLAIM_CONCURRENCY ?? 4));
export const CLAIM_STEP = 1000;
export const CLAIM_TAG = 'claims';
export const BATCH = 1000;
export const TAG = 'demo';
/** A tag at Leaf's full 64-bit range: max_id 10^17, so its first ID is 100000000000000001 (above 2^53). */
export const WIDE_TAG = 'wide';
/** The opaque tag on the SQLite fast-lane server (LEAF_OPAQUE_KEY set there), beside the plain `demo`. */
export const OPAQUE_TAG = 'opaque';
export const OPAQUE_KEY = 'npm-run-bench-opaque-key-0123456789abcdef';
/** Issue 40: an opaque tag against the plain one on the same server, single and `?count=1000` (req/s). */
export const TARGET_OPAQUE_SINGLE = 0.9;
export const TARGET_OPAQUE_BATCH = 0.5;
/** Issue 41: claims with their claim-log row ÷ the same claims without, per database (claims/s). */
export const TARGET_CLAIM_LOG = 0.8;
export const WIDE_MAX_ID = '100000000000000000';
export const TARGET_WIDE_VS_NARROW = 0.9;
/** A formatted tag (issue 11) on the SQLite fast-lane server: daily-reset IDs like BENCH-20261203-000000001. */
export const FORMAT_TAG = 'bench_fmt';
/** A tag set to ordering strict (lib/ordered): the fast-lane server owns it, a second node relays to it. */
export const ORDERED_TAG = 'bench_strict';
export const FORMAT_PATTERN = 'BENCH-{yyyyMMdd}-{seq:9}';
/** The tag the client row leases from, on the SQLite fast-lane server. */
export const CLIENT_TAG = 'client';
export const TARGET_CLIENT_IDS_PER_S = 100e6;
/**
 * BENCH_ONLY: a comma list of row groups to run (default all): `http` (every HTTP row, MariaDB, PostgreSQL, Galera,
 * Redis, the direct claims), `dialects` (only MariaDB's and PostgreSQL's single and `?count=1000` rows and their direct
 * claims, side by side in one run, plus direct claims on a 3-node synchronous Patroni cluster: claims-patroni), `claims` (only the direct claims, on a SQLite file, a single MariaDB and a single PostgreSQL, each beside a twin that writes the claim log: no servers), `wide` (the 2^53 rows next to fast-single/fast-batch), `opaque` (an opaque tag's rows beside them), `formatted` (the formatted-ID rows beside them), `client` (LeafClient against the SQLite
 * fast lane), `restart` (IDs skipped per graceful restart, with and without give-back: restartRows.ts), `slow` (the fast
 * lane's single row with 200 slow clients held open beside it: slowClients.ts), `inproc` (the in-process rows). Groups left out are not started at all.
 */
export const ONLY_GROUPS = [
  'http',
  'slow',
  'dialects',
  'claims',
  'wide',
  'opaque',
  'formatted',
  'ordered',
  'client',
  'restart',
  'inproc',
] as const;
export type OnlyGroup = (typeof ONLY_GROUPS)[number];
const only = (process.env.BENCH_ONLY ?? '')
  .split(',')
  .map((g) => g.trim())
  .filter((g) => g !== '');
for (const g of only)
  if (!(ONLY_GROUPS as readonly string[]).includes(g))
    throw new Error(`BENCH_ONLY: unknown group "${g}" (${ONLY_GROUPS.join(', ')})`);
export function runs(group: OnlyGroup): boolean {
  return only.length === 0 || only.includes(group);
}
export const TARGET_VS_BARE = 0.8;
/** Issue 38: IDs/s of the single row with SLOW_CLIENTS held open, against the same row without them. */
export const SLOW_CLIENTS = 200;
export const TARGET_SLOW_VS_QUIET = 0.9;
/** Issue 29: a strict tag through its owner, and through another node, against an ordinary tag. */
export const TARGET_STRICT_OWNER = 0.9;
export const TARGET_STRICT_RELAY = 0.5;
export const TARGET_TAKE_IDS_PER_S = 30e6;
/** A row is flagged when processes other than the server and the load generator used more than this share of all cores. */
export const NOISY_OTHER_SHARE = 0.1;
/** IDs taken from response bodies per run for the uniqueness check, spread evenly over the run (every row alike). */
export const SAMPLE_IDS_PER_RUN = 50_000;
/** The alternatives' MySQL pool (leaf-ts's own MysqlStore uses 8; the alternatives need the connections). */
export const ALT_POOL = 16;
/** leaf-ts's snowflake lease (LEAF_WORKER_LEASE_MS default), renewed every third of it: its only DB writes. */
export const LEASE_MS = 10_000;
export const ADMIN_TOKEN = randomBytes(24).toString('hex');

export const t0 = Date.now();
export function progress(msg: string): void {
  console.log(`[bench +${((Date.now() - t0) / 1000).toFixed(1).padStart(5)}s] ${msg}`);
}

/** Temp files of this run (SQLite files, MariaDB and Redis data); removed at the end. */
export const tmpDir = fs.mkdtempSync(path.join(os.tmpdir(), 'leaf-bench-'));

export { sleep } from '../harness/wait';
