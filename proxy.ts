import { NextResponse, type NextRequest } from 'next/server';

/**
 * Next decodes route params before a route handler runs and answers a malformed escape (`%E0%A4%A`) with a bare
 * 500. Malformed paths under the ID routes are bad input: answer 400 JSON here, as the fast lane does.
 */
export function proxy(request: NextRequest) {
  try {
    decodeURIComponent(request.nextUrl.pathname);
    return NextResponse.next();
  } catch {
    return NextResponse.json(
      { error: { code: 'invalid_tag', message: 'The path is not valid percent-encoding.' } },
      { status: 400, headers: { 'cache-control': 'no-store' } },
    );
  }
}

export const config = { matcher: ['/api/:path*'] };
