import type { TagSnapshot } from '../segment/engine';

/** IDs a node can hand out for a tag without the database: the current segment's rest plus a loaded next one. */
export function bufferedIds(snap: Pick<TagSnapshot, 'current' | 'pending'>): number {
  return (snap.current?.remaining ?? 0) + (snap.pending === null ? 0 : snap.pending.max - snap.pending.start + 1);
}
