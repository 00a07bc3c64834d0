/** The names an engine serves, re-read every `refreshIntervalMs`, one read at a time, and on a miss (rate-limited). */
import type { Clock, TimerHandle } from '../clock';
import { type LeafError, storeUnavailable } from '../errors';
import type { Logger } from '../log';

export interface TagDirectoryOptions {
  clock: Clock;
  logger: Logger;
  refreshIntervalMs: number;
  missRefreshMinIntervalMs: number;
  /** Reads the list from the store and applies it; throws when the store fails. */
  reread: () => Promise<void>;
  /** The warn line of a failed read: `tag_refresh_failed`, `format_refresh_failed`. */
  failedEvent: string;
}

export class TagDirectory {
  lastRefreshAt: number | null = null;
  lastRefreshError: Error | null = null;
  private refreshing: Promise<void> | null = null;
  /** The re-read that misses are waiting for (nextMissRefresh). */
  private missRefresh: Promise<void> | null = null;
  private timer: TimerHandle | null = null;

  constructor(private readonly o: TagDirectoryOptions) {}

  /** Reads the list once and starts the periodic refresh. Resolves even when the store is down. */
  async start(): Promise<void> {
    if (this.timer === null && this.o.refreshIntervalMs > 0)
      this.timer = this.o.clock.setInterval(() => void this.refresh(), this.o.refreshIntervalMs);
    await this.refresh();
  }

  stop(): void {
    if (this.timer !== null) this.o.clock.clearInterval(this.timer);
    this.timer = null;
  }

  /** Re-reads the list now, or joins the read in flight. Never rejects: a failure is kept in lastRefreshError. */
  refresh(): Promise<void> {
    this.refreshing ??= this.reread().finally(() => {
      this.refreshing = null;
    });
    return this.refreshing;
  }

  private async reread(): Promise<void> {
    try {
      await this.o.reread();
      this.lastRefreshError = null;
    } catch (error) {
      this.lastRefreshError = error as Error;
      this.o.logger.log('warn', this.o.failedEvent, { error });
    } finally {
      this.lastRefreshAt = this.o.clock.now();
    }
  }

  /** Waits for the next allowed re-read; a miss never waits for the periodic one. */
  async find(known: () => boolean, notFound: () => LeafError): Promise<void> {
    if (this.refreshing !== null) await this.refreshing;
    if (!known()) await this.nextMissRefresh();
    if (known()) return;
    if (this.lastRefreshError !== null) throw storeUnavailable(this.lastRefreshError);
    throw notFound();
  }

  /** The next re-read of the list a miss may cause: now if the last one is old enough, else when it is. */
  private nextMissRefresh(): Promise<void> {
    const last = this.lastRefreshAt;
    const wait = last === null ? 0 : last + this.o.missRefreshMinIntervalMs - this.o.clock.now();
    if (wait <= 0) return this.refresh();
    this.missRefresh ??= new Promise<void>((resolve) => this.o.clock.setTimeout(resolve, wait)).then(() => {
      this.missRefresh = null;
      return this.refresh();
    });
    return this.missRefresh;
  }
}
