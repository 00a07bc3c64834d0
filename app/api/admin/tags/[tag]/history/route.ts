import { json, methodsNotAllowed, route } from '@/lib/http/consoleRoute';
import { tagNotFound } from '@/lib/errors';
import { tagFromParam } from '@/lib/admin/service';
import { ownTagHistory } from '@/lib/admin/tagHistory';

export const dynamic = 'force-dynamic';

/** This node's own record of the tag: the buckets it sampled and its recent claims (peers read it for the fleet). */
export const GET = route<{ tag: string }>(async ({ runtime, params }) => {
  const bizTag = tagFromParam(params.tag);
  if ((await runtime.store.tags.getTag(bizTag)) === undefined) throw tagNotFound(bizTag);
  return json(ownTagHistory(runtime.fleet, runtime.console, bizTag));
});

export const { POST, PUT, PATCH, DELETE } = methodsNotAllowed('GET');
