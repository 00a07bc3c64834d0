/**
 * The client's part in changes of ordering (docs/design.md#ordered-tags): leased IDs are handed out only under a
 * live vouch of a node, renewed every poll; each renewal says which tags are strict now, at the node's ordering
 * version, and this client drops what it leased of them before it reports that version back. The vouch is checked
 * once per synchronous run of the caller's code (a flag the next microtask clears), so the hot path reads a field,
 * never a clock: nothing outside the run can tell its calls apart, and a run that outlives the vouch's last tenth is
 * the one case it does not cover.
 */
import type { Clock, TimerHandle } from '../clock';
import { LeafClientError } from './errors';

/** A node's answer to `GET /api/id/ordering`. */
export interface OrderingAnswer {
  version: number;
  strict: string[];
  vouchMs: number;
  pollMs: number;
}

export interface OrderingSource {
  /** Renews this client's vouch, reporting the version it has applied. `unsupported`: the servers predate vouches. */
  ordering(clientId: string, acked: number): Promise<OrderingAnswer | 'unsupported'>;
  /** Best effort, not awaited by close: the nodes stop waiting for this client. */
  bye(clientId: string): void;
}

export class OrderingWatch {
  /** The hot path's check: true while this synchronous run has seen a live vouch. */
  fresh = false;
  private deadline = -Infinity;
  private version = 0;
  private strictTags = new Set<string>();
  private timer: TimerHandle | null = null;
  private everyMs = 0;
  private renewing: Promise<boolean> | null = null;
  private unsupported = false;
  private closed = false;
  /** The version moved: renew again as soon as this renewal ends, reporting it. */
  private reportNow = false;
  private readonly reset = () => {
    this.fresh = this.unsupported;
  };

  constructor(
    private readonly clientId: string,
    private readonly source: OrderingSource,
    private readonly clock: Clock,
    /** Milliseconds that only ever grow: a clock stepped back must not stretch a vouch. */
    private readonly monotonic: () => number,
    /** Told after every renewal that moved the version, before the version is reported back. */
    private readonly onChange: (strict: ReadonlySet<string>) => void,
  ) {}

  /** The strict tags as the newest renewal said. */
  isStrict(tag: string): boolean {
    return this.strictTags.has(tag);
  }

  /** Whether leased IDs may be handed out now: sets `fresh` for the rest of this synchronous run. */
  check(): boolean {
    if (this.unsupported || this.monotonic() < this.deadline) {
      this.fresh = true;
      if (!this.unsupported) queueMicrotask(this.reset);
      return true;
    }
    return false;
  }

  /** A renewal now, or the one in flight; resolves whether the vouch is live after it. Never rejects. */
  renew(): Promise<boolean> {
    this.renewing ??= this.renewOnce().finally(() => {
      this.renewing = null;
      if (this.reportNow) {
        this.reportNow = false;
        void this.renew();
      }
    });
    return this.renewing;
  }

  private async renewOnce(): Promise<boolean> {
    if (this.closed) return false;
    const sentAt = this.monotonic();
    let answer: OrderingAnswer | 'unsupported';
    try {
      answer = await this.source.ordering(this.clientId, this.version);
    } catch {
      return this.monotonic() < this.deadline; // the vouch in hand still counts until it runs out
    }
    if (this.closed) return false;
    if (answer === 'unsupported') {
      this.unsupported = true;
      this.fresh = true;
      return true;
    }
    // A node behind the version this client has applied says nothing new: only its vouch counts.
    if (answer.version >= this.version) {
      const moved = answer.version > this.version;
      this.strictTags = new Set(answer.strict);
      this.version = answer.version;
      if (moved) {
        this.onChange(this.strictTags);
        this.reportNow = true; // report the new version at once: the nodes wait for it before they acknowledge
      }
    }
    // A tenth of the vouch short of what the node waits (a tenth more): clocks may run apart by up to 10 % in rate.
    this.deadline = Math.max(this.deadline, sentAt + answer.vouchMs - Math.ceil(answer.vouchMs / 10));
    this.schedule(Math.max(100, Math.min(answer.pollMs, Math.floor(answer.vouchMs / 3))));
    return true;
  }

  /** Renewals from now on (the first one now): idempotent. */
  start(): void {
    if (this.timer === null && this.everyMs === 0 && !this.closed) {
      this.everyMs = -1;
      void this.renew();
    }
  }

  private schedule(everyMs: number): void {
    if (this.closed || everyMs === this.everyMs) return;
    this.clock.clearInterval(this.timer ?? undefined);
    this.everyMs = everyMs;
    this.timer = this.clock.setInterval(() => void this.renew(), everyMs);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.clock.clearInterval(this.timer ?? undefined);
    this.timer = null;
    this.deadline = -Infinity;
    this.fresh = false;
    if (this.everyMs !== 0 && !this.unsupported) this.source.bye(this.clientId);
  }
}

/** Leased IDs held back: no node has vouched for this client lately (none reachable). */
export function noVouch(): LeafClientError {
  return new LeafClientError(
    'unavailable',
    'No server renewed this client’s vouch in time: leased IDs are held back until one does (docs/design.md#ordered-tags).',
  );
}
