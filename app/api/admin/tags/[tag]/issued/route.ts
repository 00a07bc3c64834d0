import { json, methodsNotAllowed, route } from '@/lib/http/consoleRoute';
import { tagFromParam } from '@/lib/admin/service';
import { issuedBetween, issuedWindow } from '@/lib/admin/tagIssued';

export const dynamic = 'force-dynamic';

/** The IDs of the tag that can have been handed out between `from` and `to`, from the claim log (lib/claims/). */
export const GET = route<{ tag: string }>(async ({ request, runtime, params }) => {
  const bizTag = tagFromParam(params.tag);
  const window = issuedWindow(new URL(request.url).search);
  return json(await issuedBetween(runtime.store, bizTag, window, runtime.config.claimLog.days));
});

export const { POST, PUT, PATCH, DELETE } = methodsNotAllowed('GET');
