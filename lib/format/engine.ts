import { type Clock, systemClock } from '../clock';
import { LeafError, isLeafError, storeUnavailable } from '../errors';
import { type Logger, silentLogger } from '../log';
import type { SegmentLoadRecord } from '../segment/buffer';
import { SegmentEngine } from '../segment/engine';
import type { GivenBack } from '../segment/shutdown';
import { TagDirectory } from '../segment/tagDirectory';
import { type IdRanges, runBase } from '../segment/idRanges';
import { formatNotFound } from './rules';
import type { FormatRow, FormatSource } from './formatStore';
import { type FormatPattern, idRenderer, parsePattern, sequenceCap } from './pattern';
import { dateFields, periodKey } from './period';
import type { RegionStride } from '../segment/regionIds';
import { PeriodSource, periodTag } from './periodSource';

export interface FormatEngineOptions {
  store: FormatSource;
  clock?: Clock;
  logger?: Logger;
  /** How often the format list is re-read (as the segment tags: 60 s). 0 disables the timer. */
  refreshIntervalMs?: number;
  /** How long a request waits for its period's next segment. */
  loadWaitMs?: number;
  /** An unknown formatted tag re-reads the format list at most this often. */
  missRefreshMinIntervalMs?: number;
  /** Told of every claim, ok or failed, under the period's name (`orders@20261202`). */
  onLoad?: (periodTag: string, record: SegmentLoadRecord) => void;
  /** LEAF_REGIONS > 1: the period's position n is the sequence n × R + region (docs/design.md#regions). */
  stride?: RegionStride | null;
}

/** What the engine knows of one format: its row and, per second, the period and renderer of that second. */
interface ActiveFormat {
  row: FormatRow;
  pattern: FormatPattern;
  /** The period this node served last ('' for never); null before the first ID. */
  servedPeriod: string | null;
  /** The second (epoch ms / 1000) `view` belongs to. */
  second: number;
  view: PeriodView | null;
}

/** One second of a format in its zone: the period key and the ID renderer (the date parts of that second). */
interface PeriodView {
  key: string;
  tag: string;
  render: (seq: number) => string;
}

/** A formatted tag's state for the console: the period it serves now (by this node's clock). */
export interface FormatSnapshot {
  bizTag: string;
  periodKey: string;
  /** Sequence numbers this node's two segments of that period still hold. */
  buffered: number;
}

/** Formatted, period-reset IDs: each period a segment-mode tag of its own (docs/design.md#formatted-ids-period-reset-sequences). */
export class FormatEngine {
  private readonly store: FormatSource;
  private readonly stride: RegionStride | null;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly dropAfterMs: number;
  /** The format list, kept fresh from the store. */
  private readonly directory: TagDirectory;
  private readonly periods: PeriodSource;
  /** The sequences: one segment-mode tag per (formatted tag, period) this node serves. */
  private readonly sequences: SegmentEngine;
  private readonly formats = new Map<string, ActiveFormat>();

  constructor(options: FormatEngineOptions) {
    this.store = options.store;
    this.stride = options.stride ?? null;
    this.clock = options.clock ?? systemClock;
    this.logger = options.logger ?? silentLogger;
    this.directory = new TagDirectory({
      clock: this.clock,
      logger: this.logger,
      refreshIntervalMs: options.refreshIntervalMs ?? 60_000,
      missRefreshMinIntervalMs: options.missRefreshMinIntervalMs ?? 1_000,
      reread: () => this.applyFormatList(),
      failedEvent: 'format_refresh_failed',
    });
    const loadWaitMs = options.loadWaitMs ?? 1_000;
    this.dropAfterMs = 2 * loadWaitMs + 1_000;
    this.periods = new PeriodSource(this.store);
    this.sequences = new SegmentEngine({
      store: this.periods,
      clock: this.clock,
      logger: this.logger,
      // Its tag list is this engine's own periods, in memory: re-read whenever a period is entered or left.
      refreshIntervalMs: 0,
      missRefreshMinIntervalMs: 0,
      loadWaitMs,
      onLoad: options.onLoad,
    });
  }

  start(): Promise<void> {
    return this.directory.start();
  }

  stop(): void {
    this.directory.stop();
  }

  /** Stops serving; with `giveBack`, each period's latest claim gives back its unused top, per `tag@period`. */
  async close(options: { giveBack: boolean; timeoutMs?: number }): Promise<GivenBack[]> {
    this.stop();
    return this.sequences.close(options);
  }

  /** Re-reads the format list: new formats appear, deleted ones go, edits apply. Single-flight. */
  refreshFormats(): Promise<void> {
    return this.directory.refresh();
  }

  private async applyFormatList(): Promise<void> {
    const rows = await this.store.listFormats();
    const seen = new Set<string>();
    for (const row of rows) {
      const parsed = parsePattern(row.pattern);
      if (!parsed.ok) {
        this.logger.log('error', 'format_unusable', { bizTag: row.bizTag, error: parsed.error });
        continue;
      }
      seen.add(row.bizTag);
      const known = this.formats.get(row.bizTag);
      if (known === undefined) {
        this.formats.set(row.bizTag, { row, pattern: parsed.pattern, servedPeriod: null, second: -1, view: null });
        continue;
      }
      known.row = row;
      known.pattern = parsed.pattern;
      known.view = null;
      if (known.servedPeriod !== null)
        this.periods.enter(periodTag(row.bizTag, known.servedPeriod), this.claimRules(known));
    }
    for (const [bizTag, format] of this.formats) {
      if (seen.has(bizTag)) continue;
      this.formats.delete(bizTag);
      if (format.servedPeriod !== null) this.periods.leave(periodTag(bizTag, format.servedPeriod));
      this.logger.log('info', 'format_removed', { bizTag });
    }
    await this.sequences.refreshTags();
  }

  private claimRules(format: ActiveFormat): {
    step: number;
    width: number;
    cap: number;
    reset: FormatRow['resetPeriod'];
  } {
    const { width } = format.pattern;
    // In a region the cap is on the rendered sequence: positions stop where n × R + region would pass it.
    const s = this.stride;
    const cap = s === null ? sequenceCap(width) : Math.floor((sequenceCap(width) - s.region) / s.regions);
    return { step: format.row.step, width, cap, reset: format.row.resetPeriod };
  }

  /** One formatted ID, synchronously while the period's buffers hold one, else a promise. Errors are LeafErrors. */
  nextId(bizTag: string): string | Promise<string> {
    const format = this.formats.get(bizTag);
    if (format === undefined) return this.lookUpMissing(bizTag).then(() => this.nextId(bizTag));
    const view = this.viewNow(format);
    this.refuseWhenUsedUp(view.tag, 1);
    const seq = this.sequences.nextId(view.tag);
    return seq instanceof Promise
      ? seq.then(
          (n) => view.render(Number(n)),
          (error: unknown) => this.failed(bizTag, error),
        )
      : view.render(Number(seq));
  }

  /** `count` formatted IDs of one period, in increasing sequence order. */
  takeIds(bizTag: string, count: number): string[] | Promise<string[]> {
    const format = this.formats.get(bizTag);
    if (format === undefined) return this.lookUpMissing(bizTag).then(() => this.takeIds(bizTag, count));
    const view = this.viewNow(format);
    this.refuseWhenUsedUp(view.tag, count);
    const ranges = this.sequences.takeRanges(view.tag, count);
    return ranges instanceof Promise
      ? ranges.then(
          (r) => renderRanges(r, view.render),
          (error: unknown) => this.failed(bizTag, error),
        )
      : renderRanges(ranges, view.render);
  }

  /** A used-up period answers at once, without a claim per request: one Map lookup while it is not used up. */
  private refuseWhenUsedUp(tag: string, count: number): void {
    const exhausted = this.periods.exhausted(tag);
    if (exhausted !== null && this.sequences.tag(tag).buffered < count) throw exhausted;
  }

  /** A failure of the period's sequence, in the formatted tag's words. */
  private failed(bizTag: string, error: unknown): never {
    const leafError = isLeafError(error) ? error : storeUnavailable(error);
    if (leafError.code === 'tag_not_found') throw formatNotFound(bizTag);
    throw leafError;
  }

  /** The period and renderer of this second in the format's zone; entering a new period when the clock says so. */
  private viewNow(format: ActiveFormat): PeriodView {
    const now = this.clock.now();
    const second = Math.floor(now / 1000);
    if (format.view !== null && format.second === second) return format.view;
    const fields = dateFields(format.row.timeZone, now);
    const key = periodKey(format.row.resetPeriod, fields);
    const view: PeriodView = {
      key,
      tag: periodTag(format.row.bizTag, key),
      render: regionRenderer(idRenderer(format.pattern, fields), this.stride),
    };
    format.view = view;
    format.second = second;
    if (format.servedPeriod !== key) this.enterPeriod(format, key);
    return view;
  }

  private enterPeriod(format: ActiveFormat, key: string): void {
    const { bizTag } = format.row;
    const left = format.servedPeriod;
    format.servedPeriod = key;
    this.periods.enter(periodTag(bizTag, key), this.claimRules(format));
    void this.sequences.refreshTags();
    this.logger.log('info', 'format_period_entered', { bizTag, periodKey: key, left });
    if (left === null) return;
    // Not at once: a request may still be waiting for the old period's next segment (at most loadWaitMs).
    this.clock.setTimeout(() => {
      const still = this.formats.get(bizTag);
      if (still !== undefined && still.servedPeriod === left) return; // the clock went back into it
      this.periods.leave(periodTag(bizTag, left));
      void this.sequences.refreshTags();
    }, this.dropAfterMs);
  }

  /** An unknown tag may have been created a moment ago on another node: one re-read (rate-limited), then 404. */
  private lookUpMissing(bizTag: string): Promise<void> {
    return this.directory.find(
      () => this.formats.has(bizTag),
      () => formatNotFound(bizTag),
    );
  }

  /** Formatted tags this node knows, sorted. */
  tags(): string[] {
    return [...this.formats.keys()].sort();
  }

  /** The period each known format is in now by this node's clock, and what its buffers hold of it. */
  snapshot(bizTag: string): FormatSnapshot | undefined {
    const format = this.formats.get(bizTag);
    if (format === undefined) return undefined;
    const key = periodKey(format.row.resetPeriod, dateFields(format.row.timeZone, this.clock.now()));
    return {
      bizTag,
      periodKey: key,
      buffered: this.periods.has(periodTag(bizTag, key)) ? this.sequences.tag(periodTag(bizTag, key)).buffered : 0,
    };
  }

  /** Periods whose sequences this node holds now (entered and not yet dropped), as `tag@period`. */
  heldPeriods(): string[] {
    return this.sequences.tags();
  }
}

/** The renderer of a region's positions: sequence n × R + region (numbers: a sequence has at most 15 digits). */
function regionRenderer(render: (seq: number) => string, s: RegionStride | null): (seq: number) => string {
  if (s === null) return render;
  return (n) => render(n * s.regions + s.region);
}

function renderRanges(ranges: IdRanges, render: (seq: number) => string): string[] {
  const out = new Array<string>(ranges.count);
  let k = 0;
  const { bounds } = ranges;
  for (let r = 0; r < bounds.length; r += 2) {
    // A period's numbers stay below 10^15 < 2^53: never a wide segment, so positions are the numbers.
    if (runBase(ranges, r) !== null) throw new LeafError('store_unavailable', 'A period sequence passed 2^53.');
    for (let seq = bounds[r] as number; seq <= (bounds[r + 1] as number); seq++) out[k++] = render(seq);
  }
  return out;
}
