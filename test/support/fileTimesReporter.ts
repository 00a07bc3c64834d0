/**
 * A vitest reporter that writes each test file's wall time (its tests and hooks, as the default reporter shows it)
 * to the file LEAF_TEST_TIMES_FILE names; scripts/testSummary.mjs prints the slowest. Without the variable, nothing.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';

export default class FileTimesReporter implements Reporter {
  private readonly times: Array<{ file: string; project: string; ms: number }> = [];

  onTestModuleEnd(module: TestModule): void {
    const { duration, setupDuration, collectDuration } = module.diagnostic();
    this.times.push({
      file: path.relative(process.cwd(), module.moduleId),
      project: module.project.name,
      ms: Math.round(duration + setupDuration + collectDuration),
    });
  }

  onTestRunEnd(): void {
    const out = process.env.LEAF_TEST_TIMES_FILE;
    if (out === undefined || out === '') return;
    fs.writeFileSync(out, JSON.stringify(this.times, null, 1));
  }
}
