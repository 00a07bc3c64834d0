import { BIZ_TAG_MAX_LENGTH, isValidBizTag } from '../bizTag';
import { type Clock, type TimerHandle, systemClock } from '../clock';
import { LeafError } from '../errors';
import { silentLogger } from '../log';
import { SegmentEngine } from '../segment/engine';
import { openTags } from '../store/openTags';
import { ensureRegion } from '../settings/region';
import { EmbeddedTag, closedError } from './embeddedTag';
import { type EmbeddedOptions, parseEmbeddedOptions } from './options';

/** `@leaf-ts/embedded`: the segment engine in the caller's process, straight on the database, safe beside servers. */
export async function createLeaf(options: EmbeddedOptions): Promise<EmbeddedLeaf> {
  const settings = parseEmbeddedOptions(options);
  const logger = options.logger ?? silentLogger;
  const store = await openTags(settings.store);
  try {
    // Embedded IDs are the positions themselves: on a region's database they would repeat other regions' IDs.
    await ensureRegion({ store: store.settings, config: { region: 0, regions: 1 }, nodeId: `embedded:${process.pid}` });
  } catch (error) {
    await store.close();
    throw error;
  }
  const engine = new SegmentEngine({
    store: store.tags,
    logger,
    clock: waitingClock,
    loadWaitMs: settings.loadWaitMs,
    refreshIntervalMs: settings.refreshIntervalMs,
  });
  await engine.start();
  return new EmbeddedLeaf(engine, store, settings.giveBack);
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
  /** Read by every handle before it serves. */
  private readonly state = { closed: false };

  /** Use `createLeaf`. */
  constructor(
    private readonly engine: SegmentEngine,
    private readonly store: { close(): Promise<void> },
    private readonly giveBack = true,
  ) {}

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
      if (this.state.closed) throw closedError();
      if (typeof tag !== 'string' || !isValidBizTag(tag)) {
        throw new LeafError(
          'invalid_tag',
          `A tag is 1–${BIZ_TAG_MAX_LENGTH} characters of letters, digits, "_", "-", "." or ":".`,
        );
      }
      handle = new EmbeddedTag(tag, this.engine.tag(tag), this.state);
      this.tags.set(tag, handle);
    }
    return handle;
  }

  /** Stops serving, gives back (bounded; unless `giveBack: false`), closes the database. Safe to call twice. */
  close(): Promise<void> {
    if (this.closing === null) {
      this.state.closed = true;
      this.closing = this.engine.close({ giveBack: this.giveBack }).then(() => this.store.close());
    }
    return this.closing;
  }
}
