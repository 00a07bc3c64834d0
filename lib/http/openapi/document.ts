/** The OpenAPI 3.1 document of every route (docs/openapi.json), which the contract tests check every answer against. */
import { LEAF_VERSION } from '../../version';
import { ADMIN_PATHS } from './adminPaths';
import { SCHEMAS } from './components';
import { ID_PATHS } from './idPaths';
import type { Operation } from './parts';

/** `GET /api/id/segment/{tag}/range` → `getIdSegmentTagRange`: a stable, unique name per operation. */
function withOperationIds(paths: Record<string, Record<string, Operation>>): Record<string, Record<string, Operation>> {
  return Object.fromEntries(
    Object.entries(paths).map(([path, operations]) => {
      const words = path
        .replace(/^\/api\//, '')
        .split(/[/.{}-]+/)
        .filter(Boolean);
      const name = words.map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join('');
      return [
        path,
        Object.fromEntries(Object.entries(operations).map(([m, op]) => [m, { operationId: `${m}${name}`, ...op }])),
      ];
    }),
  );
}

/** The whole document. */
export function openApiDocument(): Record<string, unknown> {
  return {
    openapi: '3.1.0',
    info: {
      title: 'leaf-ts',
      version: LEAF_VERSION,
      description:
        'Unique, trend-increasing 64-bit IDs per business tag, and the admin API of the console. IDs travel as ' +
        'decimal strings (exact up to 2^63−1). Guide: docs/api.md.',
    },
    servers: [{ url: '/', description: 'the node that serves this document' }],
    paths: withOperationIds({ ...ID_PATHS, ...ADMIN_PATHS }),
    components: {
      schemas: SCHEMAS,
      securitySchemes: {
        idToken: {
          type: 'http',
          scheme: 'bearer',
          description: 'LEAF_ID_TOKEN or an access token (the admin token is not one: it is for the admin routes)',
        },
        adminToken: { type: 'http', scheme: 'bearer', description: 'the admin token (LEAF_ADMIN_TOKEN)' },
        session: { type: 'apiKey', in: 'cookie', name: 'leaf_session', description: 'the console session' },
      },
    },
  };
}
