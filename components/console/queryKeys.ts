/** The console's query keys, in a plain module so the server can seed the same cache entries the pages read. */
import type { TagListParams } from './listParams';

/** Keys go generic to specific, so an invalidation names exactly what changed. */
export const tagKeys = {
  all: ['tags'] as const,
  /** Every page of the list (what a mutation invalidates); with params, one page. */
  list: () => [...tagKeys.all, 'list'] as const,
  page: (params: TagListParams) => [...tagKeys.list(), params] as const,
  detail: (bizTag: string) => [...tagKeys.all, 'detail', bizTag] as const,
  fleetHistory: (bizTag: string) => [...tagKeys.all, 'fleet-history', bizTag] as const,
};

export const nodeKeys = {
  all: ['nodes'] as const,
  list: () => [...nodeKeys.all, 'list'] as const,
  tags: (nodeId: string, q: string, limit: number) => [...nodeKeys.all, 'tags', nodeId, q, limit] as const,
};

export const fleetKeys = {
  all: ['fleet'] as const,
};

export const semanticsKeys = { all: ['semantics'] as const };
export const tokenKeys = { all: ['tokens'] as const };

export const formatKeys = {
  all: ['formats'] as const,
  list: () => [...formatKeys.all, 'list'] as const,
  detail: (bizTag: string) => [...formatKeys.all, 'detail', bizTag] as const,
};

export const healthKeys = {
  all: ['health'] as const,
};

export const sessionKeys = {
  all: ['session'] as const,
};

/** The live console sessions (kept apart from sessionKeys: refetching the list must not re-check sign-in). */
export const liveSessionKeys = { all: ['live-sessions'] as const };

/** The whole trail, or one tag's entries (`tag` undefined: every entry). */
export const auditKeys = {
  all: ['audit'] as const,
  list: (tag?: string) => [...auditKeys.all, 'list', tag ?? null] as const,
};
