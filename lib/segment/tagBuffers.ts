import type { Logger } from '../log';
import { TagBuffer } from './buffer';
import type { UnusedRun } from './giveBack';

/** The engine's buffers by tag: a Map (the hot path's lookup stays a plain Map get) that applies the tag list. */
export class TagBuffers extends Map<string, TagBuffer> {
  /** New tags get a buffer, known ones the DB's step; a tag no longer listed is dropped. */
  applyTagList(tags: ReadonlyArray<{ bizTag: string; step: number }>, logger: Logger): void {
    const seen = new Set<string>();
    for (const { bizTag, step } of tags) {
      seen.add(bizTag);
      const buffer = this.get(bizTag);
      if (buffer === undefined) this.set(bizTag, new TagBuffer(bizTag, step));
      else buffer.setDbStep(step);
    }
    for (const [bizTag, buffer] of this) {
      if (seen.has(bizTag)) continue;
      this.drop(buffer);
      logger.log('info', 'tag_removed', { bizTag });
    }
  }

  /** The tag is gone: its buffer leaves the map and is emptied, so no handle or cache serves from it again. */
  drop(buffer: TagBuffer): void {
    this.delete(buffer.bizTag);
    buffer.retire();
  }

  /**
   * A new, empty buffer in place of `buffer` (which serves nothing more): the tag serves only from segments claimed
   * from now on (a strict tag's new owner; docs/design.md#ordered-tags).
   */
  renew(buffer: TagBuffer): void {
    buffer.startedOver = true;
    this.drop(buffer);
    this.set(buffer.bizTag, new TagBuffer(buffer.bizTag, buffer.minStep));
  }

  /** Retires every buffer; per tag, the IDs its two segments had not handed out. */
  retireAll(): Map<string, UnusedRun[]> {
    const unused = new Map<string, UnusedRun[]>();
    for (const [bizTag, buffer] of this) unused.set(bizTag, buffer.retireUnused());
    return unused;
  }

  /** IDs issued per tag so far (cheap: derived from segment positions). */
  issuedTotals(): Map<string, number> {
    const out = new Map<string, number>();
    for (const [bizTag, buffer] of this) out.set(bizTag, buffer.issuedTotal());
    return out;
  }

  /** Tags holding a segment. */
  loadedCount(): number {
    let loaded = 0;
    for (const buffer of this.values()) if (buffer.current !== null) loaded++;
    return loaded;
  }
}
