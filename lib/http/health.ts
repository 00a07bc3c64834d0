/** GET /api/health: the store pinged and each host probed (bounded, shared); 200 while buffers serve, `degraded`. */
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

/** At most one probe at a time, its result reused for `ttlMs`: a load balancer's polls cost one connection per host. */
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
  const { segments, store, snowflake, region } = runtime;
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
    region: region ?? null,
  };
  return jsonOk(body);
}
