/** `npm start` and `npm run serve` run the server with the Node flags the bench's servers use, in one process. */
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import serverNodeFlags from '../../scripts/serverNodeFlags.cjs';

const ROOT = path.resolve(__dirname, '../..');
const scripts = (
  JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
).scripts;

it.each([
  ['start', ''],
  ['serve', ' --no-build'],
])(
  'npm %s execs node with the server flags and scripts/start.mjs (no shell or launcher left between npm and the server)',
  (name, extra) => {
    expect(scripts[name]).toBe(`exec node ${serverNodeFlags.join(' ')} --import tsx scripts/start.mjs${extra}`);
  },
);
