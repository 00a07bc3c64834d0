import { parseBizTag } from '../bizTag';
import { type Clock, systemClock } from '../clock';
import { LeafError, tagNotFound } from '../errors';
import type { NodeParts } from './nodeParts';
import type { TagSnapshot } from '../segment/snapshot';
import type { Semantics } from '../segment/semantics';
import type { AuditRecord } from './auditStore';
import type { AuditStamp } from '../audit';
import type { SemanticsSettings, SemanticsSwitch } from '../segment/semanticsStore';
import type { TagRow } from '../segment/tagStore';
import type { OrderRead, ParticipantRead } from '../ordered/orderStore';
import { anyPending, orderingView } from './orderViews';
import { type OpaqueEncoding, type RequestedOpaque, encodingName, strictOpaqueRefused } from '../opaque/encoding';
import {
  type AuditQueryInput,
  type CreateTagInput,
  type FleetSemanticsInput,
  type UpdateTagInput,
  auditQuerySchema,
  fieldErrors,
} from './schema';
import { RATE_BUCKET_MS } from './tagHistory';
import { type TagListQuery, listTagPage } from './tagList';
import type { AuditEntryView, AuditPage, TagDetail, TagListPage, TagView } from './views';

export type { EngineView, TagDetail, TagListPage, TagView } from './views';

type AdminRuntime = Pick<NodeParts, 'store' | 'segments'> & {
  console: Pick<NodeParts['console'], 'rates' | 'loadLog'>;
};
/** Changes also need this node's id for their audit entries. */
type ChangeRuntime = AdminRuntime & Pick<NodeParts, 'config' | 'ordered'>;

/** Who asks for a change: the credential as the audit trail names it, and the client's address. */
export interface Requester {
  actor: string;
  address: string;
}

/** The audit stamp of a change made now through this node. */
export function auditStamp(rt: Pick<NodeParts, 'config'>, who: Requester, clock: Clock = systemClock): AuditStamp {
  return { actor: who.actor, address: who.address, nodeId: rt.config.node.id, at: clock.now() };
}

/** A tag from a Next route param, which Next has already decoded once: validate, never decode again. */
export function tagFromParam(param: string): string {
  return parseBizTag(param);
}

/** The order rows, and the participants when a change waits for them (the tag views show whom). */
interface OrderState {
  read: OrderRead;
  participants: ParticipantRead | null;
  /** The opaque tags' encodings (a tag absent is plain). */
  encodings: Map<string, OpaqueEncoding>;
}

async function orderState(rt: AdminRuntime): Promise<OrderState> {
  const [read, encodings] = await Promise.all([rt.store.order.readOrder(), rt.store.tags.listEncodings()]);
  return { read, participants: anyPending(read) ? await rt.store.order.listParticipants() : null, encodings };
}

function view(rt: AdminRuntime, row: TagRow, semantics: Semantics, order: OrderState): TagView {
  const snap = rt.segments.snapshot(row.bizTag);
  const encoding = order.encodings.get(row.bizTag) ?? null;
  return {
    bizTag: row.bizTag,
    maxId: String(row.maxId),
    step: row.step,
    description: row.description,
    semantics,
    encoding: encodingName(encoding),
    keyId: encoding?.keyId ?? null,
    updateTime: row.updateTime.toISOString(),
    ...orderingView(order.read, order.participants, row.bizTag),
    engine:
      snap === undefined
        ? null
        : { ...withoutIdentity(snap), ratePerSec: Math.round(rt.console.rates.ratePerSec(row.bizTag) * 10) / 10 },
  };
}

function withoutIdentity({ bizTag: _tag, ...rest }: TagSnapshot): Omit<TagSnapshot, 'bizTag'> {
  return rest;
}

/** One page of the tag list (lib/admin/tagList.ts), each row with this node's engine state. */
export async function listTags(rt: AdminRuntime, query: TagListQuery): Promise<TagListPage> {
  const [settings, order] = await Promise.all([rt.store.semantics.getSemantics(), orderState(rt)]);
  return listTagPage(rt, query, (row) => view(rt, row, settings.tags[row.bizTag] ?? settings.default, order));
}

/** The view of a row just read or changed, with its effective semantics and its ordering. */
async function freshView(rt: AdminRuntime, row: TagRow): Promise<TagView> {
  const [semantics, order] = await Promise.all([rt.store.semantics.tagSemantics(row.bizTag), orderState(rt)]);
  return view(rt, row, semantics, order);
}

export async function tagDetail(rt: AdminRuntime, bizTag: string): Promise<TagDetail> {
  const row = await rt.store.tags.getTag(bizTag);
  if (row === undefined) throw tagNotFound(bizTag);
  const loads = rt.console.loadLog.loads(bizTag);
  return {
    tag: await freshView(rt, row),
    history: {
      rate: rt.console.rates.history(bizTag, RATE_BUCKET_MS),
      steps: loads.filter((l) => l.ok && l.purpose === 'segment').map((l) => ({ t: l.at, step: l.step })),
      loads,
    },
  };
}

export async function createTag(rt: ChangeRuntime, input: CreateTagInput, who: Requester): Promise<TagView> {
  const encoding = await opaqueSetting(rt, input);
  // A tag created strict is strict in the same transaction (audited as tag.create and tag.ordering): no node can
  // see it without its ordering.
  const row = await rt.store.tags.createTag(
    {
      bizTag: input.bizTag,
      step: input.step,
      maxId: input.maxId,
      description: input.description ?? null,
      ordering: input.ordering ?? 'none',
      encoding,
    },
    auditStamp(rt, who),
  );
  if (input.ordering === 'strict') await rt.ordered.poll(); // this node applies and acknowledges it at once
  await rt.segments.refreshTags(); // usable on this node at once; other nodes see it within their refresh
  return freshView(rt, row);
}

/**
 * Leaf semantics are for fleets with Java Leaf nodes, which know nothing of leaf_encoding and would hand out an opaque
 * tag's IDs unpermuted: the two are refused together (docs/design.md#opaque-tags).
 */
function leafBesideOpaque(tags: string): LeafError {
  return new LeafError(
    'encoding_conflict',
    `Opaque tags (${tags}) cannot have leaf semantics: a Java Leaf node would hand out their IDs unpermuted.`,
  );
}

/** The encoding a creation asks for, under this node's key: opaque needs LEAF_OPAQUE_KEY, strict needs plain. */
async function opaqueSetting(
  rt: Pick<NodeParts, 'config'> & { store: Pick<NodeParts['store'], 'semantics'> },
  input: CreateTagInput,
): Promise<RequestedOpaque | null> {
  if (input.encoding === undefined || input.encoding === 'plain') return null;
  if (input.ordering === 'strict') throw strictOpaqueRefused(input.bizTag);
  if ((await rt.store.semantics.tagSemantics(input.bizTag)) === 'leaf') throw leafBesideOpaque(input.bizTag);
  const keys = rt.config.opaqueKeys ?? null;
  if (keys === null) {
    throw new LeafError('validation_failed', 'This node has no LEAF_OPAQUE_KEY, so it cannot create opaque tags.', {
      fields: { encoding: 'Set LEAF_OPAQUE_KEY on the nodes to create opaque tags.' },
    });
  }
  return { encoding: input.encoding, keyId: keys.current.id, heldKeyIds: keys.ids };
}

export async function updateTag(
  rt: ChangeRuntime,
  bizTag: string,
  input: UpdateTagInput,
  who: Requester,
): Promise<TagView> {
  const current = await rt.store.tags.getTag(bizTag);
  if (current === undefined) throw tagNotFound(bizTag);
  // A name's encoding never changes (not even through deletion), so these checks cannot race a re-creation.
  if (input.ordering === 'strict' || input.semantics === 'leaf') {
    if ((await rt.store.tags.getEncoding(bizTag)) !== null)
      throw input.ordering === 'strict' ? strictOpaqueRefused(bizTag) : leafBesideOpaque(bizTag);
  }
  // A value equal to the row's is no change: nothing is written and no audit entry says "changed".
  const raise = input.maxId !== undefined && BigInt(input.maxId) !== BigInt(current.maxId) ? input.maxId : undefined;
  const step = input.step !== current.step ? input.step : undefined;
  const description = input.description !== current.description ? input.description : undefined;
  // The raise comes first: if it is refused, nothing else of the request is applied. Each store call records its
  // own audit entry (tag.raise, tag.edit) in its own transaction.
  let row = raise !== undefined ? await rt.store.tags.raiseMaxId(bizTag, raise, auditStamp(rt, who)) : undefined;
  if (step !== undefined || description !== undefined)
    row = await rt.store.tags.updateTag(bizTag, { step, description }, auditStamp(rt, who));
  if (input.semantics !== undefined) {
    // Its own transaction and audit entry (tag.semantics); leaf-ts → leaf raises max_id by one (the skip).
    await rt.store.semantics.setTagSemantics(bizTag, input.semantics, auditStamp(rt, who));
    row = await rt.store.tags.getTag(bizTag);
    if (row === undefined) throw tagNotFound(bizTag);
  }
  if (input.ordering !== undefined) {
    // Its own transaction and audit entry (tag.ordering); a change to strict completes once every process applied
    // it (the tag view shows it pending and whom it waits for until then).
    await rt.store.order.setOrdering(bizTag, input.ordering, auditStamp(rt, who));
    await rt.ordered.poll(); // this node at once; the others within LEAF_ORDER_POLL_MS
    row ??= await rt.store.tags.getTag(bizTag);
  }
  await rt.segments.refreshTags();
  return freshView(rt, row ?? current);
}

/** GET /api/admin/semantics: the fleet default and the tags with their own setting. */

/** PUT /api/admin/semantics: one transaction with its skip and audit entry (fleet.semantics); then the settings. */
export async function setFleetSemantics(
  rt: ChangeRuntime,
  input: FleetSemanticsInput,
  who: Requester,
): Promise<SemanticsSettings & { switched: SemanticsSwitch }> {
  if (input.semantics === 'leaf') {
    const opaque = await rt.store.tags.listEncodings();
    if (opaque.size > 0)
      throw leafBesideOpaque([...opaque.keys()].slice(0, 3).join(', ') + (opaque.size > 3 ? ', …' : ''));
  }
  const switched = await rt.store.semantics.setDefaultSemantics(input.semantics, auditStamp(rt, who));
  return { ...(await rt.store.semantics.getSemantics()), switched };
}

export async function deleteTag(
  rt: ChangeRuntime,
  bizTag: string,
  confirm: string,
  who: Requester,
): Promise<{ deleted: true; maxId: string }> {
  if (confirm !== bizTag) {
    throw new LeafError('confirmation_mismatch', `Type the tag name "${bizTag}" exactly to delete it.`, {
      fields: { confirm: 'Does not match the tag name.' },
    });
  }
  const { maxId } = await rt.store.tags.deleteTag(bizTag, auditStamp(rt, who));
  await rt.segments.refreshTags();
  return { deleted: true, maxId: String(maxId) };
}

/** `before`, `limit` (≤ 200), `tag`; anything else is 400 `validation_failed` naming it. */
export function parseAuditQuery(params: URLSearchParams): AuditQueryInput {
  const raw: Record<string, string> = {};
  for (const [key, value] of params) {
    if (key in raw)
      throw new LeafError('validation_failed', 'Some parameters are not valid.', {
        fields: { [key]: 'Give it once.' },
      });
    raw[key] = value;
  }
  const parsed = auditQuerySchema.safeParse(raw);
  if (!parsed.success)
    throw new LeafError('validation_failed', 'Some parameters are not valid.', { fields: fieldErrors(parsed.error) });
  return parsed.data;
}

/** One page of the audit trail, newest first; one row more than asked tells whether an older page exists. */
export async function auditPage(
  rt: Pick<NodeParts, 'store'>,
  { before, limit, tag }: AuditQueryInput,
): Promise<AuditPage> {
  const rows = await rt.store.audit.listAudit({ before, limit: limit + 1, bizTag: tag });
  const entries = rows.slice(0, limit).map(auditEntryView);
  return { entries, nextBefore: rows.length > limit ? entries[entries.length - 1]!.id : null };
}

function auditEntryView(r: AuditRecord): AuditEntryView {
  return {
    id: r.id,
    at: new Date(r.at).toISOString(),
    action: r.action,
    bizTag: r.bizTag,
    actor: r.actor,
    address: r.address,
    nodeId: r.nodeId,
    before: r.before,
    after: r.after,
  };
}
