/**
 * GET /api/health: the store pinged (bounded), each database host probed on its own (a probe shared and reused, so a
 * load balancer polling health costs at most one connection per host per `hostsCacheMs`), the engine's tag list.
 * 200 while the store is down — the node still serves from its buffers — with `degraded` in the body.
 */
import { hostProblems } from '../admin/hostHealth';
import type { HealthView } from '../admin/views';
import type { Clock } from '../clock';
import { TIMED_OUT, within } from '../deadline';
import { isLeafError } from '../errors';
import type { HostHealth, LeafStore } from '../store/leafStore';
import { type Answer, jsonOk } from './answer';
import type { IdRuntime } from './issue';

export type HostsProbe = (
  store: Pick<LeafStore, 'hosts'>,
  timeoutMs: number,
) => Promise<HostHealth[] | undefined> | undefined;

/**
 * The per-host probe of /api/health, bounded in cost: a load balancer polling health must not open one connection
 * per host per poll. One probe at a time (callers during it share it), and its result is reused for `ttlMs` after
 * it settles. A probe that throws counts as a settled "no hosts list" for as long. Keyed by store, so a new runtime
 * is probed afresh. Undefined for a store without hosts (SQLite).
 */
export function hostsProbeCache(clock: Clock, ttlMs: number): HostsProbe {
  let store: Pick<LeafStore, 'hosts'> | null = null;
  let pending: Promise<HostHealth[] | undefined> | null = null;
  let settledAt = -Infinity;
  return (s, timeoutMs) => {
    if (s.hosts === undefined) return undefined;
    if (s !== store) {
      store = s;
      pending = null;
    }
    if (pending !== null && (settledAt === -Infinity || clock.now() - settledAt < ttlMs)) return pending;
    settledAt = -Infinity;
    const probe: Promise<HostHealth[] | undefined> = s.hosts(timeoutMs).catch(() => undefined);
    pending = probe;
    void probe.then(() => {
      if (pending === probe) settledAt = clock.now();
    });
    return probe;
  };
}

export async function health(
  runtime: IdRuntime,
  clock: Clock,
  timeoutMs: number,
  probeHosts: HostsProbe,
): Promise<Answer> {
  const { segments, store, snowflake } = runtime;
  // Every host on its own, in parallel with the ping; each probe is bounded by the same timeout, and its result
  // is shared by the health calls of the next second.
  const hostsProbe = probeHosts(store, timeoutMs);
  const started = performance.now();
  let reachable = true;
  let error: string | undefined;
  try {
    if ((await within(clock, timeoutMs, store.ping())) === TIMED_OUT)
      throw new Error(`no answer within ${timeoutMs} ms`);
  } catch (e) {
    reachable = false;
    error = isLeafError(e) ? e.message : (e as Error).message;
  }
  const latencyMs = Math.round((performance.now() - started) * 10) / 10;
  const hosts = await hostsProbe;
  // A host down, or a Galera node not Synced, outside the primary component or not accepting queries: the node still
  // serves (through the others), but an operator should look.
  const hostsOk = hosts?.every((h) => hostProblems(h).length === 0) ?? true;
  const engine = segments.status();
  // 200 while the store is down: the node still serves from its buffers. The body says it is degraded.
  const body: HealthView = {
    status: reachable && hostsOk ? 'ok' : 'degraded',
    store: { dialect: store.dialect, reachable, latencyMs, error, ...(hosts === undefined ? {} : { hosts }) },
    tags: { known: engine.tagsKnown, loaded: engine.tagsLoaded },
    lastRefreshAt: engine.lastRefreshAt === null ? null : new Date(engine.lastRefreshAt).toISOString(),
    lastRefreshError: engine.lastRefreshError,
    snowflake: snowflake === null ? { state: 'off' } : snowflake.status(),
  };
  return jsonOk(body);
}
