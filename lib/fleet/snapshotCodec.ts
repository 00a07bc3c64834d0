import type { NextSegmentState, NodeSnapshot, NodeTagState } from './types';

/** The heartbeat's `leaf_node.snapshot`: each tag a bare array, half the JSON of named fields with 10,000 tags. */

const FORMAT = 1;
const NEXT_STATES: readonly NextSegmentState[] = ['ready', 'loading', 'failed', 'none'];

/** `current` came later: a reader of the first five still reads this, and a row without it decodes it as null. */
type EncodedTag = [buffered: number, step: number, ratePerSec: number, next: number, issued: number, current?: number];

interface Encoded {
  v: number;
  /** [state, workerId, leaseExpiresAt (ms) or null, workerIds?] — workerIds came later: a reader of the first
   * three still reads this, and a row without it (an older node) decodes without it. */
  s: [string, number | null, number | null, string?];
  t: Record<string, EncodedTag>;
}

export function encodeSnapshot(snapshot: NodeSnapshot): string {
  const t: Record<string, EncodedTag> = {};
  for (const [tag, s] of Object.entries(snapshot.tags)) {
    t[tag] = [
      s.buffered,
      s.step,
      Math.round(s.ratePerSec * 10) / 10,
      Math.max(0, NEXT_STATES.indexOf(s.next)),
      s.issued,
      ...(s.current === null ? [] : [s.current]),
    ] as EncodedTag;
  }
  const sf = snapshot.snowflake;
  const lease = sf.leaseExpiresAt === null ? null : Date.parse(sf.leaseExpiresAt);
  const encoded: Encoded = {
    v: FORMAT,
    s: sf.workerIds === undefined ? [sf.state, sf.workerId, lease] : [sf.state, sf.workerId, lease, sf.workerIds],
    t,
  };
  return JSON.stringify(encoded);
}

export const EMPTY_SNAPSHOT: NodeSnapshot = {
  snowflake: { state: 'off', workerId: null, leaseExpiresAt: null },
  tags: {},
};

/** A row this version cannot read shows as empty rather than failing the whole node list. */
export function decodeSnapshot(text: string): NodeSnapshot {
  return decodeSnapshotWith(text, (state) => state);
}

/** decodeSnapshot, each tag passed through `view` as it is built: one object per tag, not two. */
export function decodeSnapshotWith<T>(
  text: string,
  view: (state: NodeTagState) => T,
): { snowflake: NodeSnapshot['snowflake']; tags: Record<string, T> } {
  let e: Partial<Encoded>;
  try {
    e = JSON.parse(text) as Partial<Encoded>;
  } catch {
    return { snowflake: EMPTY_SNAPSHOT.snowflake, tags: {} };
  }
  if (e?.v !== FORMAT || !Array.isArray(e.s) || typeof e.t !== 'object' || e.t === null)
    return { snowflake: EMPTY_SNAPSHOT.snowflake, tags: {} };
  const [state, workerId, lease, workerIds] = e.s;
  const tags: Record<string, T> = {};
  for (const tag in e.t) {
    const a = e.t[tag];
    if (!Array.isArray(a)) continue;
    tags[tag] = view(tagOf(a));
  }
  return {
    snowflake: {
      state: String(state),
      workerId: workerId ?? null,
      leaseExpiresAt: lease == null ? null : new Date(lease).toISOString(),
      ...(typeof workerIds === 'string' ? { workerIds } : {}),
    },
    tags,
  };
}

/**
 * A few tags of a snapshot, found in its text without parsing the rest: a page of the tag list needs 50 tags of a
 * node that may hold 100,000 (decoding them all costs ~250 ms a node). A tag name needs no escaping in JSON and
 * only a tag's entry has `"name":[` in it, so one pass of one pattern finds them. The snowflake part is not read.
 */
export function decodeTagsOf(text: string, bizTags: readonly string[]): Record<string, NodeTagState> {
  const tags: Record<string, NodeTagState> = {};
  if (bizTags.length === 0 || !text.startsWith(`{"v":${FORMAT},`)) return tags;
  const names = bizTags.map((t) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  const entry = new RegExp(`"(${names.join('|')})":(\\[[^\\]]*\\])`, 'g');
  for (const m of text.matchAll(entry)) {
    const a = JSON.parse(m[2]!) as unknown[];
    if (!a.every((x) => typeof x === 'number')) continue;
    tags[m[1]!] = tagOf(a as EncodedTag);
  }
  return tags;
}

/** One tag's array as its state; `current` came later, and a row without it reads as null. */
function tagOf(a: EncodedTag): NodeTagState {
  return {
    buffered: a[0],
    step: a[1],
    ratePerSec: a[2],
    next: NEXT_STATES[a[3]] ?? 'none',
    issued: a[4],
    current: typeof a[5] === 'number' ? a[5] : null,
  };
}
