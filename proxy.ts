import { NextResponse, type NextRequest } from 'next/server';
import { LeafError } from '@/lib/errors';
import { errorAnswer, toResponse } from '@/lib/http/answer';

/**
 * Next decodes route params before a route handler runs and answers a malformed escape (`%E0%A4%A`) with a bare
 * 500. Malformed paths under /api are bad input: answer 400 JSON here, as the fast lane does.
 */
export function proxy(request: NextRequest) {
  try {
    decodeURIComponent(request.nextUrl.pathname);
    return NextResponse.next();
  } catch {
    return toResponse(errorAnswer(new LeafError('invalid_tag', 'The path is not valid percent-encoding.')));
  }
}

export const config = { matcher: ['/api/:path*'] };
