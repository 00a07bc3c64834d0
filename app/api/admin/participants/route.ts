import { json, methodsNotAllowed, route } from '@/lib/http/consoleRoute';
import { listParticipants } from '@/lib/admin/participants';

export const dynamic = 'force-dynamic';

/** Every process registered for changes of ordering (nodes and embedded processes), with the version it applied. */
export const GET = route(async ({ runtime }) => json(await listParticipants(runtime)));

export const { POST, PUT, PATCH, DELETE } = methodsNotAllowed('GET');
