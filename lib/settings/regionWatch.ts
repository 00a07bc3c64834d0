/**
 * The region record checked again while a process runs (docs/operations.md#regions): `npm run regions -- change`
 * refuses while any process is registered, so a record rewritten under a running process is an operator's mistake;
 * the process then stops issuing, rather than go on with a numbering its database no longer has.
 */
import type { Clock, TimerHandle } from '../clock';
import { LeafError } from '../errors';
import type { Logger } from '../log';
import { type RegionConfig, ensureRegion } from './region';
import type { SettingStore } from './settingStore';

export interface RegionWatchOptions {
  store: SettingStore;
  config: RegionConfig;
  nodeId: string;
  clock: Clock;
  everyMs: number;
  logger: Logger;
  /** Told once, with the refusal naming both numberings. */
  onChanged(reason: LeafError): void;
}

export class RegionWatch {
  private timer: TimerHandle | null = null;
  private checking = false;
  private changed = false;

  constructor(private readonly o: RegionWatchOptions) {}

  start(): void {
    this.timer ??= this.o.clock.setInterval(() => void this.check(), this.o.everyMs);
  }

  /** One check now; an unreachable database is checked again at the next turn. */
  async check(): Promise<void> {
    if (this.checking || this.changed) return;
    this.checking = true;
    try {
      await ensureRegion({ store: this.o.store, config: this.o.config, nodeId: this.o.nodeId });
    } catch (error) {
      if ((error as LeafError).code !== 'invalid_config') return;
      this.changed = true;
      this.stop();
      this.o.logger.log('error', 'region_changed', { error });
      this.o.onChanged(
        new LeafError('invalid_config', `${(error as LeafError).message}; this process stopped issuing IDs`),
      );
    } finally {
      this.checking = false;
    }
  }

  stop(): void {
    this.o.clock.clearInterval(this.timer ?? undefined);
    this.timer = null;
  }
}
