#!/usr/bin/env bash
# Installs redis-server from Debian's packages when missing and starts it on loopback.
# Prints `TEST_REDIS_URL=<url>` as its last line.
set -euo pipefail
port="${COLONY_REDIS_PORT:-6379}"
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

if ! command -v redis-server >/dev/null; then
  echo "ensure-redis: installing redis-server from Debian's packages" >&2
  as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >&2
fi
if ! redis-cli -p "$port" ping >/dev/null 2>&1; then
  redis-server --port "$port" --bind 127.0.0.1 --daemonize yes --save '' --appendonly no >&2
  for _ in $(seq 1 30); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.2; done
fi
echo "TEST_REDIS_URL=redis://127.0.0.1:$port/0"
