#!/usr/bin/env bash
# Stops the local control plane started by up.sh and deletes its state dir (certificates, etcd
# data, logs, kubeconfig). The binary cache is kept. Safe to run when nothing is running.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=lib.sh
. "$here/lib.sh"
# shellcheck source=proc.sh
. "$here/proc.sh"
# shellcheck source=node.sh
. "$here/node.sh"

if [ ! -e "$CLUSTER_DIR" ]; then
  log "no local cluster in $CLUSTER_DIR; nothing to stop"
  exit 0
fi
[ -f "$CLUSTER_DIR/$MARKER" ] || die "$CLUSTER_DIR was not created by up.sh; refusing to touch it"

mkdir -p "$(dirname "$CLUSTER_DIR")"
exec 8>"$CLUSTER_DIR.lock"
if ! flock -n 8; then
  log "waiting for another up.sh/down.sh on $CLUSTER_DIR"
  flock -w "${COLONY_LOCK_WAIT:-3600}" 8 || die "gave up waiting for the lock $CLUSTER_DIR.lock"
fi

# Volumes made by hostpath-provisioner live under $HOSTPATH_DIR on this machine; remove the ones
# that belong to this cluster (also Retain ones) while its API still answers.
pv_paths=()
kubectl="$(cat "$CLUSTER_DIR/bin-dir" 2>/dev/null || echo "$BIN_DIR")/kubectl"
if [ -f "$CLUSTER_DIR/kubeconfig" ] && [ -x "$kubectl" ] && apiserver_ready; then
  while IFS= read -r p; do
    case "$p" in "$HOSTPATH_DIR"/?*) [[ "$p" != *..* ]] && pv_paths+=("$p") ;; esac
  done < <("$kubectl" --kubeconfig "$CLUSTER_DIR/kubeconfig" --request-timeout=10s get pv \
    -o jsonpath='{range .items[*]}{.spec.hostPath.path}{"\n"}{end}' 2>/dev/null || true)
fi

stop_all
cleanup_real_node
if [ "${#pv_paths[@]}" -gt 0 ]; then
  rm -rf -- "${pv_paths[@]}"
  log "removed ${#pv_paths[@]} provisioned hostPath volume dir(s)"
fi
rm -rf -- "$CLUSTER_DIR"
log "local cluster stopped; removed $CLUSTER_DIR (binaries kept in $BIN_DIR)"
