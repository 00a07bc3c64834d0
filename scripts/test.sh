#!/usr/bin/env bash
# `npm test`: everything, from a fresh clone. Type-check, lint, build the app, then one vitest run over the unit,
# contract (real server, both lanes), integration (real MariaDB, PostgreSQL + SQLite, multi-process) and chaos projects,
# then the Playwright e2e suite.
# MariaDB and PostgreSQL are installed from Debian packages when missing and started as throwaway servers on 127.0.0.1.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .tmp
rm -f .tmp/vitest.json .tmp/playwright.json

step() { printf '\n== %s\n' "$*"; }

if [ ! -d node_modules ]; then step "installing npm packages (npm ci)"; npm ci; fi

step "type-check (strict, noUncheckedIndexedAccess)"
npx tsc --noEmit

step "lint (ESLint, with the import boundaries) and format (Prettier)"
npx eslint .
npx prettier --check . --log-level warn

step "build (next build)"
npx next build > .tmp/build.log 2>&1 || { cat .tmp/build.log; exit 1; }
tail -n 12 .tmp/build.log

step "tests: unit, contract, integration, chaos (small)"
status=0
npx vitest run --reporter=default --reporter=json --outputFile=.tmp/vitest.json "$@" || status=$?

step "e2e: operator console (Playwright, Debian chromium)"
[ -x /usr/bin/chromium ] || npx tsx tools/harness/install.ts chromium chromium >/dev/null
PLAYWRIGHT_JSON_OUTPUT_NAME=.tmp/playwright.json npx playwright test --reporter=list,json || status=$?

# One plain summary line over both runners (vitest and Playwright).
node -e '
  const fs = require("fs");
  const read = (f) => { try { return JSON.parse(fs.readFileSync(f, "utf8")); } catch { return null; } };
  const v = read(".tmp/vitest.json");
  const p = read(".tmp/playwright.json");
  let passed = 0, failed = 0, skipped = 0;
  if (v) { passed += v.numPassedTests; failed += v.numFailedTests; skipped += v.numPendingTests + v.numTodoTests; }
  else failed += 1;
  if (p) { passed += p.stats.expected; failed += p.stats.unexpected + p.stats.flaky; skipped += p.stats.skipped; }
  else failed += 1;
  console.log(`\ntests: ${passed} passed, ${failed} failed, ${skipped} skipped`);
' || true
exit $status
