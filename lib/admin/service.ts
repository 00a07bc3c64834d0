import { parseBizTag } from '../bizTag';
import { LeafError, tagNotFound } from '../errors';
import type { Runtime } from '../runtime';
import type { TagSnapshot } from '../segment/engine';
import type { TagRow } from '../store/types';
import { type CreateTagInput, type UpdateTagInput } from './schema';
import { type TagListQuery, listTagPage } from './tagList';
import type { TagDetail, TagListPage, TagView } from './views';

export type { EngineView, TagDetail, TagListPage, TagView } from './views';

type AdminRuntime = Pick<Runtime, 'store' | 'segments' | 'rates' | 'loadLog'>;

/** A tag from a Next route param, which Next has already decoded once: validate, never decode again. */
export function requireTag(param: string): string {
  return parseBizTag(param);
}

function view(rt: AdminRuntime, row: TagRow): TagView {
  const snap = rt.segments.snapshot(row.bizTag);
  return {
    bizTag: row.bizTag,
    maxId: String(row.maxId),
    step: row.step,
    description: row.description,
    updateTime: row.updateTime.toISOString(),
    engine: snap === undefined ? null : { ...withoutIdentity(snap), ratePerSec: Math.round(rt.rates.ratePerSec(row.bizTag) * 10) / 10 },
  };
}

function withoutIdentity({ bizTag: _tag, ...rest }: TagSnapshot): Omit<TagSnapshot, 'bizTag'> {
  return rest;
}

/** One page of the tag list (lib/admin/tagList.ts), each row with this node's engine state. */
export function listTags(rt: AdminRuntime, query: TagListQuery): Promise<TagListPage> {
  return listTagPage(rt, query, (row) => view(rt, row));
}

export async function tagDetail(rt: AdminRuntime, bizTag: string): Promise<TagDetail> {
  const row = await rt.store.getTag(bizTag);
  if (row === undefined) throw tagNotFound(bizTag);
  const loads = rt.loadLog.loads(bizTag);
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
  if ((await rt.store.getTag(bizTag)) === undefined) throw tagNotFound(bizTag);
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
