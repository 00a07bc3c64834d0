'use client';

import {
  MutationCache,
  QueryCache,
  QueryClient,
  infiniteQueryOptions,
  keepPreviousData,
  queryOptions,
  useInfiniteQuery,
  useMutation,
  useQuery,
  useQueryClient,
} from '@tanstack/react-query';
import {
  type CreateFormatRequest,
  type CreateTagRequest,
  type CreateTokenRequest,
  type Semantics,
  type TagListParams,
  type UpdateFormatRequest,
  type UpdateTagRequest,
  api,
  isApiError,
} from './api';
import { readIdToken } from './idToken';
import {
  auditKeys,
  fleetKeys,
  formatKeys,
  healthKeys,
  nodeKeys,
  semanticsKeys,
  sessionKeys,
  liveSessionKeys,
  tagKeys,
  tokenKeys,
} from './queryKeys';

/** A mutation that calls an ID route (`/api/id/…`) rather than the admin API. */
const ID_ROUTE = { idRoute: true } as const;

/** Live views poll at this interval. */
export const POLL_MS = 2_000;

/** Health costs the server a probe of every database host (cached there for 1 s), so it is polled less often. */
export const HEALTH_POLL_MS = 3_000;

/** Newest first, page by page ("Older" loads the next); polled, so changes made through other nodes appear. */
export const auditQuery = (tag?: string) =>
  infiniteQueryOptions({
    queryKey: auditKeys.list(tag),
    queryFn: ({ pageParam }) => api.audit({ tag, before: pageParam }),
    initialPageParam: undefined as number | undefined,
    getNextPageParam: (last) => last.nextBefore ?? undefined,
    refetchInterval: POLL_MS,
  });

export function useAudit(tag?: string) {
  return useInfiniteQuery(auditQuery(tag));
}

export const sessionQuery = () => queryOptions({ queryKey: sessionKeys.all, queryFn: api.session, staleTime: 30_000 });
/** One page of the list, polled: only what the screen shows travels. The previous page stays up while the next loads. */
export const tagListQuery = (params: TagListParams) =>
  queryOptions({
    queryKey: tagKeys.page(params),
    queryFn: () => api.listTags(params),
    // Fresh for one poll: the page that came with the HTML is not asked for again at once.
    staleTime: POLL_MS,
    refetchInterval: POLL_MS,
    placeholderData: keepPreviousData,
  });
export const healthQuery = () =>
  queryOptions({ queryKey: healthKeys.all, queryFn: api.health, refetchInterval: HEALTH_POLL_MS });
export const nodeListQuery = () =>
  queryOptions({ queryKey: nodeKeys.list(), queryFn: api.listNodes, refetchInterval: POLL_MS });
export const nodeTagsQuery = (nodeId: string, q: string, limit: number) =>
  queryOptions({
    queryKey: nodeKeys.tags(nodeId, q, limit),
    queryFn: () => api.nodeTags(nodeId, q, limit),
    refetchInterval: POLL_MS,
  });
export const fleetQuery = () => queryOptions({ queryKey: fleetKeys.all, queryFn: api.fleet, refetchInterval: POLL_MS });
export const tagDetailQuery = (bizTag: string) =>
  queryOptions({ queryKey: tagKeys.detail(bizTag), queryFn: () => api.getTag(bizTag), refetchInterval: POLL_MS });

/**
 * One client per browser tab. Any 401 marks the session as gone, so the session guard sends the operator to
 * the login page; 4xx answers are not retried (they will not change), others once.
 */
export function createQueryClient(): QueryClient {
  const client: QueryClient = new QueryClient({
    queryCache: new QueryCache({ onError: (error) => onUnauthorized(error) }),
    // An ID route's 401 is about the ID token (idToken.ts), not the console session: it must not sign anyone out.
    mutationCache: new MutationCache({
      onError: (error, _vars, _ctx, mutation) => mutation.meta?.idRoute === true || onUnauthorized(error),
    }),
    defaultOptions: {
      queries: {
        retry: (failures, error) => !(isApiError(error) && error.status >= 400 && error.status < 500) && failures < 1,
        refetchOnWindowFocus: true,
      },
      mutations: { retry: false },
    },
  });
  function onUnauthorized(error: unknown) {
    if (isApiError(error) && error.status === 401 && error.code === 'unauthorized') {
      client.setQueryData(sessionKeys.all, { authenticated: false });
    }
  }
  return client;
}

export function useSession() {
  return useQuery(sessionQuery());
}

export function useTags(params: TagListParams) {
  return useQuery(tagListQuery(params));
}

export function useHealth() {
  return useQuery(healthQuery());
}

export function useNodes() {
  return useQuery(nodeListQuery());
}

export function useNodeTags(nodeId: string, q: string, limit: number) {
  return useQuery(nodeTagsQuery(nodeId, q, limit));
}

export function useFleet() {
  return useQuery(fleetQuery());
}

export function useTag(bizTag: string) {
  return useQuery(tagDetailQuery(bizTag));
}

/** Every node's record of the tag, read only while a chart shows the fleet or another node. */
export function useFleetHistory(bizTag: string, enabled: boolean) {
  return useQuery({
    queryKey: tagKeys.fleetHistory(bizTag),
    queryFn: () => api.getFleetHistory(bizTag),
    refetchInterval: POLL_MS,
    enabled,
  });
}

export function useLogin() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (token: string) => api.login(token),
    onSuccess: async () => {
      // A session check sent before the cookie existed must not land afterwards and undo the login.
      await client.cancelQueries({ queryKey: sessionKeys.all });
      client.setQueryData(sessionKeys.all, { authenticated: true });
      void client.invalidateQueries({ queryKey: tagKeys.all });
    },
  });
}

/** This tab is signed out: no session check in flight may land afterwards, and no tag data stays behind. */
async function signedOut(client: QueryClient): Promise<void> {
  await client.cancelQueries({ queryKey: sessionKeys.all });
  client.removeQueries({ queryKey: tagKeys.all });
  client.setQueryData(sessionKeys.all, { authenticated: false });
}

export function useLogout() {
  const client = useQueryClient();
  return useMutation({ mutationFn: api.logout, onSettled: () => signedOut(client) });
}

export function useLiveSessions() {
  return useQuery({ queryKey: liveSessionKeys.all, queryFn: api.listSessions, refetchInterval: POLL_MS });
}

/** Ending a session writes an audit entry; ending this tab's own session signs it out (the next 401 does that). */
export function useEndSession() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api.endSession(id),
    onSettled: () =>
      Promise.all([
        client.invalidateQueries({ queryKey: liveSessionKeys.all }),
        client.invalidateQueries({ queryKey: auditKeys.all }),
      ]),
  });
}

/** "Sign out everywhere": this tab's session ends too, so it signs out like a logout. */
export function useEndAllSessions() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: api.endAllSessions,
    onSuccess: () => signedOut(client),
  });
}

export function useCreateTag() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: CreateTagRequest) => api.createTag(input),
    onSuccess: () => client.invalidateQueries({ queryKey: tagKeys.list() }),
  });
}

export function useTokens() {
  return useQuery({ queryKey: tokenKeys.all, queryFn: api.listTokens, refetchInterval: POLL_MS });
}

/** Create and revoke write an audit entry: the token list and the audit refresh. */
function invalidateTokens(client: QueryClient) {
  return Promise.all([
    client.invalidateQueries({ queryKey: tokenKeys.all }),
    client.invalidateQueries({ queryKey: auditKeys.all }),
  ]);
}

export function useCreateToken() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: CreateTokenRequest) => api.createToken(input),
    onSuccess: () => invalidateTokens(client),
  });
}

export function useRevokeToken() {
  const client = useQueryClient();
  return useMutation({ mutationFn: (id: string) => api.revokeToken(id), onSuccess: () => invalidateTokens(client) });
}

export function useUpdateTag(bizTag: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: UpdateTagRequest) => api.updateTag(bizTag, input),
    onSuccess: (_tag, input) =>
      input.semantics !== undefined
        ? invalidateAfterSwitch(client)
        : Promise.all([
            client.invalidateQueries({ queryKey: tagKeys.detail(bizTag) }),
            client.invalidateQueries({ queryKey: tagKeys.list() }),
          ]),
  });
}

/** Forgets a process a change of ordering waits for; the tag's view then shows the change complete. */
export function useForgetParticipant(bizTag: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (instanceId: string) => api.forgetParticipant(instanceId),
    onSuccess: () =>
      Promise.all([
        client.invalidateQueries({ queryKey: tagKeys.detail(bizTag) }),
        client.invalidateQueries({ queryKey: auditKeys.all }),
      ]),
  });
}

export function useSemantics() {
  return useQuery({ queryKey: semanticsKeys.all, queryFn: api.semantics, refetchInterval: POLL_MS });
}

/** A switch moves max_id (the skip) and writes an audit entry: the tags and the audit refresh too. */
function invalidateAfterSwitch(client: QueryClient) {
  return Promise.all([
    client.invalidateQueries({ queryKey: semanticsKeys.all }),
    client.invalidateQueries({ queryKey: tagKeys.all }),
    client.invalidateQueries({ queryKey: auditKeys.all }),
  ]);
}

export function useSetFleetSemantics() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (semantics: Semantics) => api.setFleetSemantics(semantics),
    onSuccess: () => invalidateAfterSwitch(client),
  });
}

export function useDeleteTag(bizTag: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (confirm: string) => api.deleteTag(bizTag, confirm),
    onSuccess: () => {
      client.removeQueries({ queryKey: tagKeys.detail(bizTag) });
      return client.invalidateQueries({ queryKey: tagKeys.list() });
    },
  });
}

/** Takes IDs through the real ID route; the tag's numbers (rate, buffer) change, so its views refresh. */
export function useTakeIds(bizTag: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (count: number) => api.takeIds(bizTag, count, readIdToken()),
    meta: ID_ROUTE,
    onSuccess: () =>
      Promise.all([
        client.invalidateQueries({ queryKey: tagKeys.detail(bizTag) }),
        client.invalidateQueries({ queryKey: tagKeys.list() }),
      ]),
  });
}

export function useFormats() {
  return useQuery({ queryKey: formatKeys.list(), queryFn: api.listFormats, refetchInterval: POLL_MS });
}

export function useFormat(bizTag: string) {
  return useQuery({
    queryKey: formatKeys.detail(bizTag),
    queryFn: () => api.getFormat(bizTag),
    refetchInterval: POLL_MS,
  });
}

/** Every change writes an audit entry and moves the list: formats and the audit refresh. */
function invalidateFormats(client: QueryClient) {
  return Promise.all([
    client.invalidateQueries({ queryKey: formatKeys.all }),
    client.invalidateQueries({ queryKey: auditKeys.all }),
  ]);
}

export function useCreateFormat() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: CreateFormatRequest) => api.createFormat(input),
    onSuccess: () => invalidateFormats(client),
  });
}

export function useUpdateFormat(bizTag: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: UpdateFormatRequest) => api.updateFormat(bizTag, input),
    onSuccess: () => invalidateFormats(client),
  });
}

export function useDeleteFormat(bizTag: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: () => api.deleteFormat(bizTag),
    onSuccess: () => {
      client.removeQueries({ queryKey: formatKeys.detail(bizTag) });
      return invalidateFormats(client);
    },
  });
}

/** Takes IDs through the real formatted route; the period counts change, so the format's views refresh. */
export function useTakeFormattedIds(bizTag: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (count: number) => api.takeFormattedIds(bizTag, count, readIdToken()),
    meta: ID_ROUTE,
    onSuccess: () => client.invalidateQueries({ queryKey: formatKeys.all }),
  });
}
