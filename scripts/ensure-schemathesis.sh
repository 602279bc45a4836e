#!/usr/bin/env bash
# Installs schemathesis (the OpenAPI fuzzer behind test/integration/openapi-fuzz.test.ts) from PyPI,
# pinned together with the hypothesis release that generates its inputs, into a venv under
# ~/.cache/colony/schemathesis. Idempotent: does nothing when the pinned set is already there.
# Prints `COLONY_SCHEMATHESIS=<path of the schemathesis command>` as its last line.
set -euo pipefail
pins="schemathesis==4.32.5 hypothesis==6.170.17"
COLONY_CACHE="${COLONY_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/colony}"
venv="$COLONY_CACHE/schemathesis"
stamp="$venv/.installed-$(echo "$pins" | sha256sum | cut -c1-16)"
mkdir -p "$COLONY_CACHE"
# One install at a time (parallel callers on a fresh machine wait for the first).
exec 9>"$COLONY_CACHE/.schemathesis.lock"
flock 9
if [ -x "$venv/bin/schemathesis" ] && [ -f "$stamp" ]; then
  echo "COLONY_SCHEMATHESIS=$venv/bin/schemathesis"
  exit 0
fi
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
apt_install() {
  as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >&2
}
command -v python3 >/dev/null 2>&1 || apt_install python3 python3-venv
PYTHON="${PYTHON:-$(command -v python3)}"
echo "ensure-schemathesis: installing $pins into $venv" >&2
rm -rf "$venv"
# Debian's own python3 ships venv (and its pip) as a separate package.
"$PYTHON" -m venv "$venv" >&2 || { rm -rf "$venv"; apt_install python3-venv; "$PYTHON" -m venv "$venv"; }
# shellcheck disable=SC2086
"$venv/bin/pip" install --quiet --disable-pip-version-check $pins >&2
"$venv/bin/schemathesis" --version >&2
touch "$stamp"
echo "COLONY_SCHEMATHESIS=$venv/bin/schemathesis"
