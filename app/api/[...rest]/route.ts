import { processIdHandler } from '@/lib/http/defaultHandler';
import { handleWebRequest } from '@/lib/http/web';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

/**
 * Every /api path no admin or auth route owns: the ID routes (their one list is in lib/http/idHandler.ts, which
 * answers 405 JSON for anything but GET) and, for any other path, a JSON 404 — not Next's HTML page.
 */
const handle = (request: Request) => handleWebRequest(processIdHandler(), request);

export const GET = handle;
export const POST = handle;
export const PUT = handle;
export const PATCH = handle;
export const DELETE = handle;
export const HEAD = handle;
export const OPTIONS = handle;
