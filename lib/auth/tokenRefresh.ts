import type { Clock, TimerHandle } from '../clock';
import { type Logger, silentLogger } from '../log';
import type { TokenStore } from './tokenStore';
import type { IdAccess } from './scopedTokens';

/** Keeps an IdAccess in step with leaf_token: at start, every `intervalMs`, and after a change here. */
export class TokenRefresher {
  private timer: TimerHandle | undefined;
  /** Reads are numbered; an older read that finishes late never replaces a newer table. */
  private started = 0;
  private applied = 0;

  constructor(
    private readonly deps: {
      store: Pick<TokenStore, 'listTokens'>;
      access: IdAccess;
      clock: Clock;
      intervalMs: number;
      logger?: Logger;
    },
  ) {}

  async start(): Promise<void> {
    await this.load();
    this.timer = this.deps.clock.setInterval(() => {
      this.refresh().catch((error: unknown) =>
        (this.deps.logger ?? silentLogger).log('warn', 'token_refresh_failed', { error }),
      );
    }, this.deps.intervalMs);
  }

  /** Re-reads the table now (a read of its own: one already running may have started before the caller's write). */
  refresh(): Promise<void> {
    return this.load();
  }

  stop(): void {
    this.deps.clock.clearInterval(this.timer);
    this.timer = undefined;
  }

  private async load(): Promise<void> {
    const seq = ++this.started;
    const rows = await this.deps.store.listTokens();
    if (seq < this.applied) return;
    this.applied = seq;
    this.deps.access.replace(rows);
  }
}
