# shellcheck shell=bash disable=SC2034 # the variables are used by the scripts that source this
# Shared settings for scripts/cluster/*.sh (sourced, not executed).

# Pinned upstream releases (all fetched through the Go module proxy). Overridable for experiments.
K8S_VERSION="${COLONY_K8S_VERSION:-v1.37.1}"
ETCD_VERSION="${COLONY_ETCD_VERSION:-v3.7.3}"
KWOK_VERSION="${COLONY_KWOK_VERSION:-v0.8.0}"

COLONY_CACHE="${COLONY_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/colony}"
K8S_CACHE_DIR="$COLONY_CACHE/k8s/$K8S_VERSION"
BIN_DIR="$K8S_CACHE_DIR/bin"
# Runtime state of the local cluster (certs, etcd data, logs, pids, kubeconfig). down.sh deletes it.
CLUSTER_DIR="${COLONY_CLUSTER_DIR:-$COLONY_CACHE/cluster}"

CLUSTER_BINARIES=(etcd kube-apiserver kube-controller-manager kube-scheduler kubectl kwok)
# Start order; down.sh stops them in reverse.
CLUSTER_COMPONENTS=(etcd kube-apiserver kube-controller-manager kube-scheduler kwok)

log() { printf '[cluster] %s\n' "$*" >&2; }
die() {
  printf '[cluster] ERROR: %s\n' "$*" >&2
  exit 1
}
