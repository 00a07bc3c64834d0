import { json, methodsNotAllowed, route } from '@/lib/http/consoleRoute';
import { tagNotFound } from '@/lib/errors';
import { tagFromParam } from '@/lib/admin/service';
import { fleetTagHistory } from '@/lib/admin/fleetHistory';
import { RATE_BUCKET_MS, ownTagHistory, peerHistoryReader } from '@/lib/admin/tagHistory';
import { fleetNodes } from '@/app/_server/fleet';

export const dynamic = 'force-dynamic';

/** A peer that does not answer within this shows as unknown rather than holding the page. */
const PEER_TIMEOUT_MS = 2_000;

/** Every registered node's own record of the tag, and their sum per bucket (null where a part is unknown). */
export const GET = route<{ tag: string }>(async ({ runtime, params }) => {
  const bizTag = tagFromParam(params.tag);
  if ((await runtime.store.tags.getTag(bizTag)) === undefined) throw tagNotFound(bizTag);
  return json(
    await fleetTagHistory(await fleetNodes(runtime), bizTag, {
      selfId: runtime.fleet.nodeId,
      own: ownTagHistory(runtime.fleet, runtime.console, bizTag),
      readPeer: peerHistoryReader(runtime.console.admin.token, PEER_TIMEOUT_MS),
      bucketMs: RATE_BUCKET_MS,
    }),
  );
});

export const { POST, PUT, PATCH, DELETE } = methodsNotAllowed('GET');
