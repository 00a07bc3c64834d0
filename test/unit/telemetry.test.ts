/** Next's telemetry is off wherever leaf-ts builds or runs Next (issue 38): the scripts, and both stages of the image. */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';

describe('Next telemetry', () => {
  it('is off in the container build before `next build`, and in the image the server runs in', () => {
    const lines = fs.readFileSync('Dockerfile', 'utf8').split('\n');
    const stages = lines.map((l, i) => [l, i] as const).filter(([l]) => /^FROM /.test(l));
    expect(stages.length).toBe(2);
    const build = lines.slice(stages[0]![1], stages[1]![1]);
    const run = lines.slice(stages[1]![1]);
    const disabled = (l: string) => /^ENV .*\bNEXT_TELEMETRY_DISABLED=1\b/.test(l);
    const buildAt = build.findIndex((l) => /\bnext build\b/.test(l));
    expect(buildAt).toBeGreaterThan(-1);
    expect(build.slice(0, buildAt).some(disabled)).toBe(true);
    expect(run.some(disabled)).toBe(true);
  });

  it('is off in npm start, build and dev unless the operator set the variable', () => {
    expect(fs.readFileSync('scripts/start.mjs', 'utf8')).toMatch(/process\.env\.NEXT_TELEMETRY_DISABLED \?\?= '1'/);
    const scripts = JSON.parse(fs.readFileSync('package.json', 'utf8')).scripts as Record<string, string>;
    for (const name of ['build', 'dev'])
      expect(scripts[name]).toMatch(/NEXT_TELEMETRY_DISABLED=\$\{NEXT_TELEMETRY_DISABLED:-1\}/);
  });
});
