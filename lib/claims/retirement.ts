/**
 * When each claim's IDs stopped being handed out, from the log's rows alone (docs/design.md#ids-that-tell-when): a
 * process claims a segment while serving the one before it, so a row whose serving segment starts past a segment of
 * the same process retires it; a close row retires all it has. One sweep per process, in the order of the rows.
 */
import { CLOCK_GRAIN_MS, type ClaimKind } from './claimNote';
import { byNumberingAndFirst } from './numbering';

/** A leaf_claim row as stored. */
export interface ClaimRow {
  id: number;
  bizTag: string;
  /** Positions in the claim's numbering (`region` of `regions`): the IDs are position × regions + region. */
  first: bigint;
  last: bigint;
  /** Database ms. */
  claimedAt: number;
  kind: ClaimKind | 'close';
  claimer: string;
  instance: string;
  servingFirst: bigint | null;
  leasedMax: bigint | null;
  tailMs: number;
  region: number;
  regions: number;
}

/** A claim with when its claimer is known to have stopped serving it. */
export interface LoggedClaim extends Omit<ClaimRow, 'kind' | 'servingFirst' | 'leasedMax'> {
  kind: ClaimKind;
  /** Database ms; null: not known to have stopped (running, or killed). */
  retiredAt: number | null;
  /** How long after `retiredAt` a lease's holder may still hand its IDs out: 0 when none of them was leased. */
  tailMs: number;
}

const byTime = (a: ClaimRow, b: ClaimRow) => a.claimedAt - b.claimedAt || a.id - b.id;

/** The claims of `rows` (one tag's, with the close rows of their processes), each with its retirement. */
export function retire(rows: readonly ClaimRow[]): LoggedClaim[] {
  const byInstance = new Map<string, ClaimRow[]>();
  for (const r of rows) {
    const list = byInstance.get(r.instance);
    if (list === undefined) byInstance.set(r.instance, [r]);
    else list.push(r);
  }
  const out: LoggedClaim[] = [];
  for (const list of byInstance.values()) {
    let serving: LoggedClaim[] = [];
    for (const r of list.sort(byTime)) {
      if (r.servingFirst !== null) {
        const past = r.servingFirst;
        serving = serving.filter((s) => {
          if (s.last >= past) return true;
          s.retiredAt = r.claimedAt;
          // What it leased up to then says whether a lease holds any of it; a close row does not say.
          s.tailMs = r.leasedMax === null || r.leasedMax >= s.first ? s.tailMs : 0;
          return false;
        });
      }
      if (r.kind === 'close') continue;
      const { servingFirst: _s, leasedMax: _l, ...rest } = r;
      // A lease's IDs leave the claimer at once: its holder's validity runs from the claim.
      const claim: LoggedClaim = { ...rest, kind: r.kind, retiredAt: r.kind === 'lease' ? r.claimedAt : null };
      out.push(claim);
      if (r.kind === 'segment') serving.push(claim);
    }
  }
  return out;
}

/** The last moment the claim's IDs can have been handed out (database ms), or null while that is not known. */
export function servedUntil(c: LoggedClaim): number | null {
  return c.retiredAt === null ? null : c.retiredAt + c.tailMs + CLOCK_GRAIN_MS;
}

/** Claims made by `toMs` whose IDs can have been handed out at or after `fromMs`, by numbering and first position. */
export function liveBetween(claims: readonly LoggedClaim[], fromMs: number, toMs: number): LoggedClaim[] {
  return claims
    .filter((c) => {
      const until = servedUntil(c);
      return c.claimedAt <= toMs && (until === null || until >= fromMs);
    })
    .sort((a, b) => byNumberingAndFirst(a, b) || a.claimedAt - b.claimedAt);
}

/** Rows older than `beforeMs` that can serve nothing any more; a close row goes once its process has no claim left. */
export function prunable(rows: readonly ClaimRow[], beforeMs: number): number[] {
  const byTag = new Map<string, ClaimRow[]>();
  const closes = rows.filter((r) => r.kind === 'close');
  for (const r of rows) {
    if (r.kind === 'close') continue;
    const list = byTag.get(r.bizTag);
    if (list === undefined) byTag.set(r.bizTag, [r]);
    else list.push(r);
  }
  const gone: number[] = [];
  const kept = new Set<string>();
  for (const list of byTag.values()) {
    for (const c of retire([...list, ...closes])) {
      const until = servedUntil(c);
      if (until !== null && until < beforeMs) gone.push(c.id);
      else kept.add(c.instance);
    }
  }
  for (const c of closes) if (!kept.has(c.instance)) gone.push(c.id);
  return gone;
}
