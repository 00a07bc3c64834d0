/**
 * The one checker of the seams run (docs/testing.md#the-seams-run): over the whole history,
 *
 * - uniqueness: no segment ID twice per tag (every region, path, package and incarnation of the tag — a deleted tag
 *   created again continues above its tombstone), no snowflake ID twice, no formatted ID twice per formatted tag;
 * - regions: every segment ID of region r is r modulo the region count (a position answered as an ID is not);
 * - strict order: in every window where a change to strict had completed — from the moment the run saw it complete
 *   until the next ordering change or delete of that tag in that region began — every ID of a request sent inside it
 *   is above every ID of that tag and region answered before the request was sent;
 * - formats: every formatted ID matches its pattern;
 * - opaque tags: every ID is read back under the key (FF1, the tag as tweak) to its sequence number, which must be
 *   a number the engine hands out (below 2^40 here: an ID answered unpermuted reads back as a random 63-bit one), and
 *   the region check applies to that number.
 */
import { opaqueKeyFromText } from '../../../lib/opaque/key';
import type { Answer, History } from './history';

export interface Finding {
  kind: 'duplicate' | 'wrong-region' | 'order' | 'format' | 'unpermuted';
  detail: string;
}

export interface Verdict {
  ids: number;
  answers: number;
  duplicates: number;
  wrongRegion: number;
  orderViolations: number;
  /** Requests judged for order (sent inside a complete window). */
  orderJudged: number;
  badFormats: number;
  /** Opaque tags' IDs that do not read back to a sequence number the engine could have handed out. */
  unpermuted: number;
  findings: Finding[];
}

/** Far above any sequence number of a seams run; an unpermuted ID reads back below it once in 2^23. */
const MAX_SEQUENCE = 2n ** 40n;

const SEGMENT_PATHS = new Set(['segment', 'batch', 'leaf', 'range', 'owner', 'runs', 'client', 'embedded']);
const KEEP = 8;

export function check(history: History): Verdict {
  const findings: Finding[] = [];
  const note = (finding: Finding) => {
    if (findings.filter((f) => f.kind === finding.kind).length < KEEP) findings.push(finding);
  };
  let ids = 0;
  let duplicates = 0;
  let wrongRegion = 0;
  let badFormats = 0;
  let unpermuted = 0;
  const opaqueKey = history.opaque === undefined ? null : opaqueKeyFromText(history.opaque.key);
  const opaqueKeys = new Map((history.opaque?.keys ?? []).map(opaqueKeyFromText).map((k) => [k.id, k]));
  const keyOf = (a: Answer) => opaqueKeys.get(history.opaque?.keyIds?.[`${a.region} ${a.tag}`] ?? '') ?? opaqueKey;
  const opaque = new Set(history.opaque?.tags ?? []);
  const seen = new Map<string, Answer>();
  const patterns = new Map(Object.entries(history.formats).map(([tag, source]) => [tag, new RegExp(`^${source}$`)]));
  for (const a of history.answers) {
    const segment = SEGMENT_PATHS.has(a.path);
    const cipherKey = segment && opaque.has(a.tag) ? keyOf(a) : null;
    for (const id of a.ids) {
      ids++;
      const key = a.path === 'snowflake' ? `snowflake ${id}` : `${segment ? 'segment' : 'formatted'} ${a.tag} ${id}`;
      const first = seen.get(key);
      if (first !== undefined) {
        duplicates++;
        note({ kind: 'duplicate', detail: `${key}: ${describe(first)} and ${describe(a)}` });
      } else seen.set(key, a);
      let sequence = segment ? BigInt(id) : 0n;
      if (cipherKey !== null) {
        sequence = cipherKey.cipher(63, a.tag).decrypt(sequence);
        if (sequence >= MAX_SEQUENCE) {
          unpermuted++;
          note({ kind: 'unpermuted', detail: `${a.tag} ${id} from ${describe(a)} reads back as ${sequence}` });
        }
      }
      if (segment && sequence % BigInt(history.regions) !== BigInt(a.region)) {
        wrongRegion++;
        note({
          kind: 'wrong-region',
          detail: `${a.tag} ${id} from ${describe(a)}: not region ${a.region} of ${history.regions}`,
        });
      }
      const pattern = a.path === 'formatted' ? patterns.get(a.tag) : undefined;
      if (pattern !== undefined && !pattern.test(id)) {
        badFormats++;
        note({ kind: 'format', detail: `${a.tag} ${JSON.stringify(id)} does not match ${pattern.source}` });
      }
    }
  }
  const order = checkStrictOrder(history);
  for (const f of order.findings) note(f);
  return {
    ids,
    answers: history.answers.length,
    duplicates,
    wrongRegion,
    orderViolations: order.violations,
    orderJudged: order.judged,
    badFormats,
    unpermuted,
    findings,
  };
}

function describe(a: Answer): string {
  return `${a.path} via ${a.via} in region ${a.region} (sent ${a.sentAt.toFixed(0)} ms)`;
}

/**
 * The windows in which the strict promise holds, per `region tag`: from the answer of a tag view that showed the
 * change complete until the next change of ordering (or delete) of that tag began. A view counts only when the last
 * such operation before it was a change to strict that had ended before the view was asked for (else the view may
 * predate a change already under way).
 */
export function strictWindows(history: History): Map<string, Array<[number, number]>> {
  const windows = new Map<string, Array<[number, number]>>();
  const changes = history.ops.filter((o) => o.kind === 'strict' || o.kind === 'none' || o.kind === 'delete');
  for (const c of [...history.completions].sort((x, y) => x.seenAt - y.seenAt)) {
    const own = changes.filter((o) => o.region === c.region && o.target === c.tag);
    const latest = own.filter((o) => o.startAt < c.seenAt).sort((x, y) => y.startAt - x.startAt)[0];
    if (latest !== undefined && (latest.kind !== 'strict' || latest.endAt > c.askedAt)) continue;
    const end = own.filter((o) => o.startAt >= c.seenAt).reduce((e, o) => Math.min(e, o.startAt), history.endedAt);
    const key = `${c.region} ${c.tag}`;
    const list = windows.get(key) ?? [];
    const last = list[list.length - 1];
    if (last !== undefined && last[1] >= c.seenAt) last[1] = Math.max(last[1], end);
    else list.push([c.seenAt, end]);
    windows.set(key, list);
  }
  return windows;
}

/** Every request sent inside a window against every answer of its tag and region received before it was sent. */
function checkStrictOrder(history: History): { violations: number; judged: number; findings: Finding[] } {
  const windows = strictWindows(history);
  const findings: Finding[] = [];
  let violations = 0;
  let judged = 0;
  const byKey = new Map<string, Answer[]>();
  for (const a of history.answers) {
    if (!SEGMENT_PATHS.has(a.path) || a.ids.length === 0) continue;
    const key = `${a.region} ${a.tag}`;
    if (!windows.has(key)) continue;
    const list = byKey.get(key) ?? [];
    list.push(a);
    byKey.set(key, list);
  }
  for (const [key, answers] of byKey) {
    const spans = windows.get(key)!;
    const byReceived = [...answers].sort((x, y) => x.receivedAt - y.receivedAt);
    // The largest ID received up to each answer, in order of arrival.
    const largest: bigint[] = [];
    let top = -1n;
    for (const a of byReceived) {
      for (const id of a.ids) if (BigInt(id) > top) top = BigInt(id);
      largest.push(top);
    }
    for (const b of answers) {
      if (!spans.some(([from, to]) => b.sentAt >= from && b.sentAt < to)) continue;
      judged++;
      const before = lastBelow(byReceived, b.sentAt);
      if (before < 0) continue;
      const smallest = b.ids.reduce((m, id) => (BigInt(id) < m ? BigInt(id) : m), BigInt(b.ids[0]!));
      if (smallest > largest[before]!) continue;
      violations++;
      if (findings.length < KEEP)
        findings.push({
          kind: 'order',
          detail: `${key}: ${smallest} from ${describe(b)} after ${largest[before]} was answered before it was sent`,
        });
    }
  }
  return { violations, judged, findings };
}

/** The index of the last answer received strictly before `t`, or -1. */
function lastBelow(byReceived: readonly Answer[], t: number): number {
  let lo = 0;
  let hi = byReceived.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (byReceived[mid]!.receivedAt < t) lo = mid + 1;
    else hi = mid;
  }
  return lo - 1;
}
