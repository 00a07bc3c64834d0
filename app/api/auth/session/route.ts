import { json, methodsNotAllowed, route } from '@/lib/http/consoleRoute';

export const dynamic = 'force-dynamic';

export const GET = route(async ({ who }) => json({ authenticated: who.credential !== null }), { public: true });

// Every other method: 405 JSON with Allow (Next would answer an empty 405).
export const { POST, PUT, PATCH, DELETE } = methodsNotAllowed('GET');
