// `npm run openapi`: writes docs/openapi.json from lib/http/openapi/document.ts (the document /api/openapi.json
// serves). npm test fails while the committed file differs from what the code describes.
import fs from 'node:fs';
import path from 'node:path';
import { openApiDocument } from '../lib/http/openapi/document';

export const OPENAPI_FILE = path.resolve(__dirname, '..', 'docs', 'openapi.json');

export function openApiText(): string {
  return `${JSON.stringify(openApiDocument(), null, 2)}\n`;
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === __filename) {
  fs.writeFileSync(OPENAPI_FILE, openApiText());
  process.stdout.write(`wrote ${path.relative(process.cwd(), OPENAPI_FILE)}\n`);
}
