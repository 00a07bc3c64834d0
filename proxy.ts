import { NextResponse, type NextRequest } from 'next/server';
import { LeafError } from '@/lib/errors';
import { errorAnswer, toResponse } from '@/lib/http/answer';
import { isSecureRequest } from '@/lib/http/origin';
import { contentSecurityPolicy, newNonce, pageSecurityHeaders } from '@/lib/http/securityHeaders';

/**
 * Before Next's routes. Under /api: Next decodes route params before a route handler runs and answers a malformed
 * escape (`%E0%A4%A`) with a bare 500, so a malformed path is answered 400 JSON here, as the fast lane does. Every
 * page: a Content-Security-Policy with a nonce of its own (Next puts it on its scripts) and the other security
 * headers (lib/http/securityHeaders.ts).
 */
export function proxy(request: NextRequest) {
  if (request.nextUrl.pathname.startsWith('/api/')) {
    try {
      decodeURIComponent(request.nextUrl.pathname);
      return NextResponse.next();
    } catch {
      return toResponse(errorAnswer(new LeafError('invalid_tag', 'The path is not valid percent-encoding.')));
    }
  }
  const nonce = newNonce();
  const policy = contentSecurityPolicy(nonce, process.env.NODE_ENV === 'development');
  const headers = new Headers(request.headers);
  headers.set('x-nonce', nonce);
  headers.set('content-security-policy', policy);
  const response = NextResponse.next({ request: { headers } });
  response.headers.set('content-security-policy', policy);
  for (const [name, value] of Object.entries(pageSecurityHeaders(isSecureRequest(request.headers))))
    response.headers.set(name, value);
  return response;
}

// Everything but Next's immutable build files (they carry no page, and nosniff comes with their content type).
export const config = { matcher: ['/((?!_next/static|_next/image).*)'] };
