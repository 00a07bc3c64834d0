/** leaf_format and leaf_format_period rows, as drizzle (…Stored) and the server drivers (Raw…) read them. */
import { LeafError } from '../../errors';
import { isResetPeriod } from '../../format/period';
import type { FormatPeriodRow, FormatRow } from '../../format/formatStore';

/** A leaf_format row as either dialect reads it (BIGINTs may arrive as decimal strings). */
export interface FormatStored {
  bizTag: string;
  pattern: string;
  resetPeriod: string;
  timeZone: string;
  step: number;
  description: string | null;
  createdAt: number | string;
  updatedAt: number | string;
  deletedAt: number | string | null;
}

export function formatRow(r: FormatStored): FormatRow {
  if (!isResetPeriod(r.resetPeriod)) {
    throw new LeafError(
      'tag_misconfigured',
      `Formatted tag "${r.bizTag}" has reset period "${r.resetPeriod}", not never, daily, monthly or yearly.`,
    );
  }
  return {
    bizTag: r.bizTag,
    pattern: r.pattern,
    resetPeriod: r.resetPeriod,
    timeZone: r.timeZone,
    step: Number(r.step),
    description: r.description,
    createdAt: Number(r.createdAt),
    updatedAt: Number(r.updatedAt),
  };
}

export interface PeriodStored {
  bizTag: string;
  periodKey: string;
  maxId: number | string;
  step: number | string;
  updateTime: number | string;
}

export function periodRow(r: PeriodStored): FormatPeriodRow {
  return {
    bizTag: r.bizTag,
    periodKey: r.periodKey,
    maxId: Number(r.maxId),
    step: Number(r.step),
    updateTime: Number(r.updateTime),
  };
}

export interface RawFormatRow {
  biz_tag: string;
  pattern: string;
  reset_period: string;
  time_zone: string;
  step: number;
  description: string | null;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
}

export function formatFromRaw(r: RawFormatRow): FormatStored {
  return {
    bizTag: r.biz_tag,
    pattern: r.pattern,
    resetPeriod: r.reset_period,
    timeZone: r.time_zone,
    step: r.step,
    description: r.description,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    deletedAt: r.deleted_at,
  };
}

export interface RawPeriodRow {
  biz_tag: string;
  period_key: string;
  max_id: string;
  step: number;
  update_time: string;
}

export function periodFromRaw(r: RawPeriodRow): FormatPeriodRow {
  return periodRow({
    bizTag: r.biz_tag,
    periodKey: r.period_key,
    maxId: r.max_id,
    step: r.step,
    updateTime: r.update_time,
  });
}
