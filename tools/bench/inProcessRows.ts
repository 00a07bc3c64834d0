/**
 * The in-process rows, each source in a child process of its own: tools/bench/inProcess.ts (SegmentEngine.takeIds,
 * the snowflake generators) and tools/bench/idLoop.ts (a bare counter, engine.nextId, the tag handle, UUID v7, ULID).
 */
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { track } from '../harness';
import { BATCH, INPROC_MS, LOOP_MS, LOOP_WARMUP_MS, ROOT, ROUNDS, TARGET_VS_BARE, progress } from './config';
import { fmtInt, fmtRate, fmtSmall, fmtX, mark, pct } from './format';
import type { LoopResult, LoopSource } from './idLoop';
import type { Result as InProc, SnowflakeResult as InProcSnowflake } from './inProcess';
import { failures, notes, rows } from './results';

/** An installed package's version (read from node_modules: some packages do not export their package.json). */
export function pkgVersion(name: string): string {
  try {
    return (
      JSON.parse(fs.readFileSync(path.join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }
    ).version;
  } catch {
    return 'unknown';
  }
}
export const sapphireVersion = pkgVersion('@sapphire/snowflake');
export const sonyflakeVersion = pkgVersion('sonyflake');
export const redisClientVersion = pkgVersion('redis');
export const mysql2Version = pkgVersion('mysql2');
export const uuidVersion = pkgVersion('uuid');
export const ulidVersion = pkgVersion('ulid');

/** Runs `node --import tsx <script> [...args]` from the repo root (NODE_ENV=production) and returns its last stdout line as JSON. */
export async function runChild<T>(
  script: string,
  args: string[],
  env: Record<string, string>,
  onLine?: (line: string) => void,
): Promise<T> {
  const child = track(
    spawn(process.execPath, ['--import', 'tsx', script, ...args], {
      cwd: ROOT,
      env: { ...process.env, NODE_ENV: 'production', ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    }),
  );
  progress(`${script} ${args.join(' ')}: started PID ${child.pid}`);
  let out = '';
  let seen = 0;
  child.stdout?.on('data', (c: Buffer) => {
    out += c.toString();
    const lines = out.split('\n');
    for (const line of lines.slice(seen, -1)) onLine?.(line);
    seen = Math.max(seen, lines.length - 1);
  });
  const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
  if (code !== 0) throw new Error(`${script} ${args.join(' ')} exited with ${code}`);
  return JSON.parse(out.trim().split('\n').pop() as string) as T;
}

export async function measureInProcess(): Promise<void> {
  progress(
    `in-process: SegmentEngine over SqliteStore(':memory:'), tag step 1000; takeIds(tag, ${BATCH}); then SnowflakeGenerator.nextId() ` +
      `in each layout preset, @sapphire/snowflake ${sapphireVersion} generate() and sonyflake ${sonyflakeVersion} nextId(); ${INPROC_MS} ms each after 1 s warm-up (child process)`,
  );
  const { take, snowflake } = await runChild<{ take: InProc; snowflake: InProcSnowflake[] }>(
    'tools/bench/inProcess.ts',
    [],
    { BENCH_INPROC_MS: String(INPROC_MS) },
  );
  {
    const r = take;
    if (!r.ordered) failures.push('in-process take: IDs not strictly increasing');
    const check = `${r.ordered ? '✔' : '✘'} IDs increasing; ${r.promiseReturns} promise returns; step grew to ${r.step.toLocaleString('en-US')}`;
    const per1000 = (r.loads / r.ids) * 1000;
    rows.push({
      key: 'take',
      scenario: `in-process \`takeIds(tag, ${BATCH})\` (calls/s)`,
      reqPerSec: r.callsPerSec,
      idsPerSec: r.idsPerSec,
      p50: NaN,
      p99: NaN,
      errors: null,
      non2xx: null,
      writesPer1000: per1000,
      writesCell: `${fmtSmall(per1000)} (${fmtInt(r.loads)} segment loads / ${fmtRate(r.ids)} IDs)`,
      cpuPerReqUs: NaN,
      cpuShare: null,
      check,
      claims: null,
    });
    progress(`in-process take: ${fmtRate(r.idsPerSec)} IDs/s (${check})`);
  }
  for (const r of snowflake) {
    const preset = r.mode.startsWith('ours:') ? r.mode.slice('ours:'.length) : null;
    const ours = preset !== null;
    // sf-ours stays Leaf's row (the report's ratios name it); each other preset has its own.
    const key = preset === 'leaf' ? 'sf-ours' : `sf-${preset ?? r.mode}`;
    const scenario = ours
      ? `in-process snowflake: leaf-ts \`SnowflakeGenerator.nextId()\`, layout ${preset}`
      : r.mode === 'sapphire'
        ? `in-process snowflake: \`@sapphire/snowflake\` ${sapphireVersion} \`generate()\` (Twitter's layout)`
        : `in-process snowflake: npm \`sonyflake\` ${sonyflakeVersion} \`nextId()\` (Sony's fields, ms time)`;
    const clean = r.duplicates === 0 && r.notIncreasing === 0;
    // Our generator must never repeat; the libraries' repeats are a finding about them, reported, not a bench failure.
    if (ours && !clean)
      failures.push(
        `in-process snowflake ${preset}: ${r.duplicates} duplicates, ${r.notIncreasing} IDs not above the one before`,
      );
    const limit =
      r.limitPerSec === null
        ? ''
        : `; layout limit ${fmtRate(r.limitPerSec)} IDs/s per worker, reached ${pct(r.idsPerSec / r.limitPerSec)} %`;
    const check =
      `${clean ? '✔' : ours ? '✘' : '⚠'} ${r.notIncreasing.toLocaleString('en-US')} IDs not above the one before (timed loop); ` +
      `${r.duplicates.toLocaleString('en-US')} duplicates in ${r.checked.toLocaleString('en-US')} IDs (separate pass, sorted); ${r.promiseReturns.toLocaleString('en-US')} promise returns` +
      (ours ? " (a unit's sequence used up: waits for the next unit)" : '') +
      limit;
    rows.push({
      key,
      scenario,
      reqPerSec: r.idsPerSec,
      idsPerSec: r.idsPerSec,
      p50: NaN,
      p99: NaN,
      errors: null,
      non2xx: null,
      writesPer1000: 0,
      writesCell: '0 (no lease in-process)',
      cpuPerReqUs: NaN,
      cpuShare: null,
      check,
      claims: null,
    });
    progress(`in-process ${key}: ${fmtRate(r.idsPerSec)} IDs/s (${check})`);
  }
}

/** How each one-source loop is labelled, and what its ID costs in an index next to leaf-ts's 8-byte BIGINT. */
const LOOP_ROWS: Record<LoopSource, { scenario: string; size: string }> = {
  counter: {
    scenario: 'in-process bare counter loop (`++n` behind a method): the ceiling of the two rows below',
    size: '',
  },
  nextId: { scenario: 'in-process `engine.nextId(tag)` (SegmentEngine)', size: '' },
  tag: { scenario: 'in-process tag handle `engine.tag(tag).next()`', size: '' },
  uuidv7: {
    scenario: `no service: UUID v7, \`uuid\` ${uuidVersion} \`v7()\``,
    size: '16 bytes as BINARY(16) / a UUID column, 36 chars as text',
  },
  ulid: {
    scenario: `no service: ULID, \`ulid\` ${ulidVersion} \`monotonicFactory()()\``,
    size: '16 bytes as binary, 26 chars as text',
  },
};
/** Measured in this order in even rounds, reversed in odd ones; the no-service sources once each, after them. */
const RATIO_SOURCES: LoopSource[] = ['counter', 'nextId', 'tag'];
const NO_SERVICE_SOURCES: LoopSource[] = ['uuidv7', 'ulid'];

/**
 * The one-source loops (tools/bench/idLoop.ts), each run in a fresh child process: counter, nextId and tag handle
 * interleaved over ROUNDS runs (their ratios to the counter are the issue's target), then UUID v7 and ULID.
 */
export async function measureLoops(): Promise<void> {
  progress(
    `in-process loops: ${[...RATIO_SOURCES, ...NO_SERVICE_SOURCES].join(', ')}, each in a fresh child process (tools/bench/idLoop.ts), ` +
      `${LOOP_MS} ms after ${LOOP_WARMUP_MS} ms warm-up per run; ${ROUNDS} interleaved runs of ${RATIO_SOURCES.join(', ')}`,
  );
  const env = { BENCH_INPROC_MS: String(LOOP_MS), BENCH_INPROC_WARMUP_MS: String(LOOP_WARMUP_MS) };
  const runsOf = new Map<LoopSource, LoopResult[]>();
  const run = async (source: LoopSource) => {
    const r = await runChild<LoopResult>('tools/bench/idLoop.ts', [source], env);
    progress(
      `in-process ${source}: ${r.skipped ?? `${fmtRate(r.idsPerSec)} IDs/s (${fmtRate(r.idsPerCpuSec)} per CPU-second)`}`,
    );
    runsOf.set(source, [...(runsOf.get(source) ?? []), r]);
    return r;
  };
  for (let round = 0; round < ROUNDS; round++) {
    for (const source of round % 2 === 0 ? RATIO_SOURCES : [...RATIO_SOURCES].reverse()) {
      // A skipped source stays skipped: no second process for it.
      if (runsOf.get(source)?.[0]?.skipped != null) continue;
      await run(source);
    }
  }
  for (const source of NO_SERVICE_SOURCES) await run(source);

  const sum = (source: LoopSource) => {
    const all = runsOf.get(source) ?? [];
    const ids = all.reduce((a, r) => a + r.ids, 0);
    const seconds = all.reduce((a, r) => a + r.seconds, 0);
    const cpuSeconds = all.reduce((a, r) => a + (r.idsPerCpuSec > 0 ? r.ids / r.idsPerCpuSec : 0), 0);
    return { all, ids, idsPerSec: ids / seconds, idsPerCpuSec: ids / cpuSeconds };
  };
  const counter = sum('counter');
  for (const source of [...RATIO_SOURCES, ...NO_SERVICE_SOURCES]) {
    const s = sum(source);
    const first = s.all[0];
    if (first === undefined) continue;
    if (first.skipped !== null) {
      notes.push(`${LOOP_ROWS[source].scenario}: skipped — ${first.skipped}.`);
      continue;
    }
    const engine = source === 'nextId' || source === 'tag';
    const notIncreasing = s.all.reduce((a, r) => a + r.notIncreasing, 0);
    const promises = s.all.reduce((a, r) => a + r.promiseReturns, 0);
    const loads = s.all.reduce((a, r) => a + r.loads, 0);
    // Our IDs must rise; a library's that do not are a finding about it, reported, not a bench failure.
    const ours = source !== 'uuidv7' && source !== 'ulid';
    if (notIncreasing > 0 && ours) failures.push(`in-process ${source}: ${notIncreasing} IDs not above the one before`);
    const vsCounter = s.idsPerSec / counter.idsPerSec;
    const ratio = engine
      ? `**${fmtX(vsCounter)} bare counter** (target ≥ ${TARGET_VS_BARE}× ${mark(vsCounter >= TARGET_VS_BARE)}); per CPU-second ${fmtX(s.idsPerCpuSec / counter.idsPerCpuSec)}`
      : source === 'counter'
        ? ''
        : `leaf-ts \`nextId\` ÷ this: ${fmtX(sum('nextId').idsPerSec / s.idsPerSec)}; **in an index: ${LOOP_ROWS[source].size}**, vs 8 bytes for leaf-ts's BIGINT`;
    const per1000 = engine ? (loads / s.ids) * 1000 : 0;
    const check =
      `${notIncreasing === 0 ? '✔' : ours ? '✘' : '⚠'} ${fmtInt(notIncreasing)} IDs not above the one before; ${fmtInt(promises)} promise returns; ` +
      `per run ${s.all.map((r) => fmtRate(r.idsPerSec)).join(' / ')} IDs/s (${fmtRate(s.idsPerCpuSec)} per CPU-second)` +
      (engine ? `; step grew to ${fmtInt(s.all[s.all.length - 1]?.step ?? NaN)}` : '') +
      (ours ? '' : `; e.g. \`${first.sample}\``);
    rows.push({
      key: `loop-${source}`,
      scenario: LOOP_ROWS[source].scenario,
      reqPerSec: s.idsPerSec,
      idsPerSec: s.idsPerSec,
      p50: NaN,
      p99: NaN,
      errors: null,
      non2xx: null,
      writesPer1000: per1000,
      writesCell: engine
        ? `${fmtSmall(per1000)} (${fmtInt(loads)} segment loads / ${fmtRate(s.ids)} IDs)`
        : ours
          ? '— (no store)'
          : '0 (no store)',
      cpuPerReqUs: NaN,
      cpuShare: null,
      check,
      claims: null,
      ratio,
    });
  }
}
