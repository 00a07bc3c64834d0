import { type Clock, systemClock } from '../clock';
import { LeafError } from '../errors';
import { dateFields, periodKey } from '../format/period';
import { checkFormat } from '../format/rules';
import type { NodeParts } from './nodeParts';
import { formatNotFound } from '../format/rules';
import type { FormatPeriodRow, FormatRow } from '../format/formatStore';
import type { CreateFormatInput, UpdateFormatInput } from './formatSchema';
import type { FormatDetail, FormatPeriodView, FormatView } from './formatViews';
import { type Requester, auditStamp } from './service';

/** Formatted tags for the admin API. Every change is audited by the store and served by this node at once. */
type FormatRuntime = Pick<NodeParts, 'store' | 'formats' | 'config'>;

function currentPeriod(row: FormatRow, now: number): string {
  return periodKey(row.resetPeriod, dateFields(row.timeZone, now));
}

function view(row: FormatRow, current: string, count: number): FormatView {
  const { createdAt, updatedAt, ...rest } = row;
  return {
    ...rest,
    createdAt: new Date(createdAt).toISOString(),
    updatedAt: new Date(updatedAt).toISOString(),
    currentPeriod: current,
    currentCount: count,
  };
}

function periodView(p: FormatPeriodRow): FormatPeriodView {
  return { periodKey: p.periodKey, maxId: p.maxId, step: p.step, updatedAt: new Date(p.updateTime).toISOString() };
}

/** Each format with its current period's count (one small read per format: the period key differs per zone). */
export async function listFormats(rt: Pick<NodeParts, 'store'>, clock: Clock = systemClock): Promise<FormatView[]> {
  const now = clock.now();
  const rows = await rt.store.formats.listFormats();
  return Promise.all(
    rows.map(async (row) => {
      const current = currentPeriod(row, now);
      const [period] = await rt.store.formats.listFormatPeriods(row.bizTag, [current]);
      return view(row, current, period?.maxId ?? 0);
    }),
  );
}

export async function formatDetail(
  rt: Pick<NodeParts, 'store'>,
  bizTag: string,
  clock: Clock = systemClock,
): Promise<FormatDetail> {
  const row = await rt.store.formats.getFormat(bizTag);
  if (row === undefined) throw formatNotFound(bizTag);
  const periods = await rt.store.formats.listFormatPeriods(bizTag);
  const current = currentPeriod(row, clock.now());
  return {
    format: view(row, current, periods.find((p) => p.periodKey === current)?.maxId ?? 0),
    periods: periods.map(periodView),
  };
}

export async function createFormat(
  rt: FormatRuntime,
  input: CreateFormatInput,
  who: Requester,
  clock: Clock = systemClock,
): Promise<FormatDetail> {
  await rt.store.formats.createFormat(input, auditStamp(rt, who, clock));
  await rt.formats.refreshFormats();
  return formatDetail(rt, input.bizTag, clock);
}

export async function updateFormat(
  rt: FormatRuntime,
  bizTag: string,
  input: UpdateFormatInput,
  who: Requester,
  clock: Clock = systemClock,
): Promise<FormatDetail> {
  if (input.pattern !== undefined) {
    const row = await rt.store.formats.getFormat(bizTag);
    if (row === undefined) throw formatNotFound(bizTag);
    const checked = checkFormat(input.pattern, row.resetPeriod);
    if (!checked.ok) throw new LeafError('validation_failed', checked.error, { fields: { pattern: checked.error } });
  }
  await rt.store.formats.updateFormat(bizTag, input, auditStamp(rt, who, clock));
  await rt.formats.refreshFormats();
  return formatDetail(rt, bizTag, clock);
}

/** The format goes; its periods stay, so a re-created format continues above them. */
export async function deleteFormat(
  rt: FormatRuntime,
  bizTag: string,
  who: Requester,
  clock: Clock = systemClock,
): Promise<{ deleted: string }> {
  await rt.store.formats.deleteFormat(bizTag, auditStamp(rt, who, clock));
  await rt.formats.refreshFormats();
  return { deleted: bizTag };
}
