/** What serves IDs, opened so a twin or a bad floor serves nothing, closed so the give-back stays safe. */
import { randomUUID } from 'node:crypto';
import type { Claimer } from './claims/claimNote';
import { ClaimLogPruner } from './claims/pruner';
import type { IdAccess } from './auth/scopedTokens';
import { TokenRefresher } from './auth/tokenRefresh';
import { systemClock } from './clock';
import type { LeafConfig } from './leafConfig';
import { takeNodeSnapshot } from './fleet/nodeSnapshot';
import { NodeRegistry } from './fleet/registry';
import { FormatEngine } from './format/engine';
import type { Logger } from './log';
import { RateTracker } from './metrics/rateTracker';
import type { SegmentLoadRecord } from './segment/buffer';
import { SegmentEngine } from './segment/engine';
import { ensureFleetSemantics } from './segment/fleetSemantics';
import { httpForward } from './ordered/forwarder';
import { OrderedTags } from './ordered/orderedTags';
import { thisProcess } from './ordered/procIdentity';
import { checkFloor } from './snowflake/floor';
import { ensureFleetLayout } from './snowflake/fleetLayout';
import { ensureFleetOpaqueKeys } from './opaque/fleetKey';
import { OpaqueTags } from './opaque/opaqueTags';
import { type RegionInfo, ensureRegion } from './settings/region';
import { RegionWatch } from './settings/regionWatch';
import type { LeafError } from './errors';
import { type RegionStride, regionStride } from './segment/regionIds';
import { SnowflakeNode } from './snowflake/node';
import { openStore } from './store';
import type { LeafStore } from './store/leafStore';
import { LEAF_VERSION } from './version';

/** How often each node prunes the claim log: rows go days late at most by this much, on a quiet schedule. */
const CLAIM_PRUNE_MS = 3_600_000;

/** A relayed request that the owner has not answered by now fails (the client retries; the owner may be gone). */
const FORWARD_TIMEOUT_MS = 1_000;
/** A stop gives each lease this long to be given up; else it runs out by itself. */
const RELEASE_TIMEOUT_MS = 1_000;
/** How often a running node checks its database's region record again. */
const REGION_CHECK_MS = 10_000;

export interface CoreRuntime {
  config: LeafConfig;
  logger: Logger;
  store: LeafStore;
  segments: SegmentEngine;
  /** Formatted, period-reset IDs (lib/format). */
  formats: FormatEngine;
  /** null when snowflake mode is off (LEAF_SNOWFLAKE=off). */
  snowflake: SnowflakeNode | null;
  /** This node's region as its database recorded it (one region when regions are off). */
  region: RegionInfo;
  /** Segment and formatted positions to IDs (n × R + region); null with regions off. */
  stride: RegionStride | null;
  /** This node's row in the fleet registry, and reads of every node's (`fleet.nodes()`). */
  fleet: NodeRegistry;
  /** Keeps the process's IdAccess in step with leaf_token; `refresh()` after a create or revoke on this node. */
  tokens: TokenRefresher;
  /** Per-tag rates: the node's snapshot in the registry, and the console's charts. */
  rates: RateTracker;
  /** Strict tags: which this node owns, and the relay to the owners of the others (lib/ordered). */
  ordered: OrderedTags;
  /** Which tags are opaque, and their permutations under LEAF_OPAQUE_KEY (lib/opaque). */
  opaque: OpaqueTags;
  /** Ends the relay's keep-alive connections. */
  closeForwarder: () => void;
  /** The region record, checked again every 10 s: settles with the refusal if it was rewritten under this node. */
  regionWatch: RegionWatch;
  /** This process in the claim log (lib/claims/). */
  claimer: Claimer;
  /** LEAF_RANGE_LEASE_VALID_MS, in every lease answer. */
  leaseValidMs: number;
  /** LEAF_CLAIM_LOG_DAYS, applied every CLAIM_PRUNE_MS. */
  claimPruner: ClaimLogPruner;
  whenRegionChanged: () => Promise<LeafError>;
}

/** What the core reports to, and reads from, the console's part. */
export interface CoreHooks {
  /** Every segment load, ok or failed (metrics, the console's load log). */
  onLoad: (bizTag: string, record: SegmentLoadRecord) => void;
  /** The ID routes' credential table, filled by the token refresher before the node serves. */
  access: IdAccess;
}

export async function openCore(config: LeafConfig, logger: Logger, hooks: CoreHooks): Promise<CoreRuntime> {
  const { enabled, epochMs, minId, leaseMs, workerIds, layout } = config.snowflake;
  // Before the store: a floor this clock has not passed refuses the start even while the database is down.
  if (enabled) checkFloor(minId, epochMs, systemClock.now(), layout);
  const store = await openStore(config.store);
  let region: RegionInfo;
  try {
    // Before anything is issued: a node of another region, count, layout or epoch could repeat the fleet's IDs.
    region = await ensureRegion({ store: store.settings, config: config.region, nodeId: config.node.id });
    if (enabled) await ensureFleetLayout({ store: store.settings, layout, epochMs, nodeId: config.node.id });
    if (config.opaqueKeys !== null)
      await ensureFleetOpaqueKeys({
        settings: store.settings,
        tags: store.tags,
        ring: config.opaqueKeys,
        nodeId: config.node.id,
      });
  } catch (error) {
    await store.close();
    throw error;
  }
  if (config.segmentSemantics !== null) {
    // Before the first claim: every claim then reads the default this node was told to keep.
    try {
      await ensureFleetSemantics({
        store: store.semantics,
        semantics: config.segmentSemantics,
        nodeId: config.node.id,
        logger,
        now: systemClock.now(),
      });
    } catch (error) {
      await store.close();
      throw error;
    }
  }
  const relay = httpForward(FORWARD_TIMEOUT_MS);
  // One id for this process in every table that names it: the registry, snowflake workers, ordering participants.
  const instanceId = randomUUID();
  const stride = regionStride(region.region, region.regions);
  const { leaseMs: orderLeaseMs, marginMs, pollMs, clientLeaseMs } = config.ordered;
  // A layer around the engine: `ordered` restarts the engine's tag on a handover or a change to strict.
  const ordered: OrderedTags = new OrderedTags({
    store: store.order,
    engine: { restart: (bizTag) => segments.restart(bizTag) },
    self: { nodeId: config.node.id, instanceId, address: config.node.address },
    identity: thisProcess(),
    terms: { leaseMs: orderLeaseMs, marginMs },
    pollMs,
    pruneMs: config.node.pruneMs,
    clientVouchMs: clientLeaseMs,
    forward: relay.forward,
    stride,
    clock: systemClock,
    logger,
  });
  // Every claim's log row names this process; its leases may be used for leaseValidMs after it stops serving.
  const claimer: Claimer = {
    claimer: config.node.id,
    instance: instanceId,
    tailMs: config.claimLog.leaseValidMs,
    region: region.region,
    regions: region.regions,
  };
  const segments = new SegmentEngine({ store: store.tags, logger, onLoad: hooks.onLoad, claimer });
  const rates = new RateTracker({ clock: systemClock });
  const formats = new FormatEngine({ store: store.formats, logger, stride });
  const snowflake = enabled
    ? new SnowflakeNode({
        store: store.workers,
        nodeId: config.node.id,
        instanceId,
        epochMs,
        layout,
        region: region.region,
        minId,
        leaseMs,
        workerIds,
        logger,
      })
    : null;
  const { id, address, heartbeatMs, goneMs, pruneMs } = config.node;
  const fleet = new NodeRegistry({
    store: store.nodes,
    nodeId: id,
    instanceId,
    address,
    version: LEAF_VERSION,
    heartbeatMs,
    goneMs,
    pruneMs,
    logger,
    snapshot: () => takeNodeSnapshot({ segments, rates, snowflake, leaseMs }),
    // Another process holds our identity now: its snowflake worker would re-take ours (same node id) — let it.
    onLost: () => void snowflake?.stop(),
  });
  // The clock's timers do not keep the process alive, and at start nothing else may: hold it open while the
  // identity check watches another process's row.
  const keepAlive = setInterval(() => {}, 60_000);
  try {
    // The identity first: a twin found here stops the start before it could take the snowflake worker lease.
    await fleet.start();
  } catch (error) {
    await store.close();
    throw error;
  } finally {
    clearInterval(keepAlive);
  }
  // Before the node serves: the ID routes wait for the first load of the access tokens (they never guess open).
  const tokens = new TokenRefresher({
    store: store.tokens,
    access: hooks.access,
    clock: systemClock,
    intervalMs: config.tokenRefreshMs,
    logger,
  });
  let regionChanged: (reason: LeafError) => void = () => undefined;
  const regionChange = new Promise<LeafError>((resolve) => (regionChanged = resolve));
  const regionWatch = new RegionWatch({
    store: store.settings,
    config: config.region,
    nodeId: config.node.id,
    clock: systemClock,
    everyMs: REGION_CHECK_MS,
    logger,
    onChanged: (reason) => regionChanged(reason),
  });
  const core: CoreRuntime = {
    claimer,
    leaseValidMs: config.claimLog.leaseValidMs,
    config,
    logger,
    store,
    segments,
    formats,
    snowflake,
    region,
    stride,
    fleet,
    tokens,
    rates,
    ordered,
    opaque: new OpaqueTags(store.tags, config.opaqueKeys),
    closeForwarder: relay.close,
    regionWatch,
    whenRegionChanged: () => regionChange,
    claimPruner: new ClaimLogPruner({
      log: store.claims,
      clock: systemClock,
      logger,
      days: config.claimLog.days,
      everyMs: CLAIM_PRUNE_MS,
    }),
  };
  try {
    await Promise.all([segments.start(), formats.start(), snowflake?.start(), tokens.start(), ordered.start()]);
  } catch (error) {
    // Stop what started — the heartbeat above all: left beating, it would make the next attempt of this very process
    // find its own row live and refuse as a twin.
    await closeCore(core).catch((closeError: unknown) => logger.log('warn', 'runtime_abandon_failed', { closeError }));
    throw error;
  }
  regionWatch.start();
  core.claimPruner.start();
  logger.log('info', 'runtime_ready', {
    dialect: store.dialect,
    tags: segments.status().tagsKnown,
    snowflakeWorkerId: snowflake?.workerId ?? null,
  });
  return core;
}

/** Engines stop, give back (bounded), release the worker and the node row; then the store closes. */
/** The close row ends this process's claims in the log; without it (a failure, a kill) they stay open: still safe. */
async function recordClose(core: CoreRuntime): Promise<void> {
  try {
    await core.store.claims.recordClose(core.claimer);
  } catch (error) {
    core.logger.log('warn', 'claim_log_close_failed', { error });
  }
}

export async function closeCore(core: CoreRuntime): Promise<void> {
  core.tokens.stop();
  core.regionWatch.stop();
  core.claimPruner.stop();
  const giveBack = core.config.giveBack;
  const [given, givenFormats] = await Promise.all([
    core.segments.close({ giveBack }),
    core.formats.close({ giveBack }),
  ]);
  given.push(...givenFormats);
  if (giveBack)
    core.logger.log('info', 'give_back_done', { tags: given.length, ids: given.reduce((sum, g) => sum + g.count, 0) });
  core.closeForwarder();
  // The engine serves nothing now: the strict tags' next owners may start at once, and the claim log may say so.
  await Promise.all([
    core.snowflake?.stop(),
    core.fleet.stop(),
    core.ordered.close(RELEASE_TIMEOUT_MS),
    recordClose(core),
  ]);
  await core.store.close();
}
