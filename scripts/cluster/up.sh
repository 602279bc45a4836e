#!/usr/bin/env bash
# Starts the local control plane for tests: etcd, kube-apiserver, kube-controller-manager,
# kube-scheduler, hostpath-provisioner (PVs) and kwok (which simulates the kubelets of a few fake
# nodes), all on loopback, in the background. Progress goes to stderr; the last line on stdout is
# `KUBECONFIG=<path>`.
#
# - KUBECONFIG already set and reachable (e.g. a kind cluster in CI): print it and do nothing else.
# - The local cluster already running: print its line again (idempotent).
# - Otherwise: build the binaries if needed (build.sh), then start everything.
# See README.md for the env vars.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=lib.sh
. "$here/lib.sh"
# shellcheck source=proc.sh
. "$here/proc.sh"
# shellcheck source=node.sh
. "$here/node.sh"

KUBECONFIG_OUT="$CLUSTER_DIR/kubeconfig"
NODE_COUNT="${COLONY_KWOK_NODES:-2}"
SERVICE_CIDR="${COLONY_SERVICE_CIDR:-10.96.0.0/16}"
SERVICE_IP="${COLONY_SERVICE_IP:-10.96.0.1}" # first address of SERVICE_CIDR: the `kubernetes` Service
WAIT_SECONDS="${COLONY_CLUSTER_WAIT:-120}"

say_kubeconfig() { echo "KUBECONFIG=$1"; }

# A kubectl to probe a cluster with: ours if built, else one on PATH.
probe_kubectl() {
  if [ -x "$BIN_DIR/kubectl" ]; then echo "$BIN_DIR/kubectl"; else command -v kubectl || true; fi
}

cluster_reachable() { # <kubeconfig>
  local k
  k="$(probe_kubectl)"
  if [ -n "$k" ]; then
    KUBECONFIG="$1" "$k" get --raw=/readyz --request-timeout=5s >/dev/null 2>&1
  else
    return 1
  fi
}

# --- 1. An existing cluster chosen by the caller wins. ---------------------------------------------
if [ -n "${KUBECONFIG:-}" ] && [ "$KUBECONFIG" != "$KUBECONFIG_OUT" ]; then
  if cluster_reachable "$KUBECONFIG"; then
    log "using the cluster of KUBECONFIG=$KUBECONFIG (nothing started)"
    say_kubeconfig "$KUBECONFIG"
    exit 0
  fi
  log "KUBECONFIG=$KUBECONFIG is set but no cluster answers there; starting the local cluster instead"
fi

mkdir -p "$(dirname "$CLUSTER_DIR")"
exec 8>"$CLUSTER_DIR.lock"
if ! flock -n 8; then
  log "waiting for another up.sh/down.sh on $CLUSTER_DIR"
  flock -w "${COLONY_LOCK_WAIT:-3600}" 8 || die "gave up waiting for the lock $CLUSTER_DIR.lock"
fi

# --- 2. Already running? ---------------------------------------------------------------------------
if [ -f "$CLUSTER_DIR/$MARKER" ]; then
  if [ -f "$CLUSTER_DIR/ready" ] && [ -f "$KUBECONFIG_OUT" ] && all_running && apiserver_ready; then
    log "local cluster already running ($CLUSTER_DIR)"
    say_kubeconfig "$KUBECONFIG_OUT"
    exit 0
  fi
  log "found a stale or partly stopped local cluster in $CLUSTER_DIR; recreating it"
  stop_all
  cleanup_real_node
  rm -rf "$CLUSTER_DIR"
elif [ -e "$CLUSTER_DIR" ] && [ -n "$(ls -A "$CLUSTER_DIR" 2>/dev/null)" ]; then
  die "$CLUSTER_DIR exists, is not empty and was not created by up.sh; choose another COLONY_CLUSTER_DIR"
fi

# --- 3. Binaries -----------------------------------------------------------------------------------
bin_dir="$(bash "$here/build.sh" | tail -n1)"
if [ -z "$bin_dir" ] || [ ! -d "$bin_dir" ]; then die "build.sh did not report a binary directory"; fi
for b in "${CLUSTER_BINARIES[@]}"; do [ -x "$bin_dir/$b" ] || die "missing $bin_dir/$b"; done
NODE_IP=""
if real_node_enabled; then
  for b in "${NODE_BINARIES[@]}"; do [ -x "$bin_dir/$b" ] || die "missing $bin_dir/$b (the real node's)"; done
  ensure_node_packages
  prepare_host
  NODE_IP="$(node_ip)"
fi

# --- 4. State dir, ports, certificates, kubeconfigs -------------------------------------------------
started_ok=0
on_exit() {
  if [ "$started_ok" != 1 ]; then
    log "start-up failed; stopping what was started (logs kept in $CLUSTER_DIR/logs)"
    stop_all || true
    cleanup_real_node || true
  fi
}
trap on_exit EXIT

mkdir -p "$CLUSTER_DIR"/{pki,logs,pids,etcd,kubeconfigs,run/kcm,run/scheduler}
chmod 700 "$CLUSTER_DIR" "$CLUSTER_DIR/etcd"
echo "local control plane started by scripts/cluster/up.sh; delete with down.sh" >"$CLUSTER_DIR/$MARKER"
echo "$bin_dir" >"$CLUSTER_DIR/bin-dir"
if [ -n "$NODE_IP" ]; then echo "$NODE_IP" >"$CLUSTER_DIR/real-node"; fi

ports_in_use=" "
port_busy() { [ -n "$(ss -Htln "sport = :$1" 2>/dev/null)" ]; }
pick_port() { # random free port outside the usual ephemeral range
  local p i
  for i in $(seq 1 200); do
    p=$((20000 + RANDOM % 12000))
    case "$ports_in_use" in *" $p "*) continue ;; esac
    if ! port_busy "$p"; then
      ports_in_use+="$p "
      echo "$p"
      return 0
    fi
  done
  die "could not find a free loopback port"
}
if [ -n "${COLONY_APISERVER_PORT:-}" ]; then
  ! port_busy "$COLONY_APISERVER_PORT" || die "COLONY_APISERVER_PORT=$COLONY_APISERVER_PORT is already in use"
  APISERVER_PORT="$COLONY_APISERVER_PORT"
  ports_in_use+="$APISERVER_PORT "
else
  APISERVER_PORT="$(pick_port)"
fi
ETCD_PORT="$(pick_port)"
ETCD_PEER_PORT="$(pick_port)"
KCM_PORT="$(pick_port)"
SCHEDULER_PORT="$(pick_port)"
cat >"$CLUSTER_DIR/ports.env" <<EOF
APISERVER_PORT=$APISERVER_PORT
ETCD_PORT=$ETCD_PORT
ETCD_PEER_PORT=$ETCD_PEER_PORT
KCM_PORT=$KCM_PORT
SCHEDULER_PORT=$SCHEDULER_PORT
EOF
SERVER="https://127.0.0.1:$APISERVER_PORT"

pki="$CLUSTER_DIR/pki"
log "generating certificates in $pki"
(
  cd "$pki"
  umask 077
  quiet() { "$@" >/dev/null 2>&1 || { "$@" >&2; exit 1; }; }
  quiet openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.crt -days 3650 \
    -subj "/CN=colony-local-ca" -addext "basicConstraints=critical,CA:TRUE" \
    -addext "keyUsage=critical,keyCertSign,cRLSign,digitalSignature"
  # Separate CA for the aggregation layer's front proxy (requestheader authentication).
  quiet openssl req -x509 -newkey rsa:2048 -nodes -keyout front-proxy-ca.key -out front-proxy-ca.crt \
    -days 3650 -subj "/CN=colony-local-front-proxy-ca" -addext "basicConstraints=critical,CA:TRUE" \
    -addext "keyUsage=critical,keyCertSign,cRLSign,digitalSignature"
  # <name> <subject> <extensions> [<issuing CA basename>]
  leaf() {
    local ca="${4:-ca}"
    quiet openssl req -newkey rsa:2048 -nodes -keyout "$1.key" -out "$1.csr" -subj "$2"
    printf '%b' "$3" >"$1.ext"
    quiet openssl x509 -req -in "$1.csr" -CA "$ca.crt" -CAkey "$ca.key" -CAcreateserial -days 825 \
      -extfile "$1.ext" -out "$1.crt"
    rm -f "$1.csr" "$1.ext"
  }
  client_ext='basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=clientAuth\n'
  server_ext='basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n'
  leaf apiserver "/CN=kube-apiserver" "${server_ext}subjectAltName=IP:127.0.0.1,IP:::1,IP:$SERVICE_IP${NODE_IP:+,IP:$NODE_IP},DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local\n"
  leaf admin "/O=system:masters/CN=colony-admin" "$client_ext"
  leaf kube-controller-manager "/CN=system:kube-controller-manager" "$client_ext"
  leaf kube-scheduler "/CN=system:kube-scheduler" "$client_ext"
  # Its own identity rather than system:masters: the ClusterRole bound below grants only what it uses.
  leaf hostpath-provisioner "/CN=colony:hostpath-provisioner" "$client_ext"
  leaf kwok "/O=system:masters/CN=kwok-controller" "$client_ext"
  leaf front-proxy-client "/CN=front-proxy-client" "$client_ext" front-proxy-ca
  if [ -n "$NODE_IP" ]; then
    # The real node: kubelet's client (the Node authorizer's identity) and serving certificates, the
    # API server's client for logs, exec and port-forward, and kube-proxy's client.
    leaf kubelet-client "/O=system:nodes/CN=system:node:$NODE_NAME" "$client_ext"
    leaf kubelet "/CN=$NODE_NAME" "${server_ext}subjectAltName=IP:$NODE_IP,DNS:$NODE_NAME\n"
    leaf apiserver-kubelet-client "/O=system:masters/CN=kube-apiserver-kubelet-client" "$client_ext"
    leaf kube-proxy "/CN=system:kube-proxy" "$client_ext"
  fi
  # Service account token signing key pair.
  quiet openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out sa.key
  quiet openssl pkey -in sa.key -pubout -out sa.pub
)

b64() { base64 -w0 <"$1"; }
write_kubeconfig() { # <file> <user name> <cert basename>
  cat >"$1" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: colony-local
  cluster:
    server: $SERVER
    certificate-authority-data: $(b64 "$pki/ca.crt")
users:
- name: $2
  user:
    client-certificate-data: $(b64 "$pki/$3.crt")
    client-key-data: $(b64 "$pki/$3.key")
contexts:
- name: colony-local
  context:
    cluster: colony-local
    user: $2
current-context: colony-local
EOF
  chmod 600 "$1"
}
kc="$CLUSTER_DIR/kubeconfigs"
write_kubeconfig "$kc/kube-controller-manager" system:kube-controller-manager kube-controller-manager
write_kubeconfig "$kc/kube-scheduler" system:kube-scheduler kube-scheduler
write_kubeconfig "$kc/hostpath-provisioner" colony:hostpath-provisioner hostpath-provisioner
write_kubeconfig "$kc/kwok" kwok-controller kwok
cp "$here/kwok-stages.yaml" "$CLUSTER_DIR/kwok-stages.yaml"
apiserver_node_flags=(--bind-address=127.0.0.1 --advertise-address=127.0.0.1 --endpoint-reconciler-type=none)
if [ -n "$NODE_IP" ]; then
  write_kubeconfig "$kc/kubelet" "system:node:$NODE_NAME" kubelet-client
  write_kubeconfig "$kc/kube-proxy" system:kube-proxy kube-proxy
  # Pods on the real node reach the API server through the `kubernetes` Service, whose endpoint is the
  # advertised address. Pods go to the real node unless their namespace asks for the kwok nodes
  # (scheduler.alpha.kubernetes.io/node-selector: type=kwok), as the integration tier's do.
  cat >"$CLUSTER_DIR/admission.yaml" <<EOF
apiVersion: apiserver.config.k8s.io/v1
kind: AdmissionConfiguration
plugins:
- name: PodNodeSelector
  path: $CLUSTER_DIR/pod-node-selector.yaml
EOF
  echo 'podNodeSelectorPluginConfig: {clusterDefaultNodeSelector: "type=real"}' >"$CLUSTER_DIR/pod-node-selector.yaml"
  apiserver_node_flags=(
    --bind-address=0.0.0.0
    --advertise-address="$NODE_IP"
    --enable-admission-plugins=NodeRestriction,PodNodeSelector
    --admission-control-config-file="$CLUSTER_DIR/admission.yaml"
    --kubelet-client-certificate="$pki/apiserver-kubelet-client.crt"
    --kubelet-client-key="$pki/apiserver-kubelet-client.key"
    --kubelet-certificate-authority="$pki/ca.crt"
    --kubelet-preferred-address-types=InternalIP
  )
fi

# --- 5. Processes ----------------------------------------------------------------------------------
write_kubeconfig "$KUBECONFIG_OUT" colony-admin admin
kubectl=("$bin_dir/kubectl" --kubeconfig "$KUBECONFIG_OUT" --request-timeout=20s)

log "starting etcd on 127.0.0.1:$ETCD_PORT"
start_component etcd "$bin_dir/etcd" \
  --name=colony-local \
  --data-dir="$CLUSTER_DIR/etcd" \
  --listen-client-urls="http://127.0.0.1:$ETCD_PORT" \
  --advertise-client-urls="http://127.0.0.1:$ETCD_PORT" \
  --listen-peer-urls="http://127.0.0.1:$ETCD_PEER_PORT" \
  --initial-advertise-peer-urls="http://127.0.0.1:$ETCD_PEER_PORT" \
  --initial-cluster="colony-local=http://127.0.0.1:$ETCD_PEER_PORT" \
  --unsafe-no-fsync=true \
  --quota-backend-bytes=$((2 * 1024 * 1024 * 1024)) \
  --log-level=warn
wait_until "etcd healthy" etcd 60 \
  bash -c "curl -fsS --max-time 2 http://127.0.0.1:$ETCD_PORT/health | grep -q '\"health\":\"true\"'"

log "starting kube-apiserver on $SERVER"
start_component kube-apiserver "$bin_dir/kube-apiserver" \
  --etcd-servers="http://127.0.0.1:$ETCD_PORT" \
  "${apiserver_node_flags[@]}" \
  --secure-port="$APISERVER_PORT" \
  --tls-cert-file="$pki/apiserver.crt" \
  --tls-private-key-file="$pki/apiserver.key" \
  --client-ca-file="$pki/ca.crt" \
  --requestheader-client-ca-file="$pki/front-proxy-ca.crt" \
  --requestheader-allowed-names=front-proxy-client \
  --requestheader-username-headers=X-Remote-User \
  --requestheader-uid-headers=X-Remote-Uid \
  --requestheader-group-headers=X-Remote-Group \
  --requestheader-extra-headers-prefix=X-Remote-Extra- \
  --proxy-client-cert-file="$pki/front-proxy-client.crt" \
  --proxy-client-key-file="$pki/front-proxy-client.key" \
  --service-account-issuer=https://kubernetes.default.svc.cluster.local \
  --service-account-key-file="$pki/sa.pub" \
  --service-account-signing-key-file="$pki/sa.key" \
  --service-cluster-ip-range="$SERVICE_CIDR" \
  --authorization-mode=Node,RBAC \
  --allow-privileged=true \
  --cert-dir="$CLUSTER_DIR/run" \
  --profiling=false
wait_until "kube-apiserver /readyz" kube-apiserver "$WAIT_SECONDS" apiserver_ready

log "installing the default StorageClass and hostpath-provisioner's permissions"
"${kubectl[@]}" apply -f - >/dev/null <<'EOF'
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: standard
  annotations:
    storageclass.kubernetes.io/is-default-class: "true"
provisioner: colony.local/hostpath
reclaimPolicy: Delete
volumeBindingMode: Immediate
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: colony:hostpath-provisioner
rules:
- apiGroups: [""]
  resources: [persistentvolumes]
  verbs: [get, list, watch, create, delete]
- apiGroups: [""]
  resources: [persistentvolumeclaims]
  verbs: [get, list, watch, update]
- apiGroups: [storage.k8s.io]
  resources: [storageclasses]
  verbs: [get, list, watch]
- apiGroups: [""]
  resources: [events]
  verbs: [create, patch]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: colony:hostpath-provisioner
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: colony:hostpath-provisioner
subjects:
- apiGroup: rbac.authorization.k8s.io
  kind: User
  name: colony:hostpath-provisioner
EOF

log "starting kube-controller-manager, kube-scheduler and hostpath-provisioner"
start_component kube-controller-manager "$bin_dir/kube-controller-manager" \
  --kubeconfig="$kc/kube-controller-manager" \
  --authentication-kubeconfig="$kc/kube-controller-manager" \
  --authorization-kubeconfig="$kc/kube-controller-manager" \
  --bind-address=127.0.0.1 \
  --secure-port="$KCM_PORT" \
  --cert-dir="$CLUSTER_DIR/run/kcm" \
  --leader-elect=false \
  --cluster-name=colony-local \
  --use-service-account-credentials=true \
  --service-account-private-key-file="$pki/sa.key" \
  --root-ca-file="$pki/ca.crt" \
  --cluster-signing-cert-file="$pki/ca.crt" \
  --cluster-signing-key-file="$pki/ca.key" \
  --service-cluster-ip-range="$SERVICE_CIDR" \
  --profiling=false
start_component kube-scheduler "$bin_dir/kube-scheduler" \
  --kubeconfig="$kc/kube-scheduler" \
  --authentication-kubeconfig="$kc/kube-scheduler" \
  --authorization-kubeconfig="$kc/kube-scheduler" \
  --bind-address=127.0.0.1 \
  --secure-port="$SCHEDULER_PORT" \
  --cert-dir="$CLUSTER_DIR/run/scheduler" \
  --leader-elect=false \
  --profiling=false
# PVs of the `standard` class: world-writable directories under $HOSTPATH_DIR (node/hostpath-provisioner.go).
start_component hostpath-provisioner "$bin_dir/hostpath-provisioner" \
  --kubeconfig="$kc/hostpath-provisioner" \
  --base-dir="$HOSTPATH_DIR" \
  --provisioner-name=colony.local/hostpath
wait_until "kube-controller-manager /healthz" kube-controller-manager "$WAIT_SECONDS" \
  bash -c "curl -fsSk --max-time 2 https://127.0.0.1:$KCM_PORT/healthz | grep -qx ok"
wait_until "kube-scheduler /healthz" kube-scheduler "$WAIT_SECONDS" \
  bash -c "curl -fsSk --max-time 2 https://127.0.0.1:$SCHEDULER_PORT/healthz | grep -qx ok"
# It serves no health endpoint; the library logs this line once its informers have synced.
wait_until "hostpath-provisioner started" hostpath-provisioner "$WAIT_SECONDS" \
  grep -q "Started provisioner controller" "$CLUSTER_DIR/logs/hostpath-provisioner.log"

log "starting kwok (simulated kubelets)"
start_component kwok "$bin_dir/kwok" \
  --kubeconfig="$kc/kwok" \
  --config="$CLUSTER_DIR/kwok-stages.yaml" \
  --manage-all-nodes=false \
  --manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake \
  --node-lease-duration-seconds=40 \
  --cidr=10.244.0.0/24 \
  --node-ip=172.30.0.1

log "registering $NODE_COUNT fake node(s)"
for i in $(seq 1 "$NODE_COUNT"); do
  "${kubectl[@]}" apply -f - >/dev/null <<EOF
apiVersion: v1
kind: Node
metadata:
  name: kwok-node-$i
  annotations:
    kwok.x-k8s.io/node: fake
    node.alpha.kubernetes.io/ttl: "0"
  labels:
    type: kwok
    kubernetes.io/arch: amd64
    kubernetes.io/os: linux
    kubernetes.io/hostname: kwok-node-$i
    topology.kubernetes.io/region: local
    topology.kubernetes.io/zone: local-$i
spec:
  podCIDR: 10.244.$i.0/24
  podCIDRs: [10.244.$i.0/24]
status:
  addresses:
  - type: InternalIP
    address: 172.30.0.$((i + 1))
  - type: Hostname
    address: kwok-node-$i
  allocatable: {cpu: "32", memory: 128Gi, pods: "110", ephemeral-storage: 500Gi}
  capacity: {cpu: "32", memory: 128Gi, pods: "110", ephemeral-storage: 500Gi}
  nodeInfo:
    architecture: amd64
    operatingSystem: linux
    kubeletVersion: $K8S_VERSION
    kubeProxyVersion: $K8S_VERSION
    containerRuntimeVersion: kwok://$KWOK_VERSION
EOF
done

wait_until "fake nodes Ready" kwok "$WAIT_SECONDS" \
  "${kubectl[@]}" wait node -l type=kwok --for=condition=Ready --timeout=5s
# Pods can only be created once the service account controller made the `default` account.
wait_until "default ServiceAccount" kube-controller-manager "$WAIT_SECONDS" \
  "${kubectl[@]}" -n default get serviceaccount default

if [ -n "$NODE_IP" ]; then
  start_real_node "$bin_dir" "$pki" "$NODE_IP"
  start_cluster_dns
fi

touch "$CLUSTER_DIR/ready"
started_ok=1
log "local cluster ready: kubernetes $K8S_VERSION at $SERVER, ${NODE_IP:+real node $NODE_NAME ($NODE_IP) and }$NODE_COUNT kwok node(s); state in $CLUSTER_DIR"
log "kubectl: $bin_dir/kubectl   stop: bash $here/down.sh"
say_kubeconfig "$KUBECONFIG_OUT"
