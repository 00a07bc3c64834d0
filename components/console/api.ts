/**
 * The console's view of the HTTP API: wire types and one fetch wrapper. No React here; the hooks in
 * queries.ts call these. The server is the authority on every rule; this module only moves JSON.
 */

import type { Semantics } from '@/lib/segment/semantics';
import { type TagListParams, tagListSearch } from './listParams';
export type { TagListParams } from './listParams';
export type {
  AuditAction,
  AuditEntryRow,
  SemanticsSettings,
  AuditEntryView,
  AuditPage,
  AuditTagRow,
  EngineView,
  FleetSummary,
  NodeBufferView,
  FleetRatePoint,
  FleetTagHistory,
  NodeTagHistory,
  NodeTagRow,
  NodeTagsPage,
  TagFleetDetail,
  HealthView,
  HostGalera,
  HostHealth,
  LoadRecord,
  PendingSegmentView,
  RatePoint,
  SegmentView,
  StepPoint,
  TagDetail,
  TagListPage,
  TagListSortKey,
  TagView,
  TokenView,
  CreatedToken,
} from '@/lib/admin/views';
import type {
  AuditPage,
  CreatedToken,
  FleetSummary,
  HealthView,
  NodeTagsPage,
  SemanticsSettings,
  FleetTagHistory,
  TagDetail,
  TagListPage,
  TagView,
  TokenView,
} from '@/lib/admin/views';
import type { NodeAnswer } from '@/lib/fleet/nodeView';
import type { SessionView } from '@/lib/auth/consoleSessions';

/** A live console session as GET /api/auth/sessions lists it; `current`: the one this tab signed in with. */
export type LiveSession = SessionView & { current: boolean };
export type { FleetTagView, NodeState } from '@/lib/fleet/types';
export type { NodeAnswer, Semantics };
import type { CreateTagRequest, CreateTokenRequest, UpdateTagRequest } from './tagSchema';
import type { FormatDetail, FormatView } from '@/lib/admin/formatViews';
import type { CreateFormatRequest, UpdateFormatRequest } from '@/lib/admin/formatSchema';
import type { DecodedId } from '@/lib/admin/tagDecode';
import type { IssuedAnswer } from '@/lib/admin/tagIssued';
import type { IdForm } from '@/lib/opaque/shortForms';
export type { FormatDetail, FormatPeriodView, FormatView } from '@/lib/admin/formatViews';
export type { CreateFormatRequest, UpdateFormatRequest } from '@/lib/admin/formatSchema';

export type { CreateTagRequest, CreateTokenRequest, UpdateTagRequest };
export type { DecodedId } from '@/lib/admin/tagDecode';
export type { IssuedAnswer } from '@/lib/admin/tagIssued';
export type { ClaimWindow } from '@/lib/claims/issued';
export type { IdForm } from '@/lib/opaque/shortForms';

/** The query of GET /api/admin/tags: search, sort (`-` for descending), one page. */
function tagListPath(params: TagListParams): string {
  return `/api/admin/tags?${tagListSearch(params)}`;
}

/** An error answer of the API, or a request that got no answer (status 0, code `network_error`). */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly fields: Readonly<Record<string, string>>;

  constructor(status: number, code: string, message: string, fields: Record<string, string> = {}) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.fields = fields;
  }
}

export function isApiError(error: unknown): error is ApiError {
  return error instanceof ApiError;
}

async function request<T>(
  path: string,
  init: { method?: string; body?: unknown; bearer?: string | null } = {},
): Promise<T> {
  const headers: Record<string, string> =
    init.body === undefined
      ? { accept: 'application/json' }
      : { accept: 'application/json', 'content-type': 'application/json' };
  if (init.bearer) headers.authorization = `Bearer ${init.bearer}`;
  let response: Response;
  try {
    response = await fetch(path, {
      method: init.method ?? 'GET',
      credentials: 'same-origin',
      cache: 'no-store',
      headers,
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
  } catch {
    throw new ApiError(0, 'network_error', 'The server cannot be reached.');
  }
  let payload: unknown = null;
  const text = await response.text();
  if (text.length > 0) {
    try {
      payload = JSON.parse(text);
    } catch {
      payload = null;
    }
  }
  if (!response.ok) {
    const e = (payload as { error?: { code?: unknown; message?: unknown; fields?: unknown } } | null)?.error;
    const code = typeof e?.code === 'string' ? e.code : `http_${response.status}`;
    const message = typeof e?.message === 'string' ? e.message : `The server answered ${response.status}.`;
    const fields = e?.fields !== null && typeof e?.fields === 'object' ? (e.fields as Record<string, string>) : {};
    throw new ApiError(response.status, code, message, fields);
  }
  if (payload === null)
    throw new ApiError(response.status, 'invalid_response', 'The server sent an answer that is not JSON.');
  return payload as T;
}

const tagPath = (bizTag: string) => `/api/admin/tags/${encodeURIComponent(bizTag)}`;
const formatPath = (bizTag: string) => `/api/admin/formats/${encodeURIComponent(bizTag)}`;

export const api = {
  session: () => request<{ authenticated: boolean }>('/api/auth/session'),
  login: (token: string) => request<{ ok: true }>('/api/auth/login', { method: 'POST', body: { token } }),
  logout: () => request<{ ok: true }>('/api/auth/logout', { method: 'POST' }),
  listSessions: () => request<{ sessions: LiveSession[] }>('/api/auth/sessions').then((r) => r.sessions),
  endSession: (id: string) =>
    request<{ ended: string }>(`/api/auth/sessions/${encodeURIComponent(id)}`, { method: 'DELETE' }),
  endAllSessions: () => request<{ ended: number }>('/api/auth/sessions', { method: 'DELETE' }),

  listTags: (params: TagListParams) => request<TagListPage>(tagListPath(params)),
  getTag: (bizTag: string) => request<TagDetail>(tagPath(bizTag)),
  getFleetHistory: (bizTag: string) => request<FleetTagHistory>(`${tagPath(bizTag)}/history/fleet`),
  issued: (bizTag: string, from: string, to: string) =>
    request<IssuedAnswer>(`${tagPath(bizTag)}/issued?from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`),
  decodeId: (bizTag: string, id: string, format: IdForm) =>
    request<DecodedId>(`${tagPath(bizTag)}/decode/${encodeURIComponent(id)}?format=${format}`),
  createTag: (input: CreateTagRequest) =>
    request<{ tag: TagView }>('/api/admin/tags', { method: 'POST', body: input }).then((r) => r.tag),
  updateTag: (bizTag: string, input: UpdateTagRequest) =>
    request<{ tag: TagView }>(tagPath(bizTag), { method: 'PATCH', body: input }).then((r) => r.tag),
  deleteTag: (bizTag: string, confirm: string) =>
    request<{ deleted: true; maxId: string }>(tagPath(bizTag), { method: 'DELETE', body: { confirm } }),

  /** Every node of the registry, without their tags (a node may hold 10,000; one node's are paged below). */
  listNodes: () => request<{ nodes: NodeAnswer[] }>('/api/admin/nodes?tags=none').then((r) => r.nodes),
  nodeTags: (nodeId: string, q: string, limit: number) =>
    request<NodeTagsPage>(
      `/api/admin/nodes/${encodeURIComponent(nodeId)}/tags?${new URLSearchParams({ q, limit: String(limit) })}`,
    ),
  fleet: () => request<FleetSummary>('/api/admin/fleet'),
  semantics: () => request<SemanticsSettings>('/api/admin/semantics'),
  setFleetSemantics: (semantics: Semantics) =>
    request<SemanticsSettings>('/api/admin/semantics', { method: 'PUT', body: { semantics } }),
  listTokens: () => request<{ tokens: TokenView[] }>('/api/admin/tokens').then((r) => r.tokens),
  /** The only answer that carries the token itself (`secret`). */
  createToken: (input: CreateTokenRequest) =>
    request<CreatedToken>('/api/admin/tokens', { method: 'POST', body: input }),
  revokeToken: (id: string) =>
    request<{ token: TokenView }>(`/api/admin/tokens/${encodeURIComponent(id)}`, { method: 'DELETE' }).then(
      (r) => r.token,
    ),
  /** An operator's word that a process is gone for good: no change of ordering waits for it any more. */
  forgetParticipant: (instanceId: string) =>
    request<{ forgotten: string }>(`/api/admin/participants/${encodeURIComponent(instanceId)}`, { method: 'DELETE' }),
  /** One page of the audit trail, newest first; `before` is the previous page's `nextBefore`. */
  audit: ({ tag, before }: { tag?: string; before?: number }) => {
    const params = new URLSearchParams();
    if (tag !== undefined) params.set('tag', tag);
    if (before !== undefined) params.set('before', String(before));
    const query = params.toString();
    return request<AuditPage>(`/api/admin/audit${query === '' ? '' : `?${query}`}`);
  },

  listFormats: () => request<{ formats: FormatView[] }>('/api/admin/formats').then((r) => r.formats),
  getFormat: (bizTag: string) => request<FormatDetail>(formatPath(bizTag)),
  createFormat: (input: CreateFormatRequest) =>
    request<FormatDetail>('/api/admin/formats', { method: 'POST', body: input }),
  updateFormat: (bizTag: string, input: UpdateFormatRequest) =>
    request<FormatDetail>(formatPath(bizTag), { method: 'PATCH', body: input }),
  deleteFormat: (bizTag: string) => request<{ deleted: string }>(formatPath(bizTag), { method: 'DELETE' }),
  /** The real formatted-ID route, as a client would call it. */
  takeFormattedIds: (bizTag: string, count: number, bearer: string | null) =>
    request<{ tag: string; ids: string[] }>(`/api/id/formatted/${encodeURIComponent(bizTag)}?count=${count}`, {
      bearer,
    }).then((r) => r.ids),

  /** The node's public health answer (200 even when degraded; the body says so). */
  health: () => request<HealthView>('/api/health'),

  /** The real ID route, as a client would call it (with the tab's ID token, when one is set: idToken.ts). */
  takeIds: (bizTag: string, count: number, bearer: string | null) =>
    request<{ tag: string; ids: string[] }>(`/api/id/segment/${encodeURIComponent(bizTag)}?count=${count}`, {
      bearer,
    }).then((r) => r.ids),
};
