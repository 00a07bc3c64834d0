/**
 * The restart rows (issue 11 part 2): IDs skipped per graceful restart, before and after give-back. One SQLite file,
 * tag `restart` (step 1000); a server with LEAF_GIVE_BACK=off serves SERVED IDs (past the 10% preload, so a next
 * segment is pending) and is stopped with SIGTERM; the next one serves its first ID (the gap is the skipped count),
 * then SERVED more with give-back on, is stopped the same way, and a third serves one. No HTTP load: a few requests.
 */
import fs from 'node:fs';
import path from 'node:path';
import { progress, tmpDir } from './config';
import { mark } from './format';
import { failures, rows } from './results';
import { type Server, leafServer, stopServer } from './servers';
import { createTag } from './services';

const RESTART_TAG = 'restart';
const RESTART_STEP = 1000;
/** IDs served before each stop: 150 of a first segment of 1000, so the preloaded next segment is pending too. */
const SERVED = 150;

async function take(server: Server, count: number): Promise<bigint[]> {
  const out: bigint[] = [];
  while (out.length < count) {
    const n = Math.min(50, count - out.length);
    const r = await fetch(`${server.base}/api/id/segment/${RESTART_TAG}${n > 1 ? `?count=${n}` : ''}`);
    const text = await r.text();
    if (r.status !== 200)
      throw new Error(`${server.name}: GET ${RESTART_TAG} answered ${r.status}: ${text.slice(0, 200)}`);
    const body = JSON.parse(text) as { id?: string; ids?: string[] };
    for (const id of body.ids ?? [body.id as string]) out.push(BigInt(id));
  }
  return out;
}

export async function measureRestarts(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(tmpDir, 'restart-'));
  const env = (giveBack: 'on' | 'off') => ({ LEAF_SQLITE_FILE: path.join(dir, 'leaf.db'), LEAF_GIVE_BACK: giveBack });
  const served: bigint[] = [];
  const skipped: Record<'off' | 'on', bigint> = { off: -1n, on: -1n };
  let previous = await leafServer('restart: LEAF_GIVE_BACK=off', env('off'));
  const refused = await createTag(previous, {
    bizTag: RESTART_TAG,
    step: RESTART_STEP,
    description: 'npm run bench: restarts',
  });
  if (refused !== null) throw new Error(refused);
  served.push(...(await take(previous, SERVED)));
  for (const mode of ['off', 'on'] as const) {
    const highest = served.reduce((a, b) => (b > a ? b : a));
    await stopServer(previous);
    previous = await leafServer(`restart after ${mode}: give-back on`, env('on'));
    const next = await take(previous, SERVED);
    skipped[mode] = next[0]! - highest - 1n;
    served.push(...next);
  }
  await stopServer(previous);
  const repeated = served.length - new Set(served).size;
  if (repeated > 0) failures.push(`restart rows: ${repeated} IDs served twice across restarts`);
  const check = `${repeated === 0 ? '✔' : '✘'} ${served.length} IDs across 3 processes, none twice`;
  const row = (mode: 'off' | 'on', scenario: string, ratio: string) =>
    rows.push({
      key: `restart-${mode}`,
      scenario,
      reqPerSec: NaN,
      idsPerSec: NaN,
      p50: NaN,
      p99: NaN,
      errors: null,
      non2xx: null,
      writesPer1000: NaN,
      writesCell: mode === 'on' ? '1 compare-and-set per tag at the stop' : '—',
      cpuPerReqUs: NaN,
      cpuShare: null,
      claims: null,
      ratio,
      check,
    });
  const setting = `SQLite, step ${RESTART_STEP}, ${SERVED} IDs served before SIGTERM`;
  row(
    'off',
    `IDs skipped per graceful restart, \`LEAF_GIVE_BACK=off\` (${setting})`,
    `**${skipped.off} IDs skipped** (the current segment's tail and the preloaded one)`,
  );
  row(
    'on',
    `IDs skipped per graceful restart, give-back on (${setting})`,
    `**${skipped.on} IDs skipped** (target 0 ${mark(skipped.on === 0n)})`,
  );
  progress(`restarts: skipped ${skipped.off} IDs with LEAF_GIVE_BACK=off, ${skipped.on} with give-back`);
}
