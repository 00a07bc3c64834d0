import { LeafError } from '../errors';
import type { Id } from '../segment/id';
import type { Allocation, TagInfo } from '../segment/segmentSource';
import type { FormatSource } from './formatStore';
import type { ResetPeriod } from './period';

/** A period's sequence as the segment engine names it, `orders@20261202` (`@` is never in a tag). */
export function periodTag(bizTag: string, periodKey: string): string {
  return `${bizTag}@${periodKey}`;
}

function splitPeriodTag(tag: string): { bizTag: string; periodKey: string } {
  const at = tag.lastIndexOf('@');
  return { bizTag: tag.slice(0, at), periodKey: tag.slice(at + 1) };
}

export function sequenceExhausted(bizTag: string, periodKey: string, reset: ResetPeriod, width: number): LeafError {
  const period = periodKey === '' ? 'its sequence (it never resets)' : `period ${periodKey} (${reset} reset)`;
  return new LeafError(
    'sequence_exhausted',
    `Formatted tag "${bizTag}" has used every number of ${period}: {seq:${width}} ends at ${'9'.repeat(width)}. ` +
      'No ID until the next period, or widen the sequence.',
  );
}

/** What the adapter needs to know of a format to claim for it. */
export interface PeriodFormat {
  step: number;
  width: number;
  cap: number;
  reset: ResetPeriod;
}

/** Each period a segment-mode tag of its own SegmentEngine: the double buffer and its rules, unchanged. */
export class PeriodSource {
  private readonly periods = new Map<string, PeriodFormat>();
  private readonly exhaustedAt = new Map<string, number>();

  constructor(private readonly store: FormatSource) {}

  /** `tag` (periodTag) is served now, claimed with `format`'s step and cap. */
  enter(tag: string, format: PeriodFormat): void {
    this.periods.set(tag, format);
  }

  leave(tag: string): void {
    this.periods.delete(tag);
    this.exhaustedAt.delete(tag);
  }

  has(tag: string): boolean {
    return this.periods.has(tag);
  }

  async listTags(): Promise<TagInfo[]> {
    return [...this.periods].map(([bizTag, f]) => ({ bizTag, step: f.step }));
  }

  /** The period was found used up at the width it is claimed with now: claiming again would find nothing. */
  exhausted(tag: string): LeafError | null {
    const at = this.exhaustedAt.get(tag);
    const format = this.periods.get(tag);
    if (at === undefined || format === undefined || at < format.cap) return null;
    const { bizTag, periodKey } = splitPeriodTag(tag);
    return sequenceExhausted(bizTag, periodKey, format.reset, format.width);
  }

  /** The segment engine's graceful give-back (lib/segment/giveBack.ts), on the period's row. */
  giveBack(tag: string, claimedMaxId: Id, newMaxId: Id): Promise<boolean> {
    const { bizTag, periodKey } = splitPeriodTag(tag);
    return this.store.giveBackPeriod(bizTag, periodKey, Number(claimedMaxId), Number(newMaxId));
  }

  async allocate(tag: string, step?: number): Promise<Allocation> {
    const format = this.periods.get(tag);
    const { bizTag, periodKey } = splitPeriodTag(tag);
    if (format === undefined)
      throw new LeafError('tag_not_found', `Formatted tag "${bizTag}" does not serve period "${periodKey}" here.`);
    const known = this.exhausted(tag);
    if (known !== null) throw known;
    const claim = await this.store.claimPeriod(bizTag, periodKey, step ?? format.step, format.cap);
    if (claim.count > 0) return { bizTag: tag, maxId: claim.lastSeq, step: claim.count, semantics: 'leaf-ts' };
    this.exhaustedAt.set(tag, format.cap);
    throw sequenceExhausted(bizTag, periodKey, format.reset, format.width);
  }
}
