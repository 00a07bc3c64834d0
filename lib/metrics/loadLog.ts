import { LeafError } from '../errors';
import type { SegmentLoadRecord } from '../segment/buffer';

/** Records kept per tag: enough for the console's table and step chart, bounded so a flapping store cannot grow it. */
export const LOAD_LOG_CAPACITY = 200;

/** Each tag's recent segment loads in a fixed ring: recording never allocates once the ring is full. */
export class LoadLog {
  private readonly capacity: number;
  private readonly rings = new Map<string, Ring>();

  constructor(capacity = LOAD_LOG_CAPACITY) {
    if (!Number.isInteger(capacity) || capacity < 1) {
      throw new LeafError('invalid_config', `load log capacity must be a positive integer (got ${capacity}).`);
    }
    this.capacity = capacity;
  }

  record(bizTag: string, record: SegmentLoadRecord): void {
    let ring = this.rings.get(bizTag);
    if (ring === undefined) this.rings.set(bizTag, (ring = new Ring(this.capacity)));
    ring.push(record);
  }

  /** The tag's loads, oldest first; empty for a tag never loaded on this node. */
  loads(bizTag: string): SegmentLoadRecord[] {
    return this.rings.get(bizTag)?.toArray() ?? [];
  }
}

class Ring {
  private readonly items: SegmentLoadRecord[] = [];
  /** Where the next record goes once the ring is full: the oldest record's slot. */
  private head = 0;

  constructor(private readonly capacity: number) {}

  push(record: SegmentLoadRecord): void {
    if (this.items.length < this.capacity) {
      this.items.push(record);
      return;
    }
    this.items[this.head] = record;
    this.head = (this.head + 1) % this.capacity;
  }

  toArray(): SegmentLoadRecord[] {
    return [...this.items.slice(this.head), ...this.items.slice(0, this.head)];
  }
}
