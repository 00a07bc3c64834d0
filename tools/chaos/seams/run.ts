/**
 * `npm run chaos -- --seams [--seconds N | --minutes N] [--seed S] [--db sqlite|servers] [--checkout DIR]
 * [--legacy-completion]`: the seams run (docs/testing.md#the-seams-run). Two regions that share no database, three
 * nodes, a `@leaf-ts/client` service and a `@leaf-ts/embedded` service each; clients on every ID path; a seeded
 * scheduler of admin operations and faults (schedule.ts); one checker over the whole history (checker.ts). It prints
 * the seed and the schedule, writes the history beside it, and ends with one summary line; a failing seed replays.
 *
 * `--checkout DIR` runs another checkout's nodes and packages (say the commit before a fix), and with
 * `--legacy-completion` a change to strict counts as complete two polls, the margin and 2 s after its PATCH, as that
 * build promised — for showing what the run finds there.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO_ROOT, ensureMariadb, ensurePostgres, rng, sleep, stopAllChildren } from '../../harness';
import { check } from './checker';
import { type DbKind, Fleet, type Region, type Service } from './fleet';
import type { Answer, Completion, History, Op } from './history';
import { runLoad } from './load';
import { ROTATED_KEY, ROTATED_TAG, recordedKeyIds, rotateOpaqueKey } from './rotation';
import { type Draw, type ScheduleState, afterDraw, drawNext } from './schedule';

const ADMIN_TOKEN = 'seams-admin-token-0123456789';
const LEASE_MS = 2_000;
const POLL_MS = 250;
/** The key the run starts with; rotation.ts moves every later start to another. */
const OPAQUE_KEY = 'seams-opaque-key-0123456789abcdef-0123456789';
const NODE_ENV: Record<string, string> = {
  LEAF_ORDER_LEASE_MS: String(LEASE_MS),
  LEAF_ORDER_MARGIN_MS: '400',
  LEAF_ORDER_POLL_MS: String(POLL_MS),
  LEAF_ORDER_CLIENT_LEASE_MS: '4000',
  LEAF_NODE_HEARTBEAT_MS: '1000',
  LEAF_NODE_GONE_MS: '3000',
  LEAF_WORKER_LEASE_MS: '3000',
  LEAF_OPAQUE_KEY: OPAQUE_KEY,
};
/** `o1` is opaque: every path permutes its IDs; ranges are refused, strict and leaf semantics never drawn. */
const BASE_TAGS = ['plain', 's1', 's2', 'o1'];
/** `o2` is created, deleted and created again by the schedule: an opaque name keeps its encoding through it all. */
const OPAQUE_TAGS = ['o1', 'o2', ROTATED_TAG];
/** Where most requests and changes of ordering go: contention on few tags is where seams show. */
const HOT_TAGS = ['s1', 's2'];
const POOL = ['t1', 't2', 't3', 't4', 'o2'];
const FORMAT = { bizTag: 'fmt', pattern: 'F-{yyyyMMdd}-{seq:9}', resetPeriod: 'daily', timeZone: 'UTC', step: 10 };
const FORMAT_RE = 'F-\\d{8}-\\d{9}';

export interface SeamsArgs {
  seed: number;
  seconds: number;
  db: DbKind;
  checkout: string;
  legacyCompletion: boolean;
}

export function parseSeamsArgs(argv: string[]): SeamsArgs {
  const args: SeamsArgs = {
    seed: Number.parseInt(randomBytes(4).toString('hex'), 16),
    seconds: 40,
    db: 'sqlite',
    checkout: REPO_ROOT,
    legacyCompletion: false,
  };
  // --seconds or --minutes win over --size (the chaos suite adds `--size small` to every run).
  let seconds: number | undefined;
  let sized: number | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const value = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${a} needs a value`);
      return v;
    };
    if (a === '--seed') args.seed = Number(value());
    else if (a === '--seconds') seconds = Number(value());
    else if (a === '--minutes') seconds = Number(value()) * 60;
    else if (a === '--db') {
      const v = value();
      if (v !== 'sqlite' && v !== 'servers') throw new Error(`--db must be sqlite or servers (got ${v})`);
      args.db = v;
    } else if (a === '--size')
      sized = value() === 'full' ? 240 : 120; // the chaos suite's sizes
    else if (a === '--checkout') args.checkout = path.resolve(value());
    else if (a === '--legacy-completion') args.legacyCompletion = true;
    else if (a !== '--seams') throw new Error(`unknown option ${a}`);
  }
  args.seconds = seconds ?? sized ?? args.seconds;
  if (!Number.isSafeInteger(args.seed)) throw new Error('--seed must be an integer');
  if (!(args.seconds > 0)) throw new Error('--seconds / --minutes must be above 0');
  return args;
}

/** One admin request to a live node of the region, retried as a client retries; the status and body. */
async function admin(
  region: Region,
  method: string,
  target: string,
  body?: unknown,
): Promise<{ status: number; text: string }> {
  let last = { status: 0, text: 'no live node' };
  for (let attempt = 0; attempt < 20; attempt++) {
    const node = region.nodes.filter((n) => !n.down && !n.paused)[attempt % 3] ?? region.nodes.find((n) => !n.down);
    if (node !== undefined) {
      try {
        const r = await fetch(`${node.url}${target}`, {
          method,
          headers: {
            authorization: `Bearer ${ADMIN_TOKEN}`,
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: AbortSignal.timeout(5_000),
        });
        last = { status: r.status, text: await r.text() };
        if (r.status !== 503) return last;
      } catch (error) {
        last = { status: 0, text: String((error as Error).message) };
      }
    }
    await sleep(200);
  }
  return last;
}

/**
 * `--check history.json [--without path,path]`: the checker again over a written history, leaving out answers of
 * the paths named (say `runs`, to see what else a build gets wrong once one defect is set aside).
 */
export function recheck(file: string, without: readonly string[], legacyAfterMs?: number): number {
  const history = JSON.parse(fs.readFileSync(file, 'utf8')) as History;
  history.answers = history.answers.filter((a) => !without.includes(a.path));
  if (legacyAfterMs !== undefined) history.completions = legacyCompletions(history.ops, legacyAfterMs);
  const verdict = check(history);
  for (const f of verdict.findings) process.stdout.write(`FINDING ${f.kind}: ${f.detail}\n`);
  process.stdout.write(
    `chaos: seams check ${file}${without.length > 0 ? ` without ${without.join(',')}` : ''}: duplicates=${verdict.duplicates} ` +
      `wrong-region=${verdict.wrongRegion} order-violations=${verdict.orderViolations} order-judged=${verdict.orderJudged}\n`,
  );
  return verdict.duplicates + verdict.wrongRegion + verdict.orderViolations + verdict.badFormats === 0 ? 0 : 1;
}

export async function runSeams(args: SeamsArgs): Promise<number> {
  const t0 = performance.now();
  const say = (line: string) =>
    process.stdout.write(`[seams ${((performance.now() - t0) / 1000).toFixed(1)}s] ${line}\n`);
  if (args.db === 'servers') {
    ensureMariadb(say);
    ensurePostgres(say);
  }
  const runDir = fs.mkdtempSync(path.join(os.tmpdir(), 'leaf-seams-'));
  const hardStop = setTimeout(
    () => {
      process.stdout.write(`chaos: seams: hard time limit (${args.seconds + 150} s) hit, aborting: FAIL\n`);
      process.exit(3);
    },
    (args.seconds + 150) * 1_000,
  );
  hardStop.unref();
  say(`seed=${args.seed} db=${args.db} seconds=${args.seconds} checkout=${args.checkout} logs=${runDir}`);
  const random = rng(args.seed);
  const fleet = new Fleet({
    regions: 2,
    db: args.db,
    runDir,
    checkout: args.checkout,
    adminToken: ADMIN_TOKEN,
    nodeEnv: NODE_ENV,
    log: say,
  });
  const answers: Answer[] = [];
  const ops: Op[] = [];
  const completions: Completion[] = [];
  let done = false;
  try {
    await fleet.start();
    say(`fleet up: ${fleet.services.map((s) => `${s.name} :${s.port}`).join(', ')}`);
    const opaqueTags = new Set(OPAQUE_TAGS);
    const state: ScheduleState = {
      regions: 2,
      live: fleet.regions.map(() => new Set(BASE_TAGS)),
      deleted: fleet.regions.map(() => new Set<string>()),
      strict: fleet.regions.map(() => new Set(['s1'])),
      pool: POOL,
      base: BASE_TAGS,
      hot: HOT_TAGS,
      opaque: OPAQUE_TAGS,
      nodes: fleet.regions.map((r) => r.nodes.map((n) => n.name)),
      services: fleet.regions.map((r) => [...r.nodes, ...r.apps].filter((s) => s.unusable !== true).map((s) => s.name)),
      leaseMs: LEASE_MS,
    };
    for (const region of fleet.regions) {
      for (const tag of BASE_TAGS) {
        const r = await admin(region, 'POST', '/api/admin/tags', {
          bizTag: tag,
          step: 20,
          ordering: tag === 's1' ? 'strict' : 'none',
          ...(OPAQUE_TAGS.includes(tag) ? { encoding: 'opaque' } : {}),
        });
        if (r.status === 400 && OPAQUE_TAGS.includes(tag)) {
          // A checkout from before opaque tags (--checkout): the run goes on without them.
          say(`${tag} left out: this checkout has no opaque tags (${r.status} ${r.text.slice(0, 120)})`);
          for (const live of state.live) live.delete(tag);
          opaqueTags.delete(tag);
          continue;
        }
        if (r.status !== 201) throw new Error(`creating ${tag} in region ${region.index}: ${r.status} ${r.text}`);
      }
      const f = await admin(region, 'POST', '/api/admin/formats', FORMAT);
      if (f.status !== 201) throw new Error(`creating the formatted tag: ${f.status} ${f.text}`);
    }

    const load = runLoad({
      fleet,
      clientsPerRegion: 3,
      random: rng(args.seed ^ 0x5eed),
      tags: (region) => ({
        segment: [...state.live[region]!, ...state.deleted[region]!].slice(0, 10), // every live tag (o3 too) and a deleted one or so
        hot: HOT_TAGS,
        formatted: ['fmt'],
      }),
      answers,
      done: () => done,
      retryBoundMs: 10_000,
      attemptMs: 3_000,
    });
    const watcher = watchCompletions(fleet, state, completions, () => done);

    const until = performance.now() + args.seconds * 1_000; // the schedule's own time, after the set-up
    const rotateAt = until - args.seconds * 700; // 30 % in: a rolling rotation of the opaque key
    // A checkout without opaque tags, or without retired keys, has no key to rotate.
    const createdUnder: Record<string, string> = {};
    let rotated = !opaqueTags.has('o1') || !fs.existsSync(path.join(args.checkout, 'lib', 'opaque', 'keyRing.ts'));
    const faults = new Set<Promise<void>>();
    const busy = new Set<string>();
    while (performance.now() < until) {
      await sleep(300 + random() * 700);
      if (!rotated && performance.now() >= rotateAt && faults.size === 0) {
        rotated = true;
        await rotateOpaqueKey({ fleet, nodeEnv: NODE_ENV, runDir, admin, ops, live: state.live, keyIds: createdUnder });
        continue;
      }
      let draw: Draw | null = null;
      for (let i = 0; i < 10 && draw === null; i++) draw = drawNext(random, state);
      if (draw === null) continue;
      const d = draw;
      const fault = ['kill', 'pause', 'term', 'outage', 'slow'].includes(d.kind);
      if (fault) {
        if (busy.has(`${d.region} ${d.target}`) || faults.size >= 2) continue;
        busy.add(`${d.region} ${d.target}`);
        const running = injectFault(fleet, d, ops).finally(() => {
          busy.delete(`${d.region} ${d.target}`);
          faults.delete(running);
        });
        faults.add(running);
      } else if (d.underPause !== undefined && !busy.has(`${d.region} ${d.underPause.node}`) && faults.size < 2) {
        // A change made while a node sleeps through it: the pause is a fault like any other; the change starts in it.
        const sleeper: Draw = { kind: 'pause', region: d.region, target: d.underPause.node, arg: d.underPause.ms };
        busy.add(`${d.region} ${sleeper.target}`);
        const running = injectFault(fleet, sleeper, ops).finally(() => {
          busy.delete(`${d.region} ${sleeper.target}`);
          faults.delete(running);
        });
        faults.add(running);
        await sleep(50);
        await adminOp(fleet.regions[d.region]!, d, ops, createdUnder);
        afterDraw(state, d);
      } else {
        await adminOp(fleet.regions[d.region]!, d, ops, createdUnder);
        afterDraw(state, d);
      }
    }
    await Promise.all([...faults]);
    await sleep(1_500);
    done = true;
    const stats = await load;
    await watcher;
    const endedAt = performance.now();
    // The build before acknowledgements promised the order two polls and the margin after the change (its settle).
    if (args.legacyCompletion) completions.push(...legacyCompletions(ops, POLL_MS * 2 + 400));
    const keyIds = await recordedKeyIds(fleet, admin, [...opaqueTags], createdUnder);
    const history: History = {
      seed: args.seed,
      answers,
      ops,
      completions,
      endedAt,
      formats: { fmt: FORMAT_RE },
      regions: 2,
      opaque: { key: OPAQUE_KEY, tags: [...opaqueTags], keys: [OPAQUE_KEY, ROTATED_KEY], keyIds },
    };
    fs.writeFileSync(path.join(runDir, 'history.json'), JSON.stringify(history));
    fs.writeFileSync(path.join(runDir, 'schedule.txt'), ops.map(opLine).join('\n') + '\n');
    for (const op of ops) say(opLine(op));
    const verdict = check(history);
    for (const f of verdict.findings) say(`FINDING ${f.kind}: ${f.detail}`);
    const refused = Object.entries(stats.refused).sort((a, b) => b[1] - a[1]);
    if (refused.length > 0) say(`answers without IDs: ${refused.map(([k, n]) => `${k}=${n}`).join(', ')}`);
    const admins = ops.filter((o) => !['kill', 'pause', 'term', 'outage', 'slow'].includes(o.kind)).length;
    const pass =
      verdict.duplicates === 0 &&
      verdict.wrongRegion === 0 &&
      verdict.orderViolations === 0 &&
      verdict.badFormats === 0 &&
      verdict.unpermuted === 0;
    process.stdout.write(
      `chaos: seams seed=${args.seed} db=${args.db} seconds=${args.seconds} ops=${ops.length} (admin ${admins}, faults ${ops.length - admins}) ` +
        `answers=${verdict.answers} ids=${verdict.ids} duplicates=${verdict.duplicates} wrong-region=${verdict.wrongRegion} ` +
        `order-violations=${verdict.orderViolations} order-judged=${verdict.orderJudged} strict-windows=${completions.length} ` +
        `bad-formats=${verdict.badFormats} unpermuted=${verdict.unpermuted} requests=${stats.requests} retries=${stats.retries} history=${path.join(runDir, 'history.json')}: ${pass ? 'PASS' : 'FAIL'}\n`,
    );
    return pass ? 0 : 1;
  } finally {
    done = true;
    await fleet.close().catch(() => undefined);
    await stopAllChildren(0);
  }
}

function opLine(o: Op): string {
  return `${o.startAt.toFixed(0).padStart(7)} ms ${o.kind} region ${o.region} ${o.target}: ${o.outcome} (${(o.endAt - o.startAt).toFixed(0)} ms)`;
}

/** `createdUnder`: each opaque tag's key fingerprint as its creation answered it (a name keeps it through deletes). */
async function adminOp(region: Region, d: Draw, ops: Op[], createdUnder: Record<string, string>): Promise<void> {
  const startAt = performance.now();
  const tag = encodeURIComponent(d.target);
  let r: { status: number; text: string };
  let kind = d.kind;
  switch (d.kind) {
    case 'create':
    case 'recreate':
      if (d.arg === true) kind = 'strict'; // a tag created strict is a change to strict
      r = await admin(region, 'POST', '/api/admin/tags', {
        bizTag: d.target,
        step: 20,
        ordering: d.arg === true ? 'strict' : 'none',
        ...(OPAQUE_TAGS.includes(d.target) ? { encoding: 'opaque' } : {}),
      });
      if (r.status === 201 && OPAQUE_TAGS.includes(d.target)) {
        // Created after the key rotation, possibly under the new key: the checker must read it under that one.
        const keyId = (JSON.parse(r.text) as { tag: { keyId?: string | null } }).tag.keyId;
        if (typeof keyId === 'string') createdUnder[`${region.index} ${d.target}`] = keyId;
      }
      break;
    case 'delete':
      r = await admin(region, 'DELETE', `/api/admin/tags/${tag}`, { confirm: d.target });
      break;
    case 'step':
      r = await admin(region, 'PATCH', `/api/admin/tags/${tag}`, { step: d.arg });
      break;
    case 'raise': {
      const current = await admin(region, 'GET', `/api/admin/tags/${tag}`);
      const maxId =
        current.status === 200 ? BigInt((JSON.parse(current.text) as { tag: { maxId: string } }).tag.maxId) : null;
      r =
        maxId === null
          ? current
          : await admin(region, 'PATCH', `/api/admin/tags/${tag}`, { maxId: String(maxId + BigInt(d.arg as number)) });
      break;
    }
    case 'semantics':
      r = await admin(region, 'PATCH', `/api/admin/tags/${tag}`, { semantics: d.arg });
      break;
    default:
      r = await admin(region, 'PATCH', `/api/admin/tags/${tag}`, { ordering: d.kind === 'strict' ? 'strict' : 'none' });
  }
  ops.push({
    kind,
    region: region.index,
    target: d.target,
    startAt,
    endAt: performance.now(),
    outcome: `${r.status} ${d.kind}${d.arg === 0 ? '' : ` ${String(d.arg)}`}`,
  });
}

async function injectFault(fleet: Fleet, d: Draw, ops: Op[]): Promise<void> {
  const startAt = performance.now();
  const region = fleet.regions[d.region]!;
  const ms = d.arg as number;
  let outcome: string;
  const service = fleet.services.find((s) => s.name === d.target) as Service | undefined;
  try {
    if (d.kind === 'outage') {
      await region.outage(ms);
      outcome = `unreachable ${ms} ms`;
    } else if (d.kind === 'slow') {
      await region.slow(ms);
      outcome = `slow ${ms} ms`;
    } else if (service !== undefined && !service.down) {
      if (d.kind === 'pause') {
        fleet.pause(service);
        await sleep(ms);
        fleet.resume(service);
        outcome = `paused ${ms} ms`;
      } else {
        await (d.kind === 'kill' ? fleet.kill(service) : fleet.term(service));
        await sleep(ms);
        await fleet.startService(service);
        outcome = `${d.kind === 'kill' ? 'SIGKILL' : 'SIGTERM'}, back after ${ms} ms`;
      }
    } else outcome = 'skipped: down';
  } catch (error) {
    outcome = `failed: ${String((error as Error).message).split('\n')[0]}`;
  }
  ops.push({ kind: d.kind, region: d.region, target: d.target, startAt, endAt: performance.now(), outcome });
}

/** Every 200 ms, each region's strict tags as their views say: a `strictSince` seen is a change complete. */
async function watchCompletions(
  fleet: Fleet,
  state: ScheduleState,
  out: Completion[],
  done: () => boolean,
): Promise<void> {
  const last = new Map<string, string>();
  while (!done()) {
    for (const region of fleet.regions) {
      for (const tag of [...state.strict[region.index]!]) {
        const askedAt = performance.now();
        const r = await admin(region, 'GET', `/api/admin/tags/${encodeURIComponent(tag)}`).catch(() => null);
        const seenAt = performance.now();
        if (r?.status !== 200) continue;
        const since = (JSON.parse(r.text) as { tag: { strictSince?: string | null } }).tag.strictSince;
        const key = `${region.index} ${tag}`;
        if (typeof since === 'string' && last.get(key) !== since) {
          last.set(key, since);
          out.push({ region: region.index, tag, strictSince: since, askedAt, seenAt });
        }
      }
    }
    await sleep(200);
  }
}

/** A build without `strictSince`: each change to strict counted complete `afterMs` after its request ended. */
function legacyCompletions(ops: readonly Op[], afterMs: number): Completion[] {
  return ops
    .filter((o) => o.kind === 'strict' && o.outcome.startsWith('20'))
    .map((o) => ({
      region: o.region,
      tag: o.target,
      strictSince: 'legacy',
      askedAt: o.endAt + afterMs,
      seenAt: o.endAt + afterMs,
    }));
}
