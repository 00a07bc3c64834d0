import { json } from '@/app/_server/adminRoute';

export const dynamic = 'force-dynamic';

/** Any /api path no route owns: a JSON 404, not Next's HTML page. */
const notFound = async () => json({ error: { code: 'route_not_found', message: 'No such route.' } }, 404);

export const GET = notFound;
export const POST = notFound;
export const PUT = notFound;
export const PATCH = notFound;
export const DELETE = notFound;
export const OPTIONS = notFound;
