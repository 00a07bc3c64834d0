// The last lines of scripts/test.sh: one count over vitest and Playwright, and the five slowest test files.
// Exits 1 when a report is missing (its runner crashed before writing it).
import fs from 'node:fs';

const [vitestFile, timesFile, playwrightFile] = process.argv.slice(2);
const read = (file) => {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
};
let passed = 0;
let failed = 0;
let skipped = 0;
let missing = false;
const files = [];

const vitest = read(vitestFile);
if (vitest === null) missing = true;
else {
  passed += vitest.numPassedTests;
  failed += vitest.numFailedTests;
  if (vitest.numFailedTestSuites > 0) console.log(`test files with a failure: ${vitest.numFailedTestSuites}`);
  skipped += vitest.numPendingTests + vitest.numTodoTests;
}
for (const t of read(timesFile) ?? []) files.push({ name: t.file, ms: t.ms });
if (playwrightFile) {
  const playwright = read(playwrightFile);
  if (playwright === null) missing = true;
  else {
    passed += playwright.stats.expected;
    failed += playwright.stats.unexpected + playwright.stats.flaky;
    skipped += playwright.stats.skipped;
    files.push({ name: 'e2e/ (Playwright, all specs)', ms: playwright.stats.duration });
  }
}
console.log('slowest files:');
for (const f of files.sort((a, b) => b.ms - a.ms).slice(0, 5))
  console.log(`  ${(f.ms / 1000).toFixed(0).padStart(4)} s  ${f.name}`);
console.log(
  `tests: ${passed} passed, ${failed} failed, ${skipped} skipped${missing ? ' (a runner wrote no report)' : ''}`,
);
process.exit(missing ? 1 : 0);
