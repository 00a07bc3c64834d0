import { isValidBizTag } from '../bizTag';
import { LeafError } from '../errors';
import type { Runtime } from '../runtime';
import type { TagRow } from '../store/types';
import { type CreateTagInput, type UpdateTagInput } from './schema';

/** What the console shows of a tag: its row, and this node's engine state for it. */
export interface TagView {
  bizTag: string;
  /** Decimal string, like every ID on the wire. */
  maxId: string;
  step: number;
  description: string | null;
  updateTime: string;
  engine: EngineView | null;
}

export interface EngineView {
  step: number;
  minStep: number;
  current: { start: number; max: number; next: number; step: number; remaining: number } | null;
  pending: { start: number; max: number; step: number } | null;
  loading: boolean;
  lastLoadAt: number | null;
  lastError: string | null;
  ratePerSec: number;
  issuedTotal: number;
  waits: number;
  failedRequests: number;
}

export interface TagDetail {
  tag: TagView;
  history: {
    rate: Array<{ t: number; ids: number }>;
    steps: Array<{ t: number; step: number }>;
    loads: Array<{ at: number; durationMs: number; step: number; ok: boolean; error?: string }>;
  };
}

type AdminRuntime = Pick<Runtime, 'store' | 'segments' | 'rates'>;

export function requireTag(raw: string): string {
  let tag = raw;
  try {
    tag = decodeURIComponent(raw);
  } catch {
    /* fall through to the check */
  }
  if (!isValidBizTag(tag)) throw new LeafError('invalid_tag', 'A tag is 1–128 characters of letters, digits, "_", "-", "." or ":".');
  return tag;
}

function view(rt: AdminRuntime, row: TagRow): TagView {
  const snap = rt.segments.snapshot(row.bizTag);
  return {
    bizTag: row.bizTag,
    maxId: String(row.maxId),
    step: row.step,
    description: row.description,
    updateTime: row.updateTime.toISOString(),
    engine:
      snap === undefined
        ? null
        : {
            step: snap.step,
            minStep: snap.minStep,
            current: snap.current,
            pending: snap.pending,
            loading: snap.loading,
            lastLoadAt: snap.lastLoadAt,
            lastError: snap.lastError,
            ratePerSec: Math.round(rt.rates.ratePerSec(row.bizTag) * 10) / 10,
            issuedTotal: snap.issuedTotal,
            waits: snap.waits,
            failedRequests: snap.failedRequests,
          },
  };
}

export async function listTagViews(rt: AdminRuntime): Promise<TagView[]> {
  return (await rt.store.listTagRows()).map((row) => view(rt, row));
}

export async function tagDetail(rt: AdminRuntime, bizTag: string): Promise<TagDetail> {
  const row = await rt.store.getTag(bizTag);
  if (row === undefined) throw new LeafError('tag_not_found', `Tag "${bizTag}" does not exist.`);
  const loads = rt.segments.snapshot(bizTag)?.loads ?? [];
  return {
    tag: view(rt, row),
    history: {
      rate: rt.rates.history(bizTag),
      steps: loads.filter((l) => l.ok).map((l) => ({ t: l.at, step: l.step })),
      loads,
    },
  };
}

export async function createTag(rt: AdminRuntime, input: CreateTagInput): Promise<TagView> {
  const row = await rt.store.createTag({ bizTag: input.bizTag, step: input.step, maxId: input.maxId, description: input.description ?? null });
  await rt.segments.refreshTags(); // usable on this node at once; other nodes see it within their refresh
  return view(rt, row);
}

export async function updateTag(rt: AdminRuntime, bizTag: string, input: UpdateTagInput): Promise<TagView> {
  if ((await rt.store.getTag(bizTag)) === undefined) throw new LeafError('tag_not_found', `Tag "${bizTag}" does not exist.`);
  // The raise comes first: if it is refused, nothing else of the request is applied.
  let row = input.maxId !== undefined ? await rt.store.raiseMaxId(bizTag, input.maxId) : undefined;
  if (input.step !== undefined || input.description !== undefined) {
    row = await rt.store.updateTag(bizTag, { step: input.step, description: input.description });
  }
  await rt.segments.refreshTags();
  return view(rt, row as TagRow);
}

export async function deleteTag(rt: AdminRuntime, bizTag: string, confirm: string): Promise<{ deleted: true; maxId: string }> {
  if (confirm !== bizTag) {
    throw new LeafError('confirmation_mismatch', `Type the tag name "${bizTag}" exactly to delete it.`, {
      fields: { confirm: 'Does not match the tag name.' },
    });
  }
  const { maxId } = await rt.store.deleteTag(bizTag);
  await rt.segments.refreshTags();
  return { deleted: true, maxId: String(maxId) };
}
