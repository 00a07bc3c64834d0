import { BIZ_TAG_MAX_LENGTH, isValidBizTag } from '../bizTag';
import { type Clock, type TimerHandle, systemClock } from '../clock';
import { LeafError } from '../errors';
import { type Logger, silentLogger } from '../log';
import { OrderingParticipant } from '../ordered/participant';
import type { OrderRead } from '../ordered/orderStore';
import { thisProcess } from '../ordered/procIdentity';
import { SegmentEngine } from '../segment/engine';
import { type RegionStride, regionStride } from '../segment/regionIds';
import { ensureFleetOpaqueKeys } from '../opaque/fleetKey';
import { OpaqueTags } from '../opaque/opaqueTags';
import { ensureRegion } from '../settings/region';
import { RegionWatch } from '../settings/regionWatch';
import { type TagsOnly, openTags } from '../store/openTags';
import { EmbeddedTag, closedError } from './embeddedTag';
import { type EmbeddedOptions, type EmbeddedSettings, parseEmbeddedOptions } from './options';
import { randomUUID } from 'node:crypto';

import type { Claimer } from '../claims/claimNote';

/** The region record is checked again this many polls apart: a database renumbered under it stops this process. */
const REGION_CHECK_POLLS = 10;

/** `@leaf-ts/embedded`: the segment engine in the caller's process, straight on the database, safe beside servers. */
export async function createLeaf(options: EmbeddedOptions): Promise<EmbeddedLeaf> {
  const settings = parseEmbeddedOptions(options);
  const logger = options.logger ?? silentLogger;
  const store = await openTags(settings.store);
  try {
    const leaf = new EmbeddedLeaf(store, settings, logger);
    await leaf.open();
    return leaf;
  } catch (error) {
    await store.close();
    throw error;
  }
}

/** The system clock, but a one-shot timer keeps the process alive while a call waits. */
const waitingClock: Clock = {
  ...systemClock,
  setTimeout: (fn, ms) => globalThis.setTimeout(fn, ms) as unknown as TimerHandle,
};

/** IDs from the caller's own memory, parallel to `LeafClient`: the same calls, so a service can swap one for the other. */
export class EmbeddedLeaf {
  private readonly tags = new Map<string, EmbeddedTag>();
  /** The tag asked for last: a caller on one tag skips the map lookup. */
  private lastTag: EmbeddedTag | undefined;
  private closing: Promise<void> | null = null;
  private readonly engine: SegmentEngine;
  private readonly participant: OrderingParticipant;
  /** Tags strict as last read: refused here, their IDs come from their owner node. */
  private readonly strict = new Set<string>();
  /** Set once for good: closed, or the database turned regional. Every handle then refuses. */
  private stopped: LeafError | null = null;
  private readonly regionWatch: RegionWatch;
  private readonly name: string;
  /** With regions, positions become the IDs n × regions + region. */
  private readonly stride: RegionStride | null;
  /** Opaque tags' encodings, read once per tag, and their permutations under `opaqueKey` (or a retired key). */
  private readonly opaque: OpaqueTags;
  /** This process in the claim log (lib/claims/). */
  private readonly claimer: Claimer;

  /** Use `createLeaf`. */
  constructor(
    private readonly store: TagsOnly,
    private readonly settings: EmbeddedSettings,
    private readonly logger: Logger = silentLogger,
  ) {
    this.name = settings.name ?? `embedded:${thisProcess().host}:${process.pid}`;
    this.stride = regionStride(settings.region.region, settings.region.regions);
    this.opaque = new OpaqueTags(store.tags, settings.opaqueKeys);
    const instanceId = randomUUID();
    // It grants no leases: a segment's IDs are handed out only while this process serves it.
    this.claimer = { claimer: this.name, instance: instanceId, tailMs: 0, ...settings.region };
    this.engine = new SegmentEngine({
      claimer: this.claimer,
      store: store.tags,
      logger,
      clock: waitingClock,
      loadWaitMs: settings.loadWaitMs,
      refreshIntervalMs: settings.refreshIntervalMs,
    });
    this.participant = new OrderingParticipant({
      store: store.order,
      self: { instanceId, kind: 'embedded', label: this.name, ...thisProcess() },
      clock: systemClock,
      monotonic: () => performance.now(),
      pollMs: settings.orderPollMs,
      readTimeoutMs: Math.max(1_000, settings.orderPollMs * 5),
      pruneMs: 86_400_000,
      logger,
      apply: (read) => this.applyOrdering(read),
    });
    this.regionWatch = new RegionWatch({
      store: store.settings,
      config: settings.region,
      nodeId: this.name,
      clock: systemClock,
      everyMs: settings.orderPollMs * REGION_CHECK_POLLS,
      logger,
      onChanged: (reason) => this.stop(reason),
    });
  }

  /** Region checked, this process registered and leaf_order read before the first ID (docs/design.md#ordered-tags). */
  async open(): Promise<void> {
    await ensureRegion({ store: this.store.settings, config: this.settings.region, nodeId: this.name });
    const ring = this.settings.opaqueKeys;
    if (ring !== null)
      await ensureFleetOpaqueKeys({ settings: this.store.settings, tags: this.store.tags, ring, nodeId: this.name });
    await this.participant.start();
    await this.engine.start();
    this.regionWatch.start();
  }

  /** A bigint synchronously while buffered, else a Promise<bigint>; LeafErrors either way. */
  nextId(tag: string): bigint | Promise<bigint> {
    const last = this.lastTag;
    if (last !== undefined && last.name === tag) return last.next();
    return (this.lastTag = this.tag(tag)).next();
  }

  /** `count` IDs of `tag` (1 to 1,000,000), increasing: synchronously when buffered, else a promise. */
  take(tag: string, count: number): bigint[] | Promise<bigint[]> {
    return this.tag(tag).take(count);
  }

  /** The tag's handle: `handle.next()` is `nextId` without the lookup. Throws `invalid_tag` for a malformed name. */
  tag(tag: string): EmbeddedTag {
    let handle = this.tags.get(tag);
    if (handle === undefined) {
      if (this.stopped !== null) throw this.stopped;
      if (typeof tag !== 'string' || !isValidBizTag(tag)) {
        throw new LeafError(
          'invalid_tag',
          `A tag is 1–${BIZ_TAG_MAX_LENGTH} characters of letters, digits, "_", "-", "." or ":".`,
        );
      }
      handle = new EmbeddedTag(tag, this.engine.tag(tag), this.stride, this.opaque);
      handle.refusal = this.refusalFor(tag);
      this.tags.set(tag, handle);
    }
    return handle;
  }

  private refusalFor(tag: string): LeafError | null {
    return this.stopped ?? (this.strict.has(tag) ? strictHere(tag) : null);
  }

  /**
   * A read of leaf_order put in force before it is acknowledged: a strict tag's IDs held here are dropped and its
   * handles refuse; the region record is checked again now and then.
   */
  private applyOrdering(read: OrderRead): void {
    const strict = new Set(read.rows.filter((r) => r.ordering === 'strict').map((r) => r.bizTag));
    for (const tag of strict) if (!this.strict.has(tag)) this.engine.restart(tag);
    this.strict.clear();
    for (const tag of strict) this.strict.add(tag);
    for (const [tag, handle] of this.tags) handle.refusal = this.refusalFor(tag);
  }

  private stop(reason: LeafError): void {
    if (this.stopped !== null) return;
    this.stopped = reason;
    for (const handle of this.tags.values()) handle.refusal = reason;
  }

  /** Its claims end here in the log; a failure leaves them open, which only widens its time answers. */
  private async recordClose(): Promise<void> {
    try {
      await this.store.claims.recordClose(this.claimer);
    } catch (error) {
      this.logger.log('warn', 'claim_log_close_failed', { error });
    }
  }

  /** Stops serving, gives back (bounded; unless `giveBack: false`), leaves the participants, closes the database. */
  close(): Promise<void> {
    if (this.closing === null) {
      this.stop(closedError());
      this.regionWatch.stop();
      this.closing = this.engine
        .close({ giveBack: this.settings.giveBack })
        .then(() => Promise.all([this.participant.stop(2_000), this.recordClose()]))
        .then(() => this.store.close());
    }
    return this.closing;
  }
}

function strictHere(tag: string): LeafError {
  return new LeafError(
    'strict_tag',
    `Tag "${tag}" is strict: its IDs come one request at a time from its owner node, so @leaf-ts/embedded does not serve it (use the HTTP API or @leaf-ts/client).`,
  );
}
