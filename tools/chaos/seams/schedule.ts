/**
 * What the seams run does next (tools/chaos/seams): a seeded draw from admin operations — create, delete, re-create,
 * step, a max_id raise, a semantics switch, ordering strict and none — and faults — SIGKILL, SIGSTOP for 0.5–2× the
 * order lease, SIGTERM (each process then started again), a database outage, a slow database — against the
 * fleet's state as the run believes it to be. The same seed draws the same schedule.
 */
import type { OpKind } from './history';

export interface Draw {
  kind: OpKind;
  region: number;
  /** A tag (admin), a service's name, or 'database'. */
  target: string;
  /** Strict at creation; the new step or raise; the semantics; the fault's length (ms). */
  arg: number | string | boolean;
  /** A change of ordering made while this node of the region sleeps (SIGSTOP from just before it, for `ms`). */
  underPause?: { node: string; ms: number };
}

export interface ScheduleState {
  regions: number;
  /** Per region, the segment tags that exist (as the run made them) and those deleted that may come back. */
  live: Array<Set<string>>;
  deleted: Array<Set<string>>;
  /** Per region, the tags strict as the run last set them. */
  strict: Array<Set<string>>;
  /** Every tag name the run may create. */
  pool: readonly string[];
  /** Tags never deleted (the load always has something to ask for). */
  base: readonly string[];
  /** Opaque tags: never made strict nor given leaf semantics (both refused, docs/design.md#opaque-tags). */
  opaque: readonly string[];
  /** Most changes of ordering go to these (the load's hot tags). */
  hot: readonly string[];
  /** Per region, the services the scheduler may hurt (nodes and package services), and the nodes among them. */
  services: Array<readonly string[]>;
  nodes: Array<readonly string[]>;
  leaseMs: number;
}

const ADMIN: Array<[OpKind, number]> = [
  ['create', 2],
  ['delete', 2],
  ['recreate', 2],
  ['step', 1],
  ['raise', 1],
  ['semantics', 1],
  ['strict', 4],
  ['none', 3],
];
const FAULTS: Array<[OpKind, number]> = [
  ['kill', 3],
  ['pause', 4],
  ['term', 2],
  ['outage', 1],
  ['slow', 1],
];

function weighted(random: () => number, items: Array<[OpKind, number]>): OpKind {
  let x = random() * items.reduce((n, [, w]) => n + w, 0);
  for (const [kind, w] of items) if ((x -= w) < 0) return kind;
  return items[0]![0];
}

function one<T>(random: () => number, items: readonly T[]): T | undefined {
  return items[Math.floor(random() * items.length)];
}

/** The next operation, or null when the one drawn has nothing to act on (the caller draws again). */
export function drawNext(random: () => number, s: ScheduleState): Draw | null {
  const region = Math.floor(random() * s.regions);
  const fault = random() < 0.45;
  const kind = fault ? weighted(random, FAULTS) : weighted(random, ADMIN);
  const live = [...s.live[region]!];
  const removable = live.filter((t) => !s.base.includes(t));
  switch (kind) {
    case 'create': {
      const tag = one(
        random,
        s.pool.filter((t) => !s.live[region]!.has(t) && !s.deleted[region]!.has(t)),
      );
      return tag === undefined ? null : { kind, region, target: tag, arg: random() < 0.4 && !s.opaque.includes(tag) };
    }
    case 'recreate': {
      const tag = one(random, [...s.deleted[region]!]);
      return tag === undefined ? null : { kind, region, target: tag, arg: random() < 0.4 && !s.opaque.includes(tag) };
    }
    case 'delete': {
      const tag = one(random, removable);
      return tag === undefined ? null : { kind, region, target: tag, arg: 0 };
    }
    case 'step':
      return { kind, region, target: one(random, live) ?? s.base[0]!, arg: 5 + Math.floor(random() * 200) };
    case 'raise':
      return { kind, region, target: one(random, live) ?? s.base[0]!, arg: 1 + Math.floor(random() * 5_000) };
    case 'semantics': {
      const target = one(random, live) ?? s.base[0]!;
      const leaf = random() < 0.5 && !s.opaque.includes(target);
      return { kind, region, target, arg: leaf ? 'leaf' : 'leaf-ts' };
    }
    case 'strict':
    case 'none': {
      const candidates =
        kind === 'strict'
          ? live.filter((t) => !s.strict[region]!.has(t) && !s.opaque.includes(t))
          : [...s.strict[region]!].filter((t) => s.live[region]!.has(t));
      const hot = candidates.filter((t) => s.hot.includes(t));
      const tag = one(random, hot.length > 0 && random() < 0.7 ? hot : candidates);
      if (tag === undefined) return null;
      // A third of the changes of ordering happen while a node sleeps through them (0.5–2× the lease).
      const sleeper = random() < 0.35 ? one(random, s.nodes[region]!) : undefined;
      const draw: Draw = { kind, region, target: tag, arg: 0 };
      if (sleeper !== undefined)
        draw.underPause = { node: sleeper, ms: Math.round(s.leaseMs * (0.5 + 1.5 * random())) };
      return draw;
    }
    case 'outage':
    case 'slow':
      return { kind, region, target: 'database', arg: 1_000 + Math.floor(random() * 2_000) };
    default: {
      const target = one(random, s.services[region]!) ?? '';
      // SIGSTOP for 0.5–2× the lease; a kill or stop comes back after 0.3–1.5 s.
      const ms = kind === 'pause' ? s.leaseMs * (0.5 + 1.5 * random()) : 300 + 1_200 * random();
      return { kind, region, target, arg: Math.round(ms) };
    }
  }
}

/** What the run believes after `draw` (admin operations change the state; faults do not). */
export function afterDraw(s: ScheduleState, d: Draw): void {
  const live = s.live[d.region]!;
  const deleted = s.deleted[d.region]!;
  const strict = s.strict[d.region]!;
  if (d.kind === 'create' || d.kind === 'recreate') {
    live.add(d.target);
    deleted.delete(d.target);
    if (d.arg === true) strict.add(d.target);
  } else if (d.kind === 'delete') {
    live.delete(d.target);
    deleted.add(d.target);
    strict.delete(d.target);
  } else if (d.kind === 'strict') strict.add(d.target);
  else if (d.kind === 'none') strict.delete(d.target);
}
