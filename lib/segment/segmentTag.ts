import { NO_BUFFER, type TagBuffer } from './buffer';
import type { Id } from './id';

/** The engine as a tag handle sees it: what SegmentEngine hands each handle (not part of the public API). */
export interface HandleEngine {
  /** The engine's buffer of `bizTag` now; undefined when it does not know the tag. */
  bufferOf(bizTag: string): TagBuffer | undefined;
  /** One ID past the hot path's mark (a segment switch, the preload); null when both segments are used up. */
  serveSlowly(buffer: TagBuffer): Id | null;
  nextId(bizTag: string): Id | Promise<Id>;
  takeIds(bizTag: string, count: number): Id[] | Promise<Id[]>;
}

/** `nextId` of one tag without the per-call lookup; after a delete or re-create it looks the tag up again. */
export class SegmentTag {
  private buffer: TagBuffer;

  constructor(
    readonly name: string,
    private readonly engine: HandleEngine,
  ) {
    this.buffer = engine.bufferOf(name) ?? NO_BUFFER;
  }

  /** One ID: synchronously while the buffers hold one (no promise allocated), else a promise. Errors as `nextId`. */
  next(): Id | Promise<Id> {
    const buffer = this.buffer;
    // The hot path, as the engine's nextId: below the segment's mark there is nothing to decide (a wide segment's
    // mark is below every position, so its IDs take serveSlowly, which adds the base).
    const segment = buffer.head;
    const id = segment.next;
    if (id < segment.mark) {
      segment.next = id + 1;
      return id;
    }
    return this.engine.serveSlowly(buffer) ?? this.nextSlow();
  }

  /** `count` IDs in increasing order: `engine.takeIds` (one lookup per batch is nothing). */
  take(count: number): Id[] | Promise<Id[]> {
    return this.engine.takeIds(this.name, count);
  }

  /** IDs the tag's two segments hold now, without a load. */
  get buffered(): number {
    return this.engine.bufferOf(this.name)?.available() ?? 0;
  }

  /** Both segments are used up, or the buffer is not the engine's any more: look again, else wait as `nextId` does. */
  private nextSlow(): Id | Promise<Id> {
    const found = this.engine.bufferOf(this.name) ?? NO_BUFFER;
    if (found !== this.buffer) {
      this.buffer = found;
      if (found !== NO_BUFFER) return this.next();
    }
    return this.engine.nextId(this.name);
  }
}
