import type { AuditStamp } from '../audit';
import type { ResetPeriod } from './period';

/** A leaf_format row: times in ms since the Unix epoch, on the database's clock. */
export interface FormatRow {
  bizTag: string;
  pattern: string;
  resetPeriod: ResetPeriod;
  /** IANA name, canonical as Intl spells it. */
  timeZone: string;
  /** The first claim's size in each period; the floor of the dynamic step. */
  step: number;
  description: string | null;
  createdAt: number;
  updatedAt: number;
}

/** One period's counter (leaf_format_period). */
export interface FormatPeriodRow {
  bizTag: string;
  /** '' (never), yyyy, yyyyMM or yyyyMMdd in the format's zone. */
  periodKey: string;
  /** The highest sequence number claimed in the period: how many IDs it has handed to nodes. */
  maxId: number;
  /** The size of the period's latest claim (0: it found the sequence used up). */
  step: number;
  updateTime: number;
}

export type NewFormat = Pick<FormatRow, 'bizTag' | 'pattern' | 'resetPeriod' | 'timeZone' | 'step'> & {
  description?: string | null;
};

export type FormatChanges = Partial<Pick<FormatRow, 'pattern' | 'timeZone' | 'step' | 'description'>>;

/** What one claim of a period got: sequence numbers lastSeq − count + 1 … lastSeq; count 0 when none were left. */
export interface PeriodClaim {
  /** The period's last sequence number after the claim (its max_id column). */
  lastSeq: number;
  count: number;
}

/** What the formatted-ID engine needs from a database (its port). */
export interface FormatSource {
  /** Formats that exist (deleted ones left out). */
  listFormats(): Promise<FormatRow[]>;
  /** One atomic statement: the period's row made if missing, up to `step` numbers claimed, never past `cap`. */
  claimPeriod(bizTag: string, periodKey: string, step: number, cap: number): Promise<PeriodClaim>;
  /** A graceful stop's compare-and-set: max_id from `claimedMaxId` down to `newMaxId` while the row still holds it. */
  giveBackPeriod(bizTag: string, periodKey: string, claimedMaxId: number, newMaxId: number): Promise<boolean>;
}

/** leaf_format and its periods; a deleted format keeps its periods, so a re-created one continues above them. */
export interface FormatStore extends FormatSource {
  getFormat(bizTag: string): Promise<FormatRow | undefined>;
  /** The tag's periods, newest first; only `periodKeys` when given. */
  listFormatPeriods(bizTag: string, periodKeys?: string[]): Promise<FormatPeriodRow[]>;
  /** `tag_exists` when it exists; `format_conflict` when a deleted one had another shape or reset. */
  createFormat(format: NewFormat, audit: AuditStamp): Promise<FormatRow>;
  /** `tag_not_found` when missing; `format_conflict` for a pattern change other than a wider sequence. */
  updateFormat(bizTag: string, changes: FormatChanges, audit: AuditStamp): Promise<FormatRow>;
  /** `tag_not_found` when missing. */
  deleteFormat(bizTag: string, audit: AuditStamp): Promise<void>;
}
