/**
 * `npm install` says nothing about install scripts: every dependency in the lockfile that has one is named in
 * package.json's allowScripts — approved (better-sqlite3 builds its native module) or denied (esbuild's only
 * checks the binary its optional dependency already brought) — as npm's own review is computed.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';

const ROOT = path.resolve(__dirname, '../..');
const read = (file: string) => JSON.parse(fs.readFileSync(path.join(ROOT, file), 'utf8')) as Record<string, unknown>;

it('every dependency with an install script is approved or denied in allowScripts', () => {
  const allow = read('package.json').allowScripts as Record<string, boolean>;
  const lock = read('package-lock.json').packages as Record<string, { hasInstallScript?: boolean }>;
  const withScripts = Object.entries(lock)
    .filter(([, entry]) => entry.hasInstallScript === true)
    .map(([where]) => where.slice(where.lastIndexOf('node_modules/') + 'node_modules/'.length));
  expect(withScripts.length).toBeGreaterThan(0);
  expect(withScripts.filter((name) => typeof allow[name] !== 'boolean')).toEqual([]);
  expect(allow['better-sqlite3'], 'better-sqlite3 must build its native module').toBe(true);
});
