# shellcheck shell=bash disable=SC2034 # the variables are used by the scripts that source this
# Shared settings for scripts/cluster/*.sh (sourced, not executed).

# Pinned upstream releases (all fetched through the Go module proxy). Overridable for experiments.
K8S_VERSION="${COLONY_K8S_VERSION:-v1.37.1}"
ETCD_VERSION="${COLONY_ETCD_VERSION:-v3.7.3}"
KWOK_VERSION="${COLONY_KWOK_VERSION:-v0.8.0}"
# The real node's runtime and cluster DNS (Go module proxy too); runc and the CNI plugins are Debian's.
CONTAINERD_VERSION="${COLONY_CONTAINERD_VERSION:-v2.4.2}"
COREDNS_VERSION="${COLONY_COREDNS_VERSION:-v1.15.0}"
# The library node/hostpath-provisioner.go is built with (its import path carries the /v13).
PROVISIONER_LIB_VERSION="${COLONY_PROVISIONER_LIB_VERSION:-v13.1.0}"

COLONY_CACHE="${COLONY_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/colony}"
K8S_CACHE_DIR="$COLONY_CACHE/k8s/$K8S_VERSION"
BIN_DIR="$K8S_CACHE_DIR/bin"
# Runtime state of the local cluster (certs, etcd data, logs, pids, kubeconfig). down.sh deletes it.
CLUSTER_DIR="${COLONY_CLUSTER_DIR:-$COLONY_CACHE/cluster}"
# Where hostpath-provisioner keeps the PVs' directories (down.sh removes the ones of its cluster).
HOSTPATH_DIR=/tmp/hostpath_pv

# Built in one `go build` from k8s.io/kubernetes, so the packages they share compile once. kubelet and
# kube-proxy run the real node (node.sh).
K8S_BINARIES=(kube-apiserver kube-controller-manager kube-scheduler kubectl kubelet kube-proxy)
CLUSTER_BINARIES=(etcd "${K8S_BINARIES[@]}" hostpath-provisioner kwok)
# The real node's own binaries (node.sh): containerd, its runc shim and ctr; CoreDNS; the pod sandbox.
NODE_BINARIES=(containerd containerd-shim-runc-v2 ctr coredns pause)
# Start order; down.sh stops them in reverse. The real node's processes follow when it runs.
CLUSTER_COMPONENTS=(etcd kube-apiserver kube-controller-manager kube-scheduler hostpath-provisioner kwok)
NODE_COMPONENTS=(containerd kubelet kube-proxy)

log() { printf '[cluster] %s\n' "$*" >&2; }
die() {
  printf '[cluster] ERROR: %s\n' "$*" >&2
  exit 1
}
