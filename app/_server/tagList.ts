import { withFleet } from '@/lib/admin/fleetViews';
import { listTags } from '@/lib/admin/service';
import { parseTagListQuery } from '@/lib/admin/tagList';
import type { Runtime } from '@/lib/runtime';

/** One page of the tag list with each row's fleet totals: the answer of GET /api/admin/tags, and the dashboard's first rows. */
export async function tagListAnswer(runtime: Runtime, search: URLSearchParams) {
  const page = await listTags(runtime, parseTagListQuery(search));
  // Only the page's tags of each node's snapshot: a page costs a page, however many tags the nodes hold.
  const nodes = await runtime.fleet.nodesWith(page.tags.map((t) => t.bizTag));
  return { ...page, tags: withFleet(page.tags, nodes) };
}
