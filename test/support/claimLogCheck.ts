/**
 * The claim log's checker (docs/design.md#ids-that-tell-when): IDs served with the moments around each serve, against
 * what the log answers. For every window W the answer must hold every ID known to be served inside W; it says how
 * tight the answer is: claims answered with no ID served in W.
 */
import { claimsBetween } from '../../lib/claims/claimLog';
import type { ClaimLogStore } from '../../lib/claims/claimLogStore';
import { issuedRanges } from '../../lib/claims/issued';
import { holdsId as holds } from '../../lib/claims/numbering';
import { servedUntil } from '../../lib/claims/retirement';

/** One ID as a client saw it: asked for at `sentAt`, had it by `gotAt` (ms, the database host's clock). */
export interface Served {
  id: bigint;
  sentAt: number;
  gotAt: number;
  by: string;
}

export interface ClaimLogVerdict {
  /** IDs no claim of the log can have handed out while they were being served. */
  unexplained: Served[];
  /** Per random window: IDs served inside it that the answer left out. */
  missedInWindows: number;
  windows: number;
  /** Mean over windows of the claims answered with no ID served in the window (the answer's excess). */
  meanExcessClaims: number;
  /** Of that excess, claims whose claimer is not known to be done (killed, or still running): open-ended. */
  meanOpenExcessClaims: number;
  /** Mean over windows of the claims answered. */
  meanClaims: number;
}

/** A small seeded generator, so a failing window can be asked again. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

function inRanges(ranges: ReturnType<typeof issuedRanges>, id: bigint): boolean {
  return ranges.some((r) => {
    const first = BigInt(r.first);
    const last = BigInt(r.last);
    return id >= first && id <= last && (id - first) % BigInt(r.stride) === 0n;
  });
}

export async function checkClaimLog(
  log: Pick<ClaimLogStore, 'rowsUpTo'>,
  tag: string,
  served: readonly Served[],
  options: { windows: number; seed: number },
): Promise<ClaimLogVerdict> {
  // Every claim: each ID's serve must fall in the window of a claim holding it.
  const all = await claimsBetween(log, tag, Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER);
  const unexplained = served.filter(
    (s) =>
      !all.some((c) => {
        const until = servedUntil(c);
        return holds(c, s.id) && c.claimedAt <= s.gotAt && (until === null || until >= s.sentAt);
      }),
  );
  // Random windows through the database's own query: the answer must hold every ID served inside the window.
  const next = random(options.seed);
  const start = Math.min(...served.map((s) => s.sentAt));
  const end = Math.max(...served.map((s) => s.gotAt));
  let missedInWindows = 0;
  let excess = 0;
  let openExcess = 0;
  let answered = 0;
  for (let w = 0; w < options.windows; w++) {
    const a = start + next() * (end - start);
    const b = a + next() * (end - a) * (next() < 0.5 ? 0.05 : 1);
    const fromMs = Math.floor(a);
    const toMs = Math.ceil(b);
    const claims = await claimsBetween(log, tag, fromMs, toMs);
    const ranges = issuedRanges(claims);
    const inside = served.filter((s) => s.sentAt >= fromMs && s.gotAt <= toMs);
    missedInWindows += inside.filter((s) => !inRanges(ranges, s.id)).length;
    const touching = served.filter((s) => s.gotAt >= fromMs && s.sentAt <= toMs);
    const idle = claims.filter((c) => !touching.some((s) => holds(c, s.id)));
    excess += idle.length;
    openExcess += idle.filter((c) => servedUntil(c) === null).length;
    answered += claims.length;
  }
  return {
    unexplained,
    missedInWindows,
    windows: options.windows,
    meanExcessClaims: excess / options.windows,
    meanOpenExcessClaims: openExcess / options.windows,
    meanClaims: answered / options.windows,
  };
}
