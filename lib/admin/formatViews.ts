import type { FormatRow } from '../format/formatStore';

/** A formatted tag as the admin API shows it: its row, with times as ISO strings, and its current period. */
export interface FormatView extends Omit<FormatRow, 'createdAt' | 'updatedAt'> {
  createdAt: string;
  updatedAt: string;
  /** The period it is in now by the answering node's clock, in its zone ('' for never). */
  currentPeriod: string;
  /** IDs claimed so far in that period (its max_id; 0 before the first claim). */
  currentCount: number;
}

/** One period's counter. */
export interface FormatPeriodView {
  periodKey: string;
  /** IDs claimed so far in the period: its max_id (nodes may still hold some unissued in their buffers). */
  maxId: number;
  /** Size of the period's latest claim. */
  step: number;
  updatedAt: string;
}

export interface FormatDetail {
  format: FormatView;
  /** Newest first. */
  periods: FormatPeriodView[];
}
