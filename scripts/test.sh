#!/usr/bin/env bash
# The two test tiers (docs/testing.md#the-two-tiers):
#   npm test              bash scripts/test.sh main     type-check, lint, format, build, unit, contract, integration
#                                                       (SQLite, MariaDB, PostgreSQL), serial (stops, packages, …), e2e
#   npm run test:cluster  bash scripts/test.sh cluster  Galera, Patroni, HAProxy, the container image, the chaos runs
# Arguments after the tier go to vitest. Servers are Debian packages, installed when missing, started on 127.0.0.1.
# LEAF_TEST_LOAD=N runs N CPU-bound busy loops beside the whole run: the suite must pass on a busy machine too.
set -euo pipefail
cd "$(dirname "$0")/.."
tier=${1:-main}
shift || true
case "$tier" in
  main) projects=(--project unit --project contract --project integration --project serial) ;;
  cluster) projects=(--project cluster --project chaos) ;;
  *) echo "usage: scripts/test.sh main|cluster [vitest args…]" >&2; exit 2 ;;
esac
mkdir -p .tmp
json=".tmp/vitest-$tier.json"
export LEAF_TEST_TIMES_FILE=".tmp/file-times-$tier.json"
rm -f "$json" "$LEAF_TEST_TIMES_FILE" .tmp/playwright.json
run_started=$SECONDS
phase=''
phase_started=$SECONDS

# Each phase says what it is, and how long the one before took.
step() {
  [ -z "$phase" ] || printf '== %s: %d s\n' "$phase" $((SECONDS - phase_started))
  phase=$1
  phase_started=$SECONDS
  printf '\n== %s\n' "$phase"
}

reporters=(--reporter=default --reporter=json --outputFile="$json" --reporter=./test/support/fileTimesReporter.ts)

load_pids=()
stop_load() { for pid in "${load_pids[@]}"; do kill "$pid" 2>/dev/null || true; done; }
trap stop_load EXIT
if [ "${LEAF_TEST_LOAD:-0}" -gt 0 ]; then
  for _ in $(seq "$LEAF_TEST_LOAD"); do
    bash -c 'while :; do :; done' &
    load_pids+=($!)
  done
  echo "LEAF_TEST_LOAD=$LEAF_TEST_LOAD: busy loops ${load_pids[*]} run beside the suite"
fi

if [ ! -d node_modules ]; then step "installing npm packages (npm ci)"; npm ci; fi

status=0
if [ "$tier" = main ]; then
  step "type-check (strict, noUncheckedIndexedAccess)"
  npx tsc --noEmit

  step "lint (ESLint, with the import boundaries) and format (Prettier)"
  npx eslint .
  npx prettier --check . --log-level warn

  step "build (next build, through the launcher as a first npm start builds)"
  rm -f .next/BUILD_ID # a build every run: the launcher builds when none is there
  node --import tsx scripts/start.mjs --build-only > .tmp/build.log 2>&1 || { cat .tmp/build.log; exit 1; }
  tail -n 12 .tmp/build.log

  step "tests: unit, contract, integration, serial"
  npx vitest run "${projects[@]}" "${reporters[@]}" "$@" || status=$?

  step "e2e: operator console (Playwright, Debian chromium)"
  [ -x /usr/bin/chromium ] || npx tsx tools/harness/install.ts chromium chromium >/dev/null
  PLAYWRIGHT_JSON_OUTPUT_NAME=.tmp/playwright.json npx playwright test --reporter=list,json || status=$?
else
  step "build (when the sources are newer than .next)"
  node --import tsx scripts/start.mjs --build-only

  step "tests: cluster (Galera, Patroni, HAProxy, container image), chaos"
  npx vitest run "${projects[@]}" "${reporters[@]}" "$@" || status=$?
fi
step "summary"

# One plain summary over both runners, and the slowest files: where the time went.
node scripts/testSummary.mjs "$json" "$LEAF_TEST_TIMES_FILE" "$([ "$tier" = main ] && echo .tmp/playwright.json)" || status=1
printf '%s tier: %d s in all\n' "$tier" $((SECONDS - run_started))
exit $status
