import { json, methodsNotAllowed, route } from '@/lib/http/consoleRoute';
import { auditPage, parseAuditQuery } from '@/lib/admin/service';

export const dynamic = 'force-dynamic';

/** `?before=<id>&limit=N&tag=<bizTag>` → `{"entries":[…],"nextBefore":id|null}`, newest first. */
export const GET = route(async ({ request, runtime }) =>
  json(await auditPage(runtime, parseAuditQuery(new URL(request.url).searchParams))),
);

// Every other method: 405 JSON with Allow. The trail is append-only: nothing edits or deletes an entry.
export const { POST, PUT, PATCH, DELETE } = methodsNotAllowed('GET');
