#!/usr/bin/env bash
# Puts this machine back to "never ran leaf-ts" (docs/testing.md#a-new-machine): removes every Debian package the
# test suite, the chaos runs and the benchmark install when missing, the packages only they pulled in, the state
# those packages keep, the container images, and the caches kept in /tmp and the home directory between runs.
# Prints what it removed. Then a clean clone's `bash .ci/run` takes every first-time path a new machine takes.
# Needs root. Leaves alone: processes (stop your own first), the checkout, and packages that other packages on the
# machine still need.
set -euo pipefail
[ "$(id -u)" = 0 ] || { echo "forget.sh: run as root (it removes Debian packages)" >&2; exit 1; }

# What tools/harness installs (apt.ts callers): the servers, their tools, the browser.
PACKAGES=(
  mariadb-server mariadb-client galera-4           # MariaDB, Galera (mariadbd.ts, galera.ts)
  postgresql-15 patroni etcd-server                # PostgreSQL, Patroni + etcd (postgres.ts, patroniSetup.ts)
  haproxy prometheus redis-server                  # haproxy.ts, prometheus.ts; redis.ts (the benchmark)
  podman runc debootstrap                          # container.ts
  chromium                                         # the e2e suite (scripts/test.sh)
)
# State the packages keep outside what `apt-get purge` removes, and what earlier harness versions left.
PATHS=(
  /var/lib/mysql /var/lib/postgresql /var/lib/etcd /var/lib/prometheus /var/lib/redis /etc/patroni
  /var/lib/containers /run/containers /etc/containers
)

removed=0
say() { printf 'forget: %s\n' "$*"; removed=$((removed + 1)); }

orphans() { apt-get -s autoremove 2>/dev/null | awk '/^Remv /{print $2}' | sort; }

installed=()
for pkg in "${PACKAGES[@]}"; do
  if dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed'; then installed+=("$pkg"); fi
done
if [ ${#installed[@]} -gt 0 ]; then
  before=$(orphans)
  say "purging ${installed[*]} (and what depends on them)"
  DEBIAN_FRONTEND=noninteractive apt-get -q -y purge "${installed[@]}" | awk '/^(Removing|Purging) /{print "forget:   " $0}'
  # Only the packages this purge orphaned: ones that were already orphaned belong to someone else.
  new=$(comm -13 <(printf '%s\n' "$before") <(orphans) | tr '\n' ' ')
  if [ -n "${new// /}" ]; then
    say "purging what only they pulled in: $new"
    # shellcheck disable=SC2086
    DEBIAN_FRONTEND=noninteractive apt-get -q -y purge $new | awk '/^Purging /{print "forget:   " $0}'
  fi
fi

for p in "${PATHS[@]}"; do
  if [ -e "$p" ]; then rm -rf "$p"; say "removed $p"; fi
done

# Caches between runs: npm's download cache and npx's installs, tsx's compile cache, the harness's leftovers.
tmp=${TMPDIR:-/tmp}
for p in "$HOME/.npm/_cacache" "$HOME/.npm/_npx" "$HOME/.cache/node-gyp" "$HOME/.cache/ms-playwright" \
  "$HOME/.pki" "$HOME/.config/chromium" "$HOME/.config/nextjs-nodejs" "$tmp"/tsx-* "$tmp"/leaf-* "$tmp"/vitest-* "$tmp"/playwright-*; do
  if [ -e "$p" ]; then rm -rf "$p"; say "removed $p"; fi
done

if [ "$removed" -eq 0 ]; then echo 'forget: nothing to remove: this machine has not run leaf-ts'; fi
