import { idHandler } from '@/lib/http/defaultHandler';
import { handleWebRequest } from '@/lib/http/web';

/** Every method goes to the shared handler, which answers 405 JSON for anything but GET. */
export function idRouteHandlers() {
  const handle = (request: Request) => handleWebRequest(idHandler, request);
  return { GET: handle, POST: handle, PUT: handle, PATCH: handle, DELETE: handle, HEAD: handle, OPTIONS: handle };
}
