import { idRouteHandlers } from '@/app/_server/idRoute';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

export const { GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS } = idRouteHandlers();
