import type { TagSnapshot } from '../segment/snapshot';
import type { NextSegmentState } from './types';

/** IDs a node can hand out for a tag without the database: the current segment's rest plus a loaded next one. */
export function bufferedIds(snap: Pick<TagSnapshot, 'current' | 'pending'>): number {
  return (snap.current?.remaining ?? 0) + (snap.pending === null ? 0 : snap.pending.step);
}

/** Where a tag's next segment stands: loaded, being loaded, its last load failed, or not asked for yet. */
export function nextSegmentState(snap: Pick<TagSnapshot, 'pending' | 'loading' | 'lastError'>): NextSegmentState {
  return snap.pending !== null ? 'ready' : snap.loading ? 'loading' : snap.lastError !== null ? 'failed' : 'none';
}
