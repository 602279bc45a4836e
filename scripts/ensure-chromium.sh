#!/usr/bin/env bash
# Installs Debian's chromium for the billing page's browser test (driven by playwright-core), once.
set -euo pipefail
if ! command -v chromium >/dev/null; then
  echo "ensure-chromium: installing chromium from Debian's packages" >&2
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq chromium >&2
fi
echo "CHROMIUM=$(command -v chromium)"
