import type { SegmentEngine } from '../segment/engine';
import type { TagSnapshot } from '../segment/snapshot';
import type { SnowflakeNode } from '../snowflake/node';
import { bufferedIds, nextSegmentState } from './buffered';
import type { NodeSnapshot, NodeSnowflakeState, NodeTagState } from './types';

export interface SnapshotSources {
  segments: Pick<SegmentEngine, 'tags' | 'snapshot'>;
  /** IDs per second of a tag over the last seconds (the console's RateTracker). */
  rates: { ratePerSec(bizTag: string): number };
  snowflake: Pick<SnowflakeNode, 'status'> | null;
  /** The snowflake lease length: a lease runs out this long after its last renewal. */
  leaseMs: number;
}

/** What this node's heartbeat publishes: its snowflake worker and every tag it holds a buffer for. */
export function takeNodeSnapshot({ segments, rates, snowflake, leaseMs }: SnapshotSources): NodeSnapshot {
  const tags: Record<string, NodeTagState> = {};
  for (const bizTag of segments.tags()) {
    const s = segments.snapshot(bizTag);
    if (s === undefined || s.current === null) continue; // known but never loaded here: no buffer to speak of
    tags[bizTag] = tagState(s, rates.ratePerSec(bizTag));
  }
  return { snowflake: snowflakeState(snowflake, leaseMs), tags };
}

export function tagState(s: TagSnapshot, ratePerSec: number): NodeTagState {
  return {
    buffered: bufferedIds(s),
    step: s.step,
    ratePerSec,
    next: nextSegmentState(s),
    issued: s.issuedTotal,
    current: s.current?.remaining ?? 0,
  };
}

function snowflakeState(snowflake: Pick<SnowflakeNode, 'status'> | null, leaseMs: number): NodeSnowflakeState {
  if (snowflake === null) return { state: 'off', workerId: null, leaseExpiresAt: null };
  const s = snowflake.status();
  const renewed = s.leaseRenewedAt === null || s.workerId === null ? null : Date.parse(s.leaseRenewedAt);
  return {
    state: s.state,
    workerId: s.workerId,
    leaseExpiresAt: renewed === null ? null : new Date(renewed + leaseMs).toISOString(),
    workerIds: s.workerIds,
  };
}
