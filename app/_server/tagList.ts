import { withFleet } from '@/lib/admin/fleetViews';
import { listTags } from '@/lib/admin/service';
import { parseTagListQuery } from '@/lib/admin/tagList';
import type { Runtime } from '@/lib/runtime';
import { fleetNodes } from './fleet';

/** One page of the tag list with each row's fleet totals: the answer of GET /api/admin/tags, and the dashboard's first rows. */
export async function tagListAnswer(runtime: Runtime, search: URLSearchParams) {
  const [page, nodes] = await Promise.all([listTags(runtime, parseTagListQuery(search)), fleetNodes(runtime)]);
  return { ...page, tags: withFleet(page.tags, nodes) };
}
