#!/usr/bin/env bash
# Restarts processes of the running local cluster with their original command lines, e.g. the real
# node's `containerd kubelet` for a fault test: SIGTERM, then the same command again. Pods keep
# running across it (their shims outlive containerd), as on any node whose runtime restarts.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=lib.sh
. "$here/lib.sh"
# shellcheck source=proc.sh
. "$here/proc.sh"

[ "$#" -gt 0 ] || die "usage: restart.sh <component>... (one of: $(components | tr '\n' ' '))"
[ -f "$CLUSTER_DIR/$MARKER" ] || die "no local cluster in $CLUSTER_DIR"
for name in "$@"; do
  components | grep -qx "$name" || die "$name is not a component of this cluster"
  [ -f "$CLUSTER_DIR/pids/$name.argv" ] || die "no recorded command line for $name"
  mapfile -d '' -t argv <"$CLUSTER_DIR/pids/$name.argv"
  if pid="$(component_pid "$name")"; then
    kill -TERM "$pid"
    deadline=$((SECONDS + ${COLONY_STOP_GRACE:-15}))
    while [ -d "/proc/$pid" ] && ((SECONDS < deadline)); do sleep 0.1; done
    [ ! -d "/proc/$pid" ] || kill -KILL "$pid" 2>/dev/null || true
  fi
  start_component "$name" "${argv[@]}"
  log "restarted $name (pid $(component_pid "$name" || echo '?'))"
done
