import type { NodeRow } from './nodeStore';
import { runwaySeconds } from './runway';
import { EMPTY_SNAPSHOT, decodeSnapshotWith } from './snapshotCodec';
import type { NodeState, NodeTagState, NodeView } from './types';

/** `stopped` after a goodbye, `gone` once its heartbeat is older than `goneMs` on the database clock, else `up`. */
export function nodeState(row: Pick<NodeRow, 'state' | 'heartbeatAt'>, dbNow: number, goneMs: number): NodeState {
  if (row.state === 'stopped') return 'stopped';
  return dbNow - row.heartbeatAt > goneMs ? 'gone' : 'up';
}

/** `only`: these tags, already read (registry.nodesWith); the snapshot is decoded whole otherwise. */
export function nodeView(row: NodeRow, dbNow: number, goneMs: number, only?: Record<string, NodeTagState>): NodeView {
  const withRunway = (t: NodeTagState) => Object.assign(t, { runwaySeconds: runwaySeconds(t.buffered, t.ratePerSec) });
  const { snowflake, tags } =
    only === undefined
      ? decodeSnapshotWith(row.snapshot, withRunway)
      : {
          snowflake: EMPTY_SNAPSHOT.snowflake,
          tags: Object.fromEntries(Object.entries(only).map(([k, t]) => [k, withRunway(t)])),
        };
  return {
    nodeId: row.nodeId,
    instanceId: row.instanceId,
    address: row.address,
    version: row.version,
    state: nodeState(row, dbNow, goneMs),
    startedAt: new Date(row.startedAt).toISOString(),
    lastHeartbeat: new Date(row.heartbeatAt).toISOString(),
    snowflake,
    tags,
  };
}

/** A node as `GET /api/admin/nodes` answers it: with totals, and its tags in full, reduced to one, or left out. */
export type NodeAnswer = Omit<NodeView, 'tags'> & { tags?: NodeView['tags']; tagsHeld: number; idsBuffered: number };

/** `tags`: every tag (undefined), one tag's entry only (a bizTag), or no tags map at all (null). */
export function nodeAnswer(view: NodeView, tags: string | null | undefined): NodeAnswer {
  let tagsHeld = 0;
  let idsBuffered = 0;
  for (const t of Object.values(view.tags)) {
    tagsHeld += 1;
    idsBuffered += t.buffered;
  }
  const { tags: all, ...rest } = view;
  if (tags === null) return { ...rest, tagsHeld, idsBuffered };
  if (tags === undefined) return { ...rest, tags: all, tagsHeld, idsBuffered };
  const one = all[tags];
  return { ...rest, tags: one === undefined ? {} : { [tags]: one }, tagsHeld, idsBuffered };
}
