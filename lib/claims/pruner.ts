/** LEAF_CLAIM_LOG_DAYS: every node prunes the claim log now and then; a row that can still be served is kept. */
import type { Clock, TimerHandle } from '../clock';
import type { Logger } from '../log';
import { pruneClaims } from './claimLog';
import type { ClaimLogStore } from './claimLogStore';

const DAY_MS = 86_400_000;

export interface ClaimLogPrunerOptions {
  log: Pick<ClaimLogStore, 'rowsBefore' | 'deleteRows'>;
  clock: Clock;
  logger: Logger;
  days: number;
  /** How often (every node: deletes of rows another node deleted delete nothing). */
  everyMs: number;
}

export class ClaimLogPruner {
  private timer: TimerHandle | undefined;
  private running: Promise<number> | null = null;

  constructor(private readonly o: ClaimLogPrunerOptions) {}

  start(): void {
    this.timer = this.o.clock.setInterval(() => void this.pruneOnce(), this.o.everyMs);
  }

  /** One pass (the one in flight, if any); answers how many rows went. Never rejects: a failure is logged. */
  pruneOnce(): Promise<number> {
    this.running ??= this.pass().finally(() => (this.running = null));
    return this.running;
  }

  stop(): void {
    this.o.clock.clearInterval(this.timer);
  }

  private async pass(): Promise<number> {
    const { log, clock, logger, days } = this.o;
    try {
      const pruned = await pruneClaims(log, clock.now() - days * DAY_MS);
      if (pruned > 0) logger.log('info', 'claim_log_pruned', { rows: pruned, days });
      return pruned;
    } catch (error) {
      logger.log('warn', 'claim_log_prune_failed', { error });
      return 0;
    }
  }
}
