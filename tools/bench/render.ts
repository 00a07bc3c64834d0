/** results.md: the settings, the table of rows, the key ratios, targets, noise and correctness lines. */
import os from 'node:os';
import {
  ALT_POOL,
  BATCH,
  CLAIMS,
  CLAIM_CONCURRENCY,
  CLAIM_STEP,
  CLIENT_MS,
  CLIENT_TAG,
  CONNECTIONS,
  HARD_CAP_MS,
  INPROC_MS,
  LOOP_MS,
  LOOP_WARMUP_MS,
  NOISY_OTHER_SHARE,
  PIPELINING,
  ROUNDS,
  SAMPLE_IDS_PER_RUN,
  TARGET_CLIENT_IDS_PER_S,
  TARGET_TAKE_IDS_PER_S,
  TARGET_VS_BARE,
  TARGET_STRICT_OWNER,
  TARGET_STRICT_RELAY,
  TARGET_WIDE_VS_NARROW,
  TARGET_OPAQUE_BATCH,
  TARGET_CLAIM_LOG,
  TARGET_OPAQUE_SINGLE,
  SLOW_CLIENTS,
  TARGET_SLOW_VS_QUIET,
  WARMUP_S,
  WIDE_MAX_ID,
  WIDE_TAG,
  settings,
} from './config';
import { fmtInt, fmtMs, fmtRate, fmtSmall, fmtUs, fmtX, mark, pct } from './format';
import { mysql2Version, redisClientVersion, sapphireVersion, ulidVersion, uuidVersion } from './inProcessRows';
import { autocannonVersion } from './measure';
import { type Row, failures, notes, row, rows } from './results';

export function ratio(a: string, b: string): number {
  const x = row(a);
  const y = row(b);
  return x && y ? x.reqPerSec / y.reqPerSec : NaN;
}
export function idsRatio(a: string, b: string): number {
  const x = row(a);
  const y = row(b);
  return x && y ? x.idsPerSec / y.idsPerSec : NaN;
}
/** How many times more server CPU per request `a` spends than `b`. */
export function cpuRatio(a: string, b: string): number {
  const x = row(a);
  const y = row(b);
  return x && y ? x.cpuPerReqUs / y.cpuPerReqUs : NaN;
}

/** `a` ÷ `b` of a claims figure (segment loads per second, or a load's p50 / p99). */
export function claimsRatio(a: string, b: string, pick: 'perSec' | 'p50Ms' | 'p99Ms'): number {
  const x = row(a)?.claims;
  const y = row(b)?.claims;
  return x && y ? x[pick] / y[pick] : NaN;
}

/** The table's segment-load cell: loads (claims) per second and how many; p50 / p99 of one load over the timed ones. */
function claimsCell(c: Row['claims']): string {
  if (c === null) return '—';
  const n = `${fmtInt(c.count)} load${c.count === 1 ? '' : 's'}`;
  const ms = (x: number) =>
    !Number.isFinite(x) || Number.isInteger(x) ? fmtInt(x) : x < 10 ? x.toFixed(2) : x.toFixed(1);
  const timed =
    c.timed === 0
      ? 'none timed'
      : `p50 ${ms(c.p50Ms)} / p99 ${ms(c.p99Ms)} ms${c.timed < c.count ? ` (${fmtInt(c.timed)} timed)` : ''}`;
  return `${fmtSmall(c.perSec)}/s (${n}); ${timed}`;
}

export interface Meta {
  date: string;
  cpu: string;
  cores: number;
  build: string;
  git: string;
  load: string;
  loadEnd: string;
  maria: string;
  postgres: string;
  galera: string;
  /** PostgreSQL's version under Patroni (BENCH_ONLY=dialects), or ''. */
  patroni: string;
  redis: string;
  duration: string;
  totalS: number;
}

export const ALTS = [
  ['autoinc', 'auto-increment'],
  ['flickr', 'Flickr tickets'],
  ['redis', 'Redis INCR'],
  ['uuid', 'UUID'],
] as const;

export function render(meta: Meta): { md: string; missed: string[] } {
  const vsBareSingle = ratio('fast-single', 'bare-single');
  const vsBareBatch = ratio('fast-batch', 'bare-batch');
  const take = row('take');
  const takeOk = take !== undefined && take.idsPerSec >= TARGET_TAKE_IDS_PER_S;
  const missed: string[] = [];
  // Each target is judged where its rows ran (BENCH_ONLY, or a feature this version lacks, leaves some out).
  const has = (...keys: string[]) => keys.every((k) => row(k) !== undefined);
  if (has('bare-single') && !(vsBareSingle >= TARGET_VS_BARE))
    missed.push(`fast lane ÷ bare (single) ${vsBareSingle.toFixed(2)}× < ${TARGET_VS_BARE}×`);
  if (has('bare-batch') && !(vsBareBatch >= TARGET_VS_BARE))
    missed.push(`fast lane ÷ bare (batch) ${vsBareBatch.toFixed(2)}× < ${TARGET_VS_BARE}×`);
  if (take !== undefined && !takeOk) missed.push(`takeIds ${fmtRate(take.idsPerSec)} IDs/s < 30 M IDs/s`);
  const client = row('client-next');
  if (client !== undefined && !(client.idsPerSec >= TARGET_CLIENT_IDS_PER_S))
    missed.push(`client nextId ${fmtRate(client.idsPerSec)} IDs/s < ${fmtRate(TARGET_CLIENT_IDS_PER_S)} IDs/s`);
  for (const k of ['loop-nextId', 'loop-tag']) {
    const x = idsRatio(k, 'loop-counter');
    if (has(k, 'loop-counter') && !(x >= TARGET_VS_BARE))
      missed.push(`${k.slice(5)} ÷ bare counter ${x.toFixed(2)}× < ${TARGET_VS_BARE}×`);
  }
  const wideVs = (kind: 'single' | 'batch') => ratio(`wide-${kind}`, `fast-${kind}`);
  for (const kind of ['single', 'batch'] as const) {
    if (has(`wide-${kind}`) && !(wideVs(kind) >= TARGET_WIDE_VS_NARROW))
      missed.push(`above 2^53 ÷ below (${kind}) ${wideVs(kind).toFixed(2)}× < ${TARGET_WIDE_VS_NARROW}×`);
  }

  const claimLogKeys = ['claims-sqlite', 'claims-maria', 'claims-pg', 'claims-galera', 'claims-patroni'];
  for (const k of claimLogKeys) {
    if (has(k, `${k}-log`) && !(ratio(`${k}-log`, k) >= TARGET_CLAIM_LOG))
      missed.push(`${k} with the claim log ÷ without ${ratio(`${k}-log`, k).toFixed(2)}× < ${TARGET_CLAIM_LOG}×`);
  }
  const claimLogCell = (k: string) =>
    `**${fmtX(ratio(`${k}-log`, k))} the same claims without the log** (claims/s; target ≥ ${TARGET_CLAIM_LOG}× ${mark(ratio(`${k}-log`, k) >= TARGET_CLAIM_LOG)}), p99 ${fmtX(claimsRatio(`${k}-log`, k, 'p99Ms'))}; database CPU per claim ${fmtX(cpuRatio(`${k}-log`, k))}`;

  const opaqueVs = (kind: 'single' | 'batch') => ratio(`opq-${kind}`, `fast-${kind}`);
  const opaqueTargets = { single: TARGET_OPAQUE_SINGLE, batch: TARGET_OPAQUE_BATCH };
  for (const kind of ['single', 'batch'] as const) {
    if (has(`opq-${kind}`) && !(opaqueVs(kind) >= opaqueTargets[kind]))
      missed.push(`opaque ÷ plain (${kind}) ${opaqueVs(kind).toFixed(2)}× < ${opaqueTargets[kind]}×`);
  }
  /** The ratio to the plain tag's row, and the server CPU each ID's permutation adds. */
  const opaqueCell = (kind: 'single' | 'batch', target: number) => {
    const ids = kind === 'single' ? 1 : BATCH;
    const extraUs = ((row(`opq-${kind}`)?.cpuPerReqUs ?? NaN) - (row(`fast-${kind}`)?.cpuPerReqUs ?? NaN)) / ids;
    return (
      `**${fmtX(opaqueVs(kind))} the plain tag's row** (req/s; target ≥ ${target}× ${mark(opaqueVs(kind) >= target)}); ` +
      `server CPU/req ${fmtX(cpuRatio(`opq-${kind}`, `fast-${kind}`))}, ${extraUs.toFixed(3)} µs more per ID`
    );
  };

  const fastCell = (kind: 'single' | 'batch', vsBare: number) =>
    !has(`bare-${kind}`)
      ? ''
      : `**${vsBare.toFixed(2)}× bare** (target ≥ ${TARGET_VS_BARE}× ${mark(vsBare >= TARGET_VS_BARE)}); ` +
        `${fmtX(ratio(`fast-${kind}`, `next-${kind}`))} plain Next` +
        (kind === 'single' ? `; ${fmtX(ratio('fast-single', 'const-next'))} constant Next route` : '') +
        `; server CPU/req ${cpuRatio(`fast-${kind}`, `bare-${kind}`).toFixed(2)}× bare's`;
  const vsAlts = (key: string, by: 'req' | 'ids') =>
    ALTS.map(([k, name]) => `${fmtX(by === 'req' ? ratio(key, k) : idsRatio(key, k))} ${name}`).join(', ');
  const orderedCell = (key: string, ordinary: string, target: number) =>
    `**${fmtX(ratio(key, ordinary))} an ordinary tag** (same route, req/s; target ≥ ${target}× ${mark(ratio(key, ordinary) >= target)}); server CPU/req ${fmtX(cpuRatio(key, ordinary))}`;
  const ratioCell: Record<string, string> = {
    'fast-single': fastCell('single', vsBareSingle),
    'fast-batch': fastCell('batch', vsBareBatch),
    'maria-single': `${fmtX(ratio('maria-single', 'bare-single'))} bare; ${fmtX(ratio('maria-single', 'fast-single'))} SQLite; req/s vs ${vsAlts('maria-single', 'req')}`,
    'maria-batch': `${fmtX(ratio('maria-batch', 'bare-batch'))} bare; ${fmtX(ratio('maria-batch', 'fast-batch'))} SQLite; IDs/s vs ${vsAlts('maria-batch', 'ids')}`,
    'galera-single': `${fmtX(ratio('galera-single', 'maria-single'))} MariaDB single (req/s); ${fmtX(ratio('galera-single', 'bare-single'))} bare; server CPU/req ${fmtX(cpuRatio('galera-single', 'maria-single'))} MariaDB's (3 nodes)`,
    'galera-batch': `${fmtX(ratio('galera-batch', 'maria-batch'))} MariaDB \`?count=${BATCH}\` (req/s); ${fmtX(ratio('galera-batch', 'bare-batch'))} bare; server CPU/req ${fmtX(cpuRatio('galera-batch', 'maria-batch'))} MariaDB's (3 nodes)`,
    'pg-single': `${fmtX(ratio('pg-single', 'maria-single'))} MariaDB single (req/s); ${fmtX(ratio('pg-single', 'bare-single'))} bare; server CPU/req ${fmtX(cpuRatio('pg-single', 'maria-single'))} MariaDB's`,
    'pg-batch': `${fmtX(ratio('pg-batch', 'maria-batch'))} MariaDB \`?count=${BATCH}\` (req/s); ${fmtX(ratio('pg-batch', 'bare-batch'))} bare; server CPU/req ${fmtX(cpuRatio('pg-batch', 'maria-batch'))} MariaDB's`,
    'claims-pg': `PostgreSQL ÷ MariaDB: claims/s ${fmtX(ratio('claims-pg', 'claims-maria'))}, p50 ${fmtX(claimsRatio('claims-pg', 'claims-maria', 'p50Ms'))}, p99 ${fmtX(claimsRatio('claims-pg', 'claims-maria', 'p99Ms'))}; database CPU per claim ${fmtX(cpuRatio('claims-pg', 'claims-maria'))}`,
    'claims-patroni': `Patroni (sync) ÷ PostgreSQL: claims/s ${fmtX(ratio('claims-patroni', 'claims-pg'))}, p50 ${fmtX(claimsRatio('claims-patroni', 'claims-pg', 'p50Ms'))}, p99 ${fmtX(claimsRatio('claims-patroni', 'claims-pg', 'p99Ms'))}; database CPU per claim ${fmtX(cpuRatio('claims-patroni', 'claims-pg'))}`,
    'claims-galera': `Galera ÷ MariaDB: claims/s ${fmtX(ratio('claims-galera', 'claims-maria'))}, p50 ${fmtX(claimsRatio('claims-galera', 'claims-maria', 'p50Ms'))}, p99 ${fmtX(claimsRatio('claims-galera', 'claims-maria', 'p99Ms'))}; database CPU per claim ${fmtX(cpuRatio('claims-galera', 'claims-maria'))}`,
    'cluster-single': `${fmtX(ratio('cluster-single', 'fast-single'))} one process; ${fmtX(ratio('cluster-single', 'bare-single'))} bare (one process)`,
    'cluster-batch': `${fmtX(ratio('cluster-batch', 'fast-batch'))} one process; ${fmtX(ratio('cluster-batch', 'bare-batch'))} bare (one process)`,
    snowflake: `${fmtX(ratio('snowflake', 'bare-single'))} bare; ${fmtX(ratio('snowflake', 'fast-single'))} segment single`,
    'const-next': `fast lane single is ${fmtX(ratio('fast-single', 'const-next'))} this; plain Next single is ${fmtX(ratio('next-single', 'const-next'))} this`,
    take: `target ≥ 30 M IDs/s ${mark(takeOk)}`,
    'wide-single': `**${fmtX(wideVs('single'))} the same row below 2^53** (target ≥ ${TARGET_WIDE_VS_NARROW}× ${mark(wideVs('single') >= TARGET_WIDE_VS_NARROW)}); server CPU/req ${fmtX(cpuRatio('wide-single', 'fast-single'))}`,
    'wide-batch': `**${fmtX(wideVs('batch'))} the same row below 2^53** (target ≥ ${TARGET_WIDE_VS_NARROW}× ${mark(wideVs('batch') >= TARGET_WIDE_VS_NARROW)}); server CPU/req ${fmtX(cpuRatio('wide-batch', 'fast-batch'))}`,
    'slow-single': `**${fmtX(idsRatio('slow-single', 'fast-single'))} the same row without them** (IDs/s; target ≥ ${TARGET_SLOW_VS_QUIET}× ${mark(idsRatio('slow-single', 'fast-single') >= TARGET_SLOW_VS_QUIET)}); ${SLOW_CLIENTS} connections each holding a login request open (10 of 100 body bytes) through the whole run`,
    ...Object.fromEntries(claimLogKeys.map((k) => [`${k}-log`, claimLogCell(k)])),
    'opq-single': opaqueCell('single', TARGET_OPAQUE_SINGLE),
    'opq-batch': opaqueCell('batch', TARGET_OPAQUE_BATCH),
    'fmt-single': `${fmtX(ratio('fmt-single', 'fast-single'))} the segment route's single (req/s); server CPU/req ${fmtX(cpuRatio('fmt-single', 'fast-single'))}`,
    'fmt-batch': `${fmtX(ratio('fmt-batch', 'fast-batch'))} the segment route's \`?count=${BATCH}\` (req/s); server CPU/req ${fmtX(cpuRatio('fmt-batch', 'fast-batch'))}`,
    'ord-single': orderedCell('ord-single', 'fast-single', TARGET_STRICT_OWNER),
    'ord-batch': orderedCell('ord-batch', 'fast-batch', TARGET_STRICT_OWNER),
    'ord-relay-single': orderedCell('ord-relay-single', 'fast-single', TARGET_STRICT_RELAY),
    'ord-relay-batch': orderedCell('ord-relay-batch', 'fast-batch', TARGET_STRICT_RELAY),
    'client-next': `${client?.ratio ?? ''}; ${fmtX(idsRatio('client-next', 'loop-nextId'))} in-process \`engine.nextId\`; ${fmtX(idsRatio('client-next', 'fast-single'))} the fast lane's single-ID row`,
    'sf-ours': `${fmtX(idsRatio('sf-ours', 'sf-sapphire'))} @sapphire/snowflake`,
    'sf-sonyflake': `${fmtX(idsRatio('sf-sonyflake', 'sf-sonyflake-npm'))} npm sonyflake (which counts ms, not Sony's 10 ms)`,
    'sf-js-safe': `${fmtX(idsRatio('sf-js-safe', 'sf-ours'))} layout leaf`,
  };
  for (const [k] of ALTS) {
    ratioCell[k] =
      `leaf-ts ÷ this: MariaDB single ${fmtX(ratio('maria-single', k))}, SQLite single ${fmtX(ratio('fast-single', k))} (req/s); ` +
      `MariaDB \`?count=${BATCH}\` ${fmtX(idsRatio('maria-batch', k))} (IDs/s); server CPU per ID ${fmtX(cpuRatio(k, 'maria-single'))} leaf-ts MariaDB single's`;
  }
  const table = [
    '| # | Scenario | req/s | IDs/s | p50 ms | p99 ms | errors / non-2xx | DB writes per 1,000 IDs | segment loads (claims) per s; one load p50 / p99 | server CPU µs/req | CPU % server / load gen / other | Ratio (target) | Check |',
    '|---|---|---:|---:|---:|---:|---:|---|---|---:|---:|---|---|',
    ...rows.map(
      (r, i) =>
        `| ${i + 1} | ${r.scenario} | ${fmtInt(r.reqPerSec)} | ${fmtRate(r.idsPerSec)} | ${fmtMs(r.p50)} | ${fmtMs(r.p99)} | ` +
        `${r.errors === null ? '—' : `${r.errors} / ${r.non2xx ?? '—'}`} | ${r.writesCell} | ${claimsCell(r.claims)} | ${fmtUs(r.cpuPerReqUs)} | ` +
        `${r.cpuShare === null ? '—' : `${pct(r.cpuShare.server)} / ${pct(r.cpuShare.gen)} / ${pct(r.cpuShare.other)}`} | ` +
        `${ratioCell[r.key] ?? r.ratio ?? ''} | ${r.check} |`,
    ),
  ];
  const keyRatios = [
    `- leaf-ts fast lane ÷ bare node:http ceiling: single ${ratio('fast-single', 'bare-single').toFixed(2)}×, \`?count=${BATCH}\` ${ratio('fast-batch', 'bare-batch').toFixed(2)}× (SQLite); ` +
      `MariaDB ${ratio('maria-single', 'bare-single').toFixed(2)}× / ${ratio('maria-batch', 'bare-batch').toFixed(2)}×.`,
    `- leaf-ts fast lane single ÷ constant Next route: ${fmtX(ratio('fast-single', 'const-next'))}; plain Next route handler ÷ constant Next route: ${ratio('next-single', 'const-next').toFixed(2)}×.`,
    `- leaf-ts on MariaDB, single, req/s ÷ each alternative: ${vsAlts('maria-single', 'req')}; with \`?count=${BATCH}\`, IDs/s ÷ each: ${vsAlts('maria-batch', 'ids')}.`,
    `- Server CPU per ID (with its database; steadier than req/s on a noisy machine), each alternative ÷ leaf-ts MariaDB single: ` +
      `${ALTS.map(([k, name]) => `${name} ${fmtX(cpuRatio(k, 'maria-single'))}`).join(', ')}; ÷ leaf-ts MariaDB \`?count=${BATCH}\` per ID: ` +
      `${ALTS.map(([k, name]) => `${name} ${fmtX((row(k)?.cpuPerReqUs ?? NaN) / ((row('maria-batch')?.cpuPerReqUs ?? NaN) / BATCH))}`).join(', ')}.`,
    `- DB writes per 1,000 IDs: leaf-ts MariaDB single ${fmtSmall(row('maria-single')?.writesPer1000 ?? NaN)}, \`?count=${BATCH}\` ${fmtSmall(row('maria-batch')?.writesPer1000 ?? NaN)}; ` +
      'auto-increment and Flickr 1,000 each (Redis: 1,000 in-memory writes; UUID: 0).',
    `- 3-node Galera ÷ single MariaDB (leaf-ts, multi-host URL): req/s single ${fmtX(ratio('galera-single', 'maria-single'))}, \`?count=${BATCH}\` ${fmtX(ratio('galera-batch', 'maria-batch'))}; ` +
      `segment loads per second under HTTP load: single ${claimsCell(row('galera-single')?.claims ?? null)} vs ${claimsCell(row('maria-single')?.claims ?? null)}, ` +
      `\`?count=${BATCH}\` ${claimsCell(row('galera-batch')?.claims ?? null)} vs ${claimsCell(row('maria-batch')?.claims ?? null)}; ` +
      `direct claims (${CLAIM_CONCURRENCY} at a time): ${fmtInt(row('claims-galera')?.reqPerSec ?? NaN)} vs ${fmtInt(row('claims-maria')?.reqPerSec ?? NaN)} claims/s (${fmtX(ratio('claims-galera', 'claims-maria'))}), ` +
      `p99 of a claim ${fmtMs(row('claims-galera')?.p99 ?? NaN)} vs ${fmtMs(row('claims-maria')?.p99 ?? NaN)} ms (${fmtX(claimsRatio('claims-galera', 'claims-maria', 'p99Ms'))}).`,
    `- Both cores (LEAF_WORKERS=2) ÷ one process: single ${ratio('cluster-single', 'fast-single').toFixed(2)}×, \`?count=${BATCH}\` ${ratio('cluster-batch', 'fast-batch').toFixed(2)}× (the load generator shares the same 2 cores).`,
    `- Snowflake in-process: leaf-ts ${fmtRate(row('sf-ours')?.idsPerSec ?? NaN)} IDs/s vs @sapphire/snowflake ${sapphireVersion} ${fmtRate(row('sf-sapphire')?.idsPerSec ?? NaN)} IDs/s ` +
      `(${fmtX(idsRatio('sf-ours', 'sf-sapphire'))}); over HTTP ${fmtInt(row('snowflake')?.reqPerSec ?? NaN)} req/s. ` +
      `Layout sonyflake ${fmtRate(row('sf-sonyflake')?.idsPerSec ?? NaN)} IDs/s and js-safe ${fmtRate(row('sf-js-safe')?.idsPerSec ?? NaN)} IDs/s, each at its layout's limit per worker (see their rows).`,
  ];
  const loopNext = row('loop-nextId');
  keyRatios.push(
    ...(client === undefined
      ? []
      : [
          `- leaf-ts client \`nextId\`: ${fmtRate(client.idsPerSec)} IDs/s in its own process (target ≥ ${fmtRate(TARGET_CLIENT_IDS_PER_S)} ${mark(client.idsPerSec >= TARGET_CLIENT_IDS_PER_S)}); ` +
            `${fmtX(idsRatio('client-next', 'loop-nextId'))} in-process \`engine.nextId\`, ${fmtX(idsRatio('client-next', 'fast-single'))} one HTTP request per ID; the server meanwhile: ${client.ratio?.split('server meanwhile: ')[1] ?? '—'}.`,
        ]),
    ...(loopNext === undefined
      ? []
      : [
          `- In-process ÷ a bare counter loop (${fmtRate(row('loop-counter')?.idsPerSec ?? NaN)} IDs/s): \`engine.nextId\` ${fmtX(idsRatio('loop-nextId', 'loop-counter'))}` +
            `${row('loop-tag') === undefined ? ' (tag handle: not in this version)' : `, tag handle \`next()\` ${fmtX(idsRatio('loop-tag', 'loop-counter'))}`} (target ≥ ${TARGET_VS_BARE}×); ` +
            `no service: UUID v7 ${fmtRate(row('loop-uuidv7')?.idsPerSec ?? NaN)} IDs/s, ULID ${fmtRate(row('loop-ulid')?.idsPerSec ?? NaN)} IDs/s — \`engine.nextId\` is ${fmtX(idsRatio('loop-nextId', 'loop-uuidv7'))} / ${fmtX(idsRatio('loop-nextId', 'loop-ulid'))} those, at half their index size (8 bytes against 16).`,
        ]),
    ...(row('wide-single') === undefined
      ? []
      : [
          `- Above 2^53 ÷ below, same server and plumbing: single ${fmtX(wideVs('single'))}, \`?count=${BATCH}\` ${fmtX(wideVs('batch'))} (target ≥ ${TARGET_WIDE_VS_NARROW}×).`,
        ]),
    ...(row('ord-single') === undefined
      ? []
      : [
          `- A strict tag ÷ an ordinary tag (req/s), through its owner: single ${fmtX(ratio('ord-single', 'fast-single'))}, \`?count=${BATCH}\` ${fmtX(ratio('ord-batch', 'fast-batch'))} (target ≥ ${TARGET_STRICT_OWNER}×); through another node: single ${fmtX(ratio('ord-relay-single', 'fast-single'))}, \`?count=${BATCH}\` ${fmtX(ratio('ord-relay-batch', 'fast-batch'))} (target ≥ ${TARGET_STRICT_RELAY}×).`,
        ]),
    ...(claimLogKeys.some((k) => has(k, `${k}-log`))
      ? [
          `- Claims with their claim-log row ÷ without (claims/s): ${claimLogKeys
            .filter((k) => has(k, `${k}-log`))
            .map((k) => `${k.slice(7)} ${fmtX(ratio(`${k}-log`, k))}`)
            .join(', ')} (target ≥ ${TARGET_CLAIM_LOG}×).`,
        ]
      : []),
    ...(row('opq-single') === undefined
      ? []
      : [
          `- An opaque tag ÷ the plain tag, same server and plumbing (req/s): single ${fmtX(ratio('opq-single', 'fast-single'))} (target ≥ ${TARGET_OPAQUE_SINGLE}×), \`?count=${BATCH}\` ${fmtX(ratio('opq-batch', 'fast-batch'))} (target ≥ ${TARGET_OPAQUE_BATCH}×).`,
        ]),
    ...(row('fmt-single') === undefined
      ? []
      : [
          `- Formatted IDs ÷ the segment route, same server and plumbing: single ${fmtX(ratio('fmt-single', 'fast-single'))}, \`?count=${BATCH}\` ${fmtX(ratio('fmt-batch', 'fast-batch'))} (req/s).`,
        ]),
  );
  const md = [
    '# leaf-ts benchmark (`npm run bench`)',
    '',
    `- Date: ${meta.date}; whole run ${meta.totalS.toFixed(0)} s (bounded: hard cap ${HARD_CAP_MS / 60_000} min, servers and databases included)`,
    `- Node ${process.version} (${os.platform()} ${os.arch()}); CPU: ${meta.cpu}, ${meta.cores} cores; load average (1/5/15 min) at start: ${meta.load}; at the end: ${meta.loadEnd}`,
    `- Code: ${meta.git}; Next build: ${meta.build}`,
    `- Load generator: autocannon ${autocannonVersion}, run programmatically (\`require('autocannon')\`) inside the bench process, one thread, ` +
      `on the same machine: it shares the ${meta.cores} cores with the server under test (see the CPU column) — for the LEAF_WORKERS=2 rows too.`,
    `- Settings, identical for every HTTP row: ${CONNECTIONS} connections, pipelining ${PIPELINING}, keep-alive, 127.0.0.1; ` +
      `per row ${ROUNDS} run(s) × ${settings.durationS} s measured = ${ROUNDS * settings.durationS} s, each run after its own ${WARMUP_S} s warm-up (discarded)${meta.duration}. ` +
      'Rows are interleaved (single-ID rows, then batch rows; the next round in reverse order); all servers are up together, one is loaded at a time.',
    '- leaf-ts servers: `node --max-semi-space-size=64 --import tsx server.ts` (the flags of `npm start`, for every server) (NODE_ENV=production, LEAF_LOG_LEVEL=warn, ' +
      'LEAF_ADMIN_TOKEN set for /api/metrics, dynamic step). SQLite: a fresh temp file with the default `demo` tag, DB step 1000. ' +
      `MariaDB: DATABASE_URL to the bench's private mariadbd, tag \`demo\` created with step 1000 through POST /api/admin/tags. ` +
      'LEAF_WORKERS=2: node:cluster, each worker its own Leaf node (own segments, own snowflake worker id) on one fresh SQLite file. ' +
      'Plain Next = LEAF_FAST_LANE=off (with LEAF_BENCH_ROUTES=on, the same server answers the constant Next route `/api/bench/constant`, a route handler returning a constant body).',
    `- MariaDB: ${meta.maria}, private mariadbd from tools/harness/mariadb.ts (own datadir, 127.0.0.1, free port; innodb_flush_log_at_trx_commit=2, no binlog, 64 MB buffer pool), ` +
      `client mysql2 ${mysql2Version}. Redis: redis-server ${meta.redis} (Debian), private (127.0.0.1, free port, own temp dir, \`--save '' --appendonly no\`: no persistence), client \`redis\` (node-redis) ${redisClientVersion}, one connection.`,
    `- PostgreSQL: ${meta.postgres}, private postgres from tools/harness/postgres.ts (initdb into a temp dir of its own, 127.0.0.1, free port; synchronous_commit on with fsync off — each commit's WAL written to the OS, not fsynced, as MariaDB's setting; 64 MB shared buffers), ` +
      `client pg (node-postgres); tag \`demo\` created with step 1000 through POST /api/admin/tags, as on MariaDB. A claim there is one statement, \`leaf_ts_claim(…)\`: the UPDATE … RETURNING, then the tag's semantics under its row lock.`,
    `- Galera: ${meta.galera}, a throwaway 3-node cluster from tools/harness/galera.ts (each node its own datadir and free ports on 127.0.0.1, the same mariadbd settings as the single MariaDB plus wsrep, ` +
      'rsync SST; all Synced before any row), on the same 2 cores. leaf-ts gets DATABASE_URL = the multi-host URL of all 3 nodes (node 1 first: MysqlStore writes to the first reachable host, ' +
      'every commit certified and replicated to the other two); tag `demo` created with step 1000 through POST /api/admin/tags, as on MariaDB. server CPU counts all 3 mariadbd.',
    ...(meta.patroni === ''
      ? []
      : [
          `- Patroni: ${meta.patroni}, a throwaway 3-node cluster from tools/harness/patroni.ts (etcd, Patroni, a primary, a sync and an async standby streaming on 127.0.0.1; each commit waits for the sync standby's flush), ` +
            'on the same 2 cores; the direct claims go through PostgresStore on the multi-host URL of all 3 nodes (it writes to the one writable primary). Database CPU counts the 3 postmasters with their backends, walsenders and walreceivers, not Patroni or etcd.',
        ]),
    `- Segment loads (claims): per second = leaf_segment_loads_total during the measured runs ÷ measured seconds (with how many); one load's p50 / p99 = nearest rank over the loads that started in the measured runs, ` +
      "each timed by the engine around the store call (whole ms, the node's load log GET /api/admin/tags/demo — the same timing that feeds leaf_segment_load_duration_seconds). " +
      `The dynamic step grows under load, so single-ID rows do only a few loads: the direct-claims rows measure the claim itself — ${CLAIMS.toLocaleString('en-US')} \`allocate(tag, ${CLAIM_STEP})\` of the store per database ` +
      `from the bench process, ${CLAIM_CONCURRENCY} at a time, after the HTTP rows (nothing else loaded), in mirrored order, A B … B A (half each); latency per claim in µs; ` +
      'their "req/s" is claims/s, IDs/s = claims × step, server CPU = the database processes per claim (none for SQLite, which runs in the bench process), load gen = the bench process; check: no two claimed segments overlap.',
    `- Alternatives (tools/bench/altServer.ts, bare node:http like the ceiling, same JSON shape \`{"tag":"demo","id":"…"}\`, one ID per request): ` +
      `auto-increment = \`INSERT INTO id_autoinc () VALUES ()\` per ID, InnoDB, autocommit; Flickr = \`REPLACE INTO tickets64 (stub) VALUES ('a')\` + \`SELECT LAST_INSERT_ID()\` on one pooled connection per pair, tickets64 MyISAM (REPLACE INTO deadlocks on InnoDB); ` +
      `both through a mysql2 pool of ${ALT_POOL} connections; Redis = \`INCR id:demo\`; UUID = \`crypto.randomUUID()\`.`,
    '- Ceilings: bare = `tools/bench/bareServer.ts` (node:http, same JSON shape, headers and writeHead/end, a counter); constant Next route = the cheapest Next route handler.',
    '- req/s = 2xx responses ÷ measured seconds; IDs/s = req/s × IDs per response; p50/p99 from a µs histogram of all 2xx response times of the row. ' +
      'server CPU µs/req = user+system CPU time (/proc/PID/stat) of the server process, its cluster workers and the database it uses (mariadbd, redis-server) ÷ 2xx responses: independent of the load generator. ' +
      'CPU % = share of all cores during the measured runs (other = the rest of the machine).',
    `- DB writes per 1,000 IDs: leaf-ts = segment loads (one UPDATE of leaf_alloc each) counted during the measured runs from /api/metrics (leaf_segment_loads_total, every worker) ÷ IDs × 1000; ` +
      'snowflake = its worker-id lease renewals (estimated from the lease period); auto-increment and Flickr = one row write per ID; Redis = one in-memory write per ID (no persistence); UUID = none.',
    `- In-process rows: calls/s in the req/s column; ${INPROC_MS / 1000} s after 1 s warm-up, in a child process (tools/bench/inProcess.ts); segment rows over SqliteStore(':memory:'); ` +
      `snowflake rows: leaf-ts's generator (no lease) and @sapphire/snowflake ${sapphireVersion} (a well-known npm snowflake library, from the discord.js ecosystem) in the same loop.`,
    `- One-source loops (tools/bench/idLoop.ts): a bare counter, \`engine.nextId(tag)\`, the tag handle \`engine.tag(tag).next()\`, UUID v7 (\`uuid\` ${uuidVersion}) and ULID (\`ulid\` ${ulidVersion}, monotonic factory), ` +
      `each through the same loop function in a fresh child process (so each call site sees one source), ${LOOP_MS} ms measured after ${LOOP_WARMUP_MS} ms warm-up per run; ` +
      `counter, nextId and tag handle ${ROUNDS} runs each, interleaved (the next round in reverse order); their ratio is to the counter's IDs/s (and, steadier on a shared machine, per CPU-second of the process). ` +
      'Every ID is compared with the one before (strings lexicographically). In an index, a UUID is 16 bytes as BINARY(16) or a UUID column and 36 characters as text, a ULID 16 bytes as binary and 26 characters as text; a leaf-ts ID is an 8-byte BIGINT.',
    `- Client rows (tools/bench/clientLoop.ts): \`LeafClient\` in a child process of its own (a caller's process: its heap and JIT not shared with autocannon's bookkeeping, its CPU apart from the server's; the \`load gen\` CPU column is that process), ` +
      `leasing from the SQLite fast-lane server (tag \`${CLIENT_TAG}\`, step 1000, default client options: first lease 100, then sized to last 30 s at the observed rate, at most 10,000,000); ` +
      `\`nextId\` ${CLIENT_MS} ms after ${LOOP_WARMUP_MS} ms warm-up, in chunks of 100,000 calls with one setImmediate turn between chunks (the background lease requests need the event loop, as between a service's requests); ` +
      `then \`take(tag, 1000)\` ${CLIENT_MS / 2} ms; then 2,000,000 IDs checked one by one. Lease requests are counted by the client's \`fetch\`; the server's CPU and segment loads are read over the same measured window.`,
    `- Above 2^53: tag \`${WIDE_TAG}\` created on the SQLite fast-lane server with max_id ${WIDE_MAX_ID} (first ID 100000000000000001), measured as rows of their own with the same plumbing as fast-single and fast-batch, interleaved with them; probes and order checks compare BigInts.`,
    '- Checks: every response 2xx with no socket errors; single-process sequential rows: a probe just before and just after each run must leave a gap of at least the number of IDs served; ' +
      `every HTTP row: up to ${SAMPLE_IDS_PER_RUN.toLocaleString('en-US')} IDs per run taken from the response bodies (autocannon verifyBody, spread over the run), well-formed and never repeated within the row; snowflake: IDs rise across runs.`,
    '',
    ...table,
    '',
    'Key ratios:',
    ...keyRatios,
    '',
    ...(notes.length === 0 ? [] : ['Not run:', ...notes.map((n) => `- ${n}`), '']),
    `Targets (from the issues): fast lane ≥ ${TARGET_VS_BARE}× bare node:http, single and batch; in-process take ≥ 30 M IDs/s; client nextId ≥ ${fmtRate(TARGET_CLIENT_IDS_PER_S)} IDs/s; ` +
      `engine nextId and tag handle ≥ ${TARGET_VS_BARE}× a bare counter; above 2^53 ≥ ${TARGET_WIDE_VS_NARROW}× below, single and batch — ` +
      `${missed.length === 0 ? 'all met.' : `MISSED: ${missed.join('; ')}.`}`,
    ...(rows.some((r) => r.cpuShare !== null && r.cpuShare.other > NOISY_OTHER_SHARE)
      ? [
          `Noise: rows marked ⚠ ran while other processes used more than ${pct(NOISY_OTHER_SHARE)} % of the machine; their req/s (and the ratios) understate the server. ` +
            'server CPU µs/req is the steadier comparison.',
        ]
      : []),
    ...((row('sf-sapphire')?.check ?? '').startsWith('⚠')
      ? [
          `@sapphire/snowflake: its 12-bit increment wraps instead of waiting for the next millisecond, so above 4,096 IDs per ms it repeats IDs (see its row); ` +
            "leaf-ts's generator waits (a promise), which caps it at 4,096 IDs per ms.",
        ]
      : []),
    `Correctness: ${failures.length === 0 ? 'all checks passed.' : `FAILED: ${failures.join('; ')}.`}`,
    '',
  ].join('\n');
  return { md, missed };
}
