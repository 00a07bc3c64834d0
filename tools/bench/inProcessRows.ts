/** The in-process rows: tools/bench/inProcess.ts in a child process (SegmentEngine, snowflake generators). */
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { track } from '../harness';
import { BATCH, INPROC_MS, ROOT, progress } from './config';
import { fmtInt, fmtRate, fmtSmall } from './format';
import type { Result as InProc, SnowflakeResult as InProcSnowflake } from './inProcess';
import { failures, rows } from './results';

/** An installed package's version (read from node_modules: some packages do not export their package.json). */
export function pkgVersion(name: string): string {
  try {
    return (JSON.parse(fs.readFileSync(path.join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}
export const sapphireVersion = pkgVersion('@sapphire/snowflake');
export const redisClientVersion = pkgVersion('redis');
export const mysql2Version = pkgVersion('mysql2');

export async function measureInProcess(): Promise<void> {
  progress(
    `in-process: SegmentEngine over SqliteStore(':memory:'), tag step 1000; takeIds(tag, ${BATCH}) then nextId(tag); then SnowflakeGenerator.nextId() ` +
      `and @sapphire/snowflake ${sapphireVersion} generate(); ${INPROC_MS} ms each after 1 s warm-up (child process)`,
  );
  const child = track(
    spawn(process.execPath, ['--import', 'tsx', 'tools/bench/inProcess.ts'], {
      cwd: ROOT,
      env: { ...process.env, NODE_ENV: 'production', BENCH_INPROC_MS: String(INPROC_MS) },
      stdio: ['ignore', 'pipe', 'inherit'],
    }),
  );
  progress(`in-process: started PID ${child.pid}`);
  let out = '';
  child.stdout?.on('data', (c: Buffer) => (out += c.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
  if (code !== 0) throw new Error(`tools/bench/inProcess.ts exited with ${code}`);
  const { take, next, snowflake } = JSON.parse(out.trim().split('\n').pop() as string) as { take: InProc; next: InProc; snowflake: InProcSnowflake[] };
  for (const [key, r, scenario] of [
    ['take', take, `in-process \`takeIds(tag, ${BATCH})\` (calls/s)`],
    ['nextId', next, 'in-process `nextId(tag)` (calls/s)'],
  ] as const) {
    if (!r.ordered) failures.push(`in-process ${key}: IDs not strictly increasing`);
    const check = `${r.ordered ? '✔' : '✘'} IDs increasing; ${r.promiseReturns} promise returns; step grew to ${r.step.toLocaleString('en-US')}`;
    const per1000 = (r.loads / r.ids) * 1000;
    rows.push({
      key, scenario, reqPerSec: r.callsPerSec, idsPerSec: r.idsPerSec, p50: NaN, p99: NaN, errors: null, non2xx: null,
      writesPer1000: per1000, writesCell: `${fmtSmall(per1000)} (${fmtInt(r.loads)} segment loads / ${fmtRate(r.ids)} IDs)`, cpuPerReqUs: NaN, cpuShare: null, check, claims: null,
    });
    progress(`in-process ${key}: ${fmtRate(r.idsPerSec)} IDs/s (${check})`);
  }
  for (const r of snowflake) {
    const ours = r.mode === 'ours';
    const key = ours ? 'sf-ours' : 'sf-sapphire';
    const scenario = ours
      ? 'in-process snowflake: leaf-ts `SnowflakeGenerator.nextId()`'
      : `in-process snowflake: \`@sapphire/snowflake\` ${sapphireVersion} \`generate()\``;
    const clean = r.duplicates === 0 && r.notIncreasing === 0;
    // Our generator must never repeat; the library's repeats are a finding about it, reported, not a bench failure.
    if (ours && !clean) failures.push(`in-process snowflake: ${r.duplicates} duplicates, ${r.notIncreasing} IDs not above the one before`);
    const check =
      `${clean ? '✔' : ours ? '✘' : '⚠'} ${r.notIncreasing.toLocaleString('en-US')} IDs not above the one before (timed loop); ` +
      `${r.duplicates.toLocaleString('en-US')} duplicates in ${r.checked.toLocaleString('en-US')} IDs (separate pass, sorted); ${r.promiseReturns.toLocaleString('en-US')} promise returns` +
      (ours ? ' (4,096 per ms used up: waits for the next ms)' : '');
    rows.push({
      key, scenario, reqPerSec: r.idsPerSec, idsPerSec: r.idsPerSec, p50: NaN, p99: NaN, errors: null, non2xx: null,
      writesPer1000: 0, writesCell: '0 (no lease in-process)', cpuPerReqUs: NaN, cpuShare: null, check, claims: null,
    });
    progress(`in-process ${key}: ${fmtRate(r.idsPerSec)} IDs/s (${check})`);
  }
}
