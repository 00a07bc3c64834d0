/**
 * The API description cannot drift: the committed docs/openapi.json is what the code describes (`npm run openapi`
 * writes it), a real validator (Redocly's recommended rules) passes it with no warning, and it has every route
 * the app and the ID handler answer — no more, no fewer. The contract tests check every answer against it.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { ID_ROUTES, SUFFIX_ROUTES } from '../../lib/http/routes';
import { openApiDocument } from '../../lib/http/openapi/document';
import { OPENAPI_FILE, openApiText } from '../../scripts/openapi';

const ROOT = path.resolve(__dirname, '../..');
const paths = Object.keys((openApiDocument() as { paths: Record<string, unknown> }).paths);

it('docs/openapi.json is the document the code describes (run npm run openapi after a change)', () => {
  expect(fs.readFileSync(OPENAPI_FILE, 'utf8')).toBe(openApiText());
});

it('passes redocly lint (recommended rules) without an error or a warning', () => {
  const cli = path.join(ROOT, 'node_modules/@redocly/cli/bin/cli.js');
  const r = spawnSync(process.execPath, [cli, 'lint', OPENAPI_FILE, '--format=json'], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
  });
  const report = JSON.parse(r.stdout) as { totals: { errors: number; warnings: number }; problems: unknown[] };
  expect(report.problems, r.stderr).toEqual([]);
  expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  expect(r.status).toBe(0);
}, 60_000);

it('describes every route the app answers, and nothing else', () => {
  const appRoutes = fs
    .readdirSync(path.join(ROOT, 'app', 'api'), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('route.ts'))
    .map((file) => `/api/${path.dirname(file)}`.replace(/\[([^\]]+)\]/g, '{$1}'))
    // The catch-all hands to the ID handler (its routes are below); the benchmark's route is off unless enabled.
    .filter((route) => route !== '/api/{...rest}' && route !== '/api/bench/constant');
  const idRoutes = ID_ROUTES.map((r) => (r.param ? `${r.path}{}` : r.path));
  const described = paths.map((p) => p.replace(/\{[^}]+\}$/, '{}'));
  for (const route of [...appRoutes.map((r) => r.replace(/\{[^}]+\}$/, '{}')), ...idRoutes])
    expect(described, `${route} is answered but not described`).toContain(route);
  const suffixed = SUFFIX_ROUTES.map((s) => `${ID_ROUTES.find((r) => r.kind === s.under)?.path}{tag}${s.suffix}`);
  const answered = new Set([...appRoutes.map((r) => r.replace(/\{[^}]+\}$/, '{}')), ...idRoutes, ...suffixed]);
  for (const p of described) expect([...answered], `${p} is described but nothing answers it`).toContain(p);
});
