/**
 * `npm run regions -- check URL…` and `npm run regions -- change --to N DATABASE_URL… [--new DATABASE_URL…]`
 * (docs/operations.md#regions).
 *
 * check: asks a node of each region (its /api/health) and compares what regions need to share — the count, one
 *   database per number, the snowflake layout and epoch — since regions share no database that could.
 * change: moves every region's database to N regions without issuing an ID twice (lib/settings/regionChange.ts):
 *   refuses while any leaf-ts process is registered on a database (stop them; processes on this machine proven dead
 *   are removed, others with --forget after you made sure) or while any tag's max_id moves during the watch (a Java
 *   Leaf node, which registers nowhere); raises every row, rewrites each region record, drops the snowflake layout
 *   record, and prints the LEAF_SNOWFLAKE_MIN_ID the nodes must start with.
 */
import { randomUUID } from 'node:crypto';
import { isLeafError } from '../lib/errors';
import { provedDead } from '../lib/ordered/procIdentity';
import { type RegionHoldings, planRegionChange } from '../lib/settings/regionChange';
import { SNOWFLAKE_SETTING } from '../lib/snowflake/fleetLayout';
import { SnowflakeLayout } from '../lib/snowflake/layout';
import { openStore } from '../lib/store';
import type { LeafStore } from '../lib/store/leafStore';
import { defaultMigrationsDir } from '../lib/store/migrations';
import { storeUrlTarget } from '../lib/store/target';

const say = (line: string) => process.stdout.write(`${line}\n`);

interface HealthRegion {
  url: string;
  region: { region: number; regions: number; database: string } | null;
  snowflake: { state: string; layout?: string; layoutBits?: string; epoch?: string };
}

/** Compares the regions an operator can reach; the lines to print and whether they agree. */
export function compareRegions(nodes: readonly HealthRegion[]): { lines: string[]; ok: boolean } {
  const lines: string[] = [];
  let ok = true;
  const problem = (line: string) => {
    ok = false;
    lines.push(`PROBLEM ${line}`);
  };
  for (const n of nodes) {
    const r = n.region;
    const sf = n.snowflake.state === 'off' ? 'snowflake off' : `${n.snowflake.layoutBits} from ${n.snowflake.epoch}`;
    lines.push(
      `${n.url}: ${r === null ? 'no region record' : `region ${r.region} of ${r.regions}, database ${r.database.slice(0, 8)}`}; ${sf}`,
    );
  }
  const withRegion = nodes.filter((n) => n.region !== null);
  const counts = new Set(withRegion.map((n) => n.region!.regions));
  if (counts.size > 1)
    problem(`the regions count differently (${[...counts].join(', ')}): their IDs can meet (9 = 3·3 = 4·2 + 1)`);
  const byNumber = new Map<number, Set<string>>();
  for (const n of withRegion)
    byNumber.set(n.region!.region, (byNumber.get(n.region!.region) ?? new Set()).add(n.region!.database));
  for (const [number, databases] of byNumber)
    if (databases.size > 1)
      problem(`region ${number} is served by ${databases.size} databases: they repeat each other's IDs`);
  const count = [...counts][0];
  if (count !== undefined) {
    const missing = Array.from({ length: count }, (_, r) => r).filter((r) => !byNumber.has(r));
    if (missing.length > 0)
      lines.push(`NOT CHECKED region${missing.length > 1 ? 's' : ''} ${missing.join(', ')}: no node of it was given`);
  }
  const layouts = new Set(
    nodes.filter((n) => n.snowflake.state !== 'off').map((n) => `${n.snowflake.layoutBits} from ${n.snowflake.epoch}`),
  );
  if (layouts.size > 1)
    problem(`snowflake layouts or epochs differ (${[...layouts].join('; ')}): region bits sit in different places`);
  lines.push(ok ? 'OK: the regions given agree' : 'FAILED: see the problems above');
  return { lines, ok };
}

async function check(urls: string[], token: string | undefined): Promise<number> {
  if (urls.length === 0) throw new Error('usage: npm run regions -- check <node URL>… [--token T]');
  const nodes: HealthRegion[] = [];
  for (const url of urls) {
    const base = url.replace(/\/+$/, '');
    const r = await fetch(`${base}/api/health`, {
      headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
      signal: AbortSignal.timeout(5_000),
    });
    if (r.status !== 200) throw new Error(`${base}/api/health answered ${r.status}`);
    const body = (await r.json()) as Omit<HealthRegion, 'url'>;
    nodes.push({ url: base, region: body.region ?? null, snowflake: body.snowflake ?? { state: 'off' } });
  }
  const { lines, ok } = compareRegions(nodes);
  for (const line of lines) say(line);
  return ok ? 0 : 1;
}

interface ChangeArgs {
  to: number;
  existing: string[];
  fresh: string[];
  watchSeconds: number;
  forget: Set<string>;
}

function parseChange(argv: string[]): ChangeArgs {
  const args: ChangeArgs = { to: NaN, existing: [], fresh: [], watchSeconds: 10, forget: new Set() };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const value = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${a} needs a value`);
      return v;
    };
    if (a === '--to') args.to = Number(value());
    else if (a === '--new') args.fresh.push(value());
    else if (a === '--watch-seconds') args.watchSeconds = Number(value());
    else if (a === '--forget') args.forget.add(value());
    else if (a.startsWith('--')) throw new Error(`unknown option ${a}`);
    else args.existing.push(a);
  }
  if (!Number.isInteger(args.to) || args.existing.length === 0)
    throw new Error(
      'usage: npm run regions -- change --to N <DATABASE_URL of each region>… [--new DATABASE_URL]… [--watch-seconds S] [--forget INSTANCE_ID]…',
    );
  if (!Number.isFinite(args.watchSeconds) || args.watchSeconds < 0)
    throw new Error('--watch-seconds must be 0 or more');
  return args;
}

/** Where a URL points, for people: never its password. */
function shown(url: string): string {
  try {
    const u = new URL(url);
    u.password = '';
    return u.toString();
  } catch {
    return url;
  }
}

async function change(argv: string[]): Promise<number> {
  const args = parseChange(argv);
  const urls = [...args.existing, ...args.fresh];
  const stores: Array<{ url: string; store: LeafStore; fresh: boolean }> = [];
  try {
    for (const [i, url] of urls.entries()) {
      say(`opening ${shown(url)}`);
      const store = await openStore({ ...storeUrlTarget(url), migrationsDir: defaultMigrationsDir() });
      stores.push({ url, store, fresh: i >= args.existing.length });
    }
    // 1. Nothing may issue IDs meanwhile: no registered leaf-ts process, no moving max_id.
    let busy = false;
    for (const { url, store } of stores) {
      for (const p of await store.regionChange.liveProcesses(10_000)) {
        if (p.procKey !== '' && provedDead(p.procKey)) {
          await store.regionChange.removeParticipant(p.instanceId);
          say(`${shown(url)}: removed ${p.label} (${p.instanceId}): proven dead on this machine`);
        } else if (args.forget.has(p.instanceId)) {
          await store.regionChange.removeParticipant(p.instanceId);
          say(`${shown(url)}: forgot ${p.label} (${p.instanceId}) as told`);
        } else {
          busy = true;
          say(
            `${shown(url)}: ${p.kind} ${p.label} on ${p.host} (${p.instanceId}) is registered, seen ${Math.round(p.lastSeenAgoMs / 1000)} s ago: stop it (if it is stopped for good, --forget ${p.instanceId})`,
          );
        }
      }
    }
    if (busy) {
      say('REFUSED: leaf-ts processes are registered; stop every node and embedded process of every region first');
      return 1;
    }
    if (args.watchSeconds > 0) {
      say(
        `watching every max_id for ${args.watchSeconds} s (a Java Leaf node registers nowhere: only its claims show it)`,
      );
      const before = await Promise.all(stores.map(({ store }) => store.regionChange.readMaxIds()));
      await new Promise((r) => setTimeout(r, args.watchSeconds * 1_000));
      const after = await Promise.all(stores.map(({ store }) => store.regionChange.readMaxIds()));
      const moved = stores.flatMap(({ url }, i) =>
        [...after[i]!].filter(([tag, id]) => (before[i]!.get(tag) ?? id) !== id).map(([tag]) => `${shown(url)} ${tag}`),
      );
      if (moved.length > 0) {
        say(
          `REFUSED: still claiming (a Java Leaf node, or a process started meanwhile): ${moved.slice(0, 10).join(', ')}`,
        );
        return 1;
      }
    }
    // 2. The plan, from what every database holds.
    const holdings: RegionHoldings[] = [];
    const snowflake: string[] = [];
    for (const { url, store, fresh } of stores) {
      const recorded = await store.regionChange.readRegion();
      if (fresh && recorded !== null)
        throw new Error(`${shown(url)} is given as new but records region ${recorded.region} of ${recorded.regions}`);
      if (!fresh && recorded === null)
        throw new Error(`${shown(url)} has no region record: give it with --new if it is a new region's`);
      holdings.push({ recorded, ...(await store.regionChange.readPositions()) });
      const recordedLayout = await store.regionChange.readSetting(SNOWFLAKE_SETTING);
      if (recordedLayout !== null) snowflake.push(recordedLayout);
    }
    const plan = planRegionChange(holdings, args.to, randomUUID);
    say(
      `plan: ${plan.from} → ${plan.to} regions; ${plan.highest.tags.size} tags and ${plan.highest.periods.size} formatted periods raised above the highest ID any region issued`,
    );
    // 3. The writes, one transaction per database.
    for (const [i, { url, store }] of stores.entries()) {
      const write = plan.writes[i]!;
      await store.regionChange.applyRegionChange(write, 'npm run regions -- change', [SNOWFLAKE_SETTING]);
      say(
        `${shown(url)}: region ${write.record.region} of ${write.record.regions} (database ${write.record.database.slice(0, 8)}), ${write.tags.size} tags and ${write.periods.size} periods raised`,
      );
    }
    // 4. Snowflake: its region bits move with the count, so the layout is recorded again; a floor above every ID.
    const floor = snowflakeFloor(snowflake, plan.from);
    say(
      floor === null
        ? 'snowflake: no layout was recorded (snowflake off): nothing to do'
        : `snowflake: start every node with LEAF_SNOWFLAKE_MIN_ID=${floor} (the highest ID any node can have issued by now) and LEAF_REGIONS=${plan.to}`,
    );
    say(
      `DONE: start every region's nodes with LEAF_REGIONS=${plan.to} and each its own LEAF_REGION (the new databases: ${
        plan.writes
          .slice(args.existing.length)
          .map((w) => w.record.region)
          .join(', ') || 'none'
      })`,
    );
    return 0;
  } finally {
    for (const { store } of stores) await store.close().catch(() => undefined);
  }
}

/** The highest snowflake ID any node of the recorded layouts could have issued up to now, as a decimal string. */
function snowflakeFloor(records: readonly string[], regions: number): string | null {
  let highest: bigint | null = null;
  for (const text of records) {
    const { layout: name, epochMs } = JSON.parse(text) as { layout: string; epochMs: number };
    const parsed = SnowflakeLayout.parse(name);
    if (!(parsed instanceof SnowflakeLayout)) continue;
    const withRegions = parsed.forRegions(regions);
    const layout = withRegions instanceof SnowflakeLayout ? withRegions : parsed;
    const top = layout.compose(
      layout.unitOf(Date.now(), epochMs),
      layout.maxRegion,
      layout.maxWorkerId,
      layout.maxSequence,
    );
    if (highest === null || top > highest) highest = top;
  }
  return highest === null ? null : String(highest);
}

async function main(): Promise<number> {
  const [command, ...rest] = process.argv.slice(2);
  if (command === 'check') {
    const token = rest.includes('--token') ? rest[rest.indexOf('--token') + 1] : undefined;
    return check(
      rest.filter((a, i) => a !== '--token' && rest[i - 1] !== '--token'),
      token,
    );
  }
  if (command === 'change') return change(rest);
  throw new Error('usage: npm run regions -- check <node URL>… | change --to N <DATABASE_URL>… [--new DATABASE_URL]…');
}

if (process.argv[1] !== undefined && /regions\.ts$/.test(process.argv[1])) {
  main().then(
    (code) => process.exit(code),
    (error: unknown) => {
      process.stderr.write(
        `regions: ${isLeafError(error) || error instanceof Error ? error.message : String(error)}\n`,
      );
      process.exit(2);
    },
  );
}
