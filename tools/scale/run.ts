/**
 * `npm run scale [-- --app <dir>] [--label <name>] [--tags 10000] [--nodes 3]`: thousands of tags, measured as a
 * new user meets them. Starts `--nodes` leaf-ts nodes of the app in `--app` (default: this checkout; it needs a
 * production build, `npx next build` there) on one shared SQLite file, writes `--tags` tags straight into
 * leaf_alloc, draws IDs of every tag on every node (each node holds a buffer of each), keeps a light load on 20
 * tags, then measures:
 *  - the dashboard (Debian chromium via Playwright): ms from navigation until the rows of its first answer are in
 *    the table and until the load event (median of 3 first visits), rows in the DOM, the page's JS heap, and the
 *    bytes of its tag-list polls over 12 s;
 *  - GET /api/metrics with its defaults: bytes, lines, ms (median of 3).
 * Prints a table and records it under `--label` in tools/scale/results.json, from which tools/scale/results.md is
 * written (so a "before" run on an older checkout and an "after" run sit side by side). Bounded: ~2–4 min.
 * To measure an older version: `git worktree add /tmp/scale-before <commit>`, `cp -al node_modules
 * /tmp/scale-before/`, `npx next build` there, then `npm run scale -- --app /tmp/scale-before --label before`.
 * No top-level await: tsx runs this file as CommonJS.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO_ROOT, type NodeServer, stopAllChildren } from '../harness';
import { type DashboardFigures, measureDashboard } from './dashboard';
import { drawEverywhere, get, seedTags, startNodes, trickle } from './fleet';

interface Args {
  app: string;
  label: string;
  tags: number;
  nodes: number;
}

function parseArgs(argv: string[]): Args {
  const value = (name: string) => {
    const i = argv.indexOf(`--${name}`);
    return i === -1 ? undefined : argv[i + 1];
  };
  return {
    app: path.resolve(value('app') ?? REPO_ROOT),
    label: value('label') ?? 'after',
    tags: Number(value('tags') ?? 10_000),
    nodes: Number(value('nodes') ?? 3),
  };
}

export interface ScaleResult {
  label: string;
  commit: string;
  at: string;
  tags: number;
  nodes: number;
  loadBefore: number[];
  loadAfter: number[];
  drawSeconds: number;
  dashboard: DashboardFigures;
  metrics: { bytes: number; lines: number; ms: number };
  listApi: { bytes: number; ms: number };
}

const log = (line: string) => process.stderr.write(`[scale] ${line}\n`);
const WATCH_MS = 12_000;
const RESULTS_JSON = path.join(REPO_ROOT, 'tools/scale/results.json');
const RESULTS_MD = path.join(REPO_ROOT, 'tools/scale/results.md');

function commitOf(dir: string): string {
  try {
    return execFileSync('git', ['rev-parse', '--short=7', 'HEAD'], { cwd: dir, encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
}

async function median3(fn: () => Promise<{ status: number; body: Buffer; ms: number }>) {
  const runs = [await fn(), await fn(), await fn()];
  for (const r of runs)
    if (r.status !== 200) throw new Error(`answered ${r.status}: ${r.body.toString('utf8').slice(0, 200)}`);
  runs.sort((a, b) => a.ms - b.ms);
  return runs[1]!;
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  if (!fs.existsSync(path.join(args.app, '.next', 'BUILD_ID')))
    throw new Error(`${args.app} has no production build: run npx next build there first`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leaf-scale-'));
  const hardCap = setTimeout(() => {
    log('hard cap of 8 min reached: stopping');
    void stopAllChildren(0).finally(() => process.exit(2));
  }, 8 * 60_000);
  hardCap.unref();
  const loadBefore = os.loadavg();
  let servers: NodeServer[] = [];
  let stopTrickle: (() => Promise<void>) | undefined;
  try {
    log(
      `app ${args.app} (${commitOf(args.app)}), ${args.tags} tags, ${args.nodes} nodes, load ${loadBefore.map((l) => l.toFixed(2)).join(' ')}`,
    );
    servers = await startNodes(args.app, dir, 0, 1, log);
    seedTags(path.join(dir, 'leaf.db'), args.tags);
    log(`${args.tags} tags written to leaf_alloc`);
    servers.push(...(await startNodes(args.app, dir, 1, args.nodes, log)));
    await new Promise((r) => setTimeout(r, 1_100)); // the first node re-reads the tag list on its first unknown tag
    const drawStart = Date.now();
    const failures = await drawEverywhere(servers, args.tags, 1);
    const drawSeconds = (Date.now() - drawStart) / 1000;
    log(`drew IDs of every tag on every node in ${drawSeconds.toFixed(1)} s (${failures} failures)`);
    stopTrickle = trickle(servers, 20);
    await new Promise((r) => setTimeout(r, 3_000)); // the rate sampler sees the load
    const port = servers[0]!.port;
    const list = await median3(() => get(port, '/api/admin/tags'));
    const metrics = await median3(() => get(port, '/api/metrics'));
    log(
      `/api/metrics: ${metrics.body.length} B, ${metrics.body.toString('utf8').split('\n').length} lines, ${metrics.ms.toFixed(0)} ms`,
    );
    const dashboard = await measureDashboard(port, WATCH_MS);
    const result: ScaleResult = {
      label: args.label,
      commit: commitOf(args.app),
      at: new Date().toISOString(),
      tags: args.tags,
      nodes: args.nodes,
      loadBefore: loadBefore.map((l) => Math.round(l * 100) / 100),
      loadAfter: os.loadavg().map((l) => Math.round(l * 100) / 100),
      drawSeconds,
      dashboard,
      metrics: {
        bytes: metrics.body.length,
        lines: metrics.body.toString('utf8').trimEnd().split('\n').length,
        ms: Math.round(metrics.ms),
      },
      listApi: { bytes: list.body.length, ms: Math.round(list.ms) },
    };
    const all = fs.existsSync(RESULTS_JSON)
      ? (JSON.parse(fs.readFileSync(RESULTS_JSON, 'utf8')) as Record<string, ScaleResult>)
      : {};
    all[args.label] = result;
    fs.writeFileSync(RESULTS_JSON, `${JSON.stringify(all, null, 2)}\n`);
    // "before" first, then the others in the order they were first recorded.
    const md = render(Object.values(all).sort((a, b) => Number(b.label === 'before') - Number(a.label === 'before')));
    fs.writeFileSync(RESULTS_MD, md);
    process.stdout.write(`${md}\n`);
  } finally {
    clearTimeout(hardCap);
    // The load stops before the nodes do, so a failure above is what this run reports.
    await stopTrickle?.();
    await Promise.all(servers.map((s) => s.stop(5_000)));
    await stopAllChildren(0);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const kb = (b: number) => `${(b / 1024).toLocaleString('en-US', { maximumFractionDigits: 1 })} KB`;

export function render(results: ScaleResult[]): string {
  const cols = results.map((r) => `${r.label} (${r.commit})`);
  const row = (name: string, pick: (r: ScaleResult) => string) => `| ${name} | ${results.map(pick).join(' | ')} |`;
  return [
    '# Thousands of tags: `npm run scale`',
    '',
    `${[...new Set(results.map((r) => r.tags.toLocaleString('en-US')))].join(' or ')} tags (each column's label says which) on ${results[0]?.nodes} nodes sharing one SQLite file; every tag drawn on every node, 20 tags under a light`,
    'steady load. Dashboard in Debian chromium (Playwright), 1280×860; polls counted over 12 s after the table is usable.',
    'Generated by tools/scale/run.ts (`npm run scale -- --app <checkout> --label <name>`); see its header.',
    '',
    `| | ${cols.join(' | ')} |`,
    `| --- | ${cols.map(() => '---:').join(' | ')} |`,
    row("dashboard usable (first answer's rows rendered)", (r) => `${(r.dashboard.usableMs / 1000).toFixed(2)} s`),
    row('dashboard load event', (r) =>
      r.dashboard.loadMs === undefined ? '—' : `${(r.dashboard.loadMs / 1000).toFixed(2)} s`,
    ),
    row('table rows in the DOM', (r) => r.dashboard.domRows.toLocaleString('en-US')),
    row(
      'page JS heap used / total',
      (r) => `${r.dashboard.heapUsedMb.toFixed(0)} / ${r.dashboard.heapTotalMb.toFixed(0)} MB`,
    ),
    row('tag-list polls in 12 s', (r) => String(r.dashboard.listPolls)),
    row('bytes per tag-list poll', (r) => kb(r.dashboard.listBytesPerPoll)),
    row('all /api bytes in 12 s', (r) => kb(r.dashboard.apiBytes)),
    row('GET /api/admin/tags (default) size, time', (r) => `${kb(r.listApi.bytes)}, ${r.listApi.ms} ms`),
    row('GET /api/metrics (default) size', (r) => kb(r.metrics.bytes)),
    row('GET /api/metrics lines', (r) => r.metrics.lines.toLocaleString('en-US')),
    row('GET /api/metrics time (median of 3)', (r) => `${r.metrics.ms} ms`),
    row('drawing 1 ID of every tag on every node', (r) => `${r.drawSeconds.toFixed(1)} s`),
    row('load average (1/5/15 min) before → after', (r) => `${r.loadBefore.join(' ')} → ${r.loadAfter.join(' ')}`),
    row('measured at', (r) => r.at.replace(/\.\d+Z$/, 'Z')),
    '',
    'The machine has 2 cores shared with other work; the load average says how quiet it was.',
    '',
  ].join('\n');
}

if (require.main === module) {
  main().catch(async (error: unknown) => {
    log(`failed: ${error instanceof Error ? error.stack : String(error)}`);
    await stopAllChildren(0);
    process.exit(1);
  });
}
