#!/usr/bin/env bash
# Builds the local control plane binaries, once, from pinned upstream releases fetched through the
# Go module proxy (never from release pages): kube-apiserver, kube-controller-manager,
# kube-scheduler and kubectl from k8s.io/kubernetes, etcd from go.etcd.io/etcd/server/v3, kwok, and
# our PV provisioner (node/hostpath-provisioner.go).
#
# Output: progress on stderr; the directory holding the binaries as the only line on stdout.
# A second run is instant (per-component stamp files). See README.md for the env vars.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=lib.sh
. "$here/lib.sh"

# --- If the caller already has the binaries (envtest-style asset dir), use them. -----------------
if [ -n "${KUBEBUILDER_ASSETS:-}" ]; then
  missing=()
  for b in "${CLUSTER_BINARIES[@]}"; do
    [ -x "$KUBEBUILDER_ASSETS/$b" ] || missing+=("$b")
  done
  if [ "${#missing[@]}" -eq 0 ]; then
    log "using binaries from KUBEBUILDER_ASSETS=$KUBEBUILDER_ASSETS (build skipped)"
    echo "$KUBEBUILDER_ASSETS"
    exit 0
  fi
  log "KUBEBUILDER_ASSETS=$KUBEBUILDER_ASSETS lacks: ${missing[*]}; building the pinned set instead"
fi

stamp_ok() { # <component> <expected content> <binaries...>
  local name="$1" want="$2" b
  shift 2
  [ -f "$BIN_DIR/.stamp-$name" ] && [ "$(cat "$BIN_DIR/.stamp-$name")" = "$want" ] || return 1
  for b in "$@"; do [ -x "$BIN_DIR/$b" ] || return 1; done
}

k8s_stamp="k8s.io/kubernetes@$K8S_VERSION"
etcd_stamp="go.etcd.io/etcd/server/v3@$ETCD_VERSION"
kwok_stamp="sigs.k8s.io/kwok@$KWOK_VERSION"
containerd_stamp="github.com/containerd/containerd/v2@$CONTAINERD_VERSION"
coredns_stamp="github.com/coredns/coredns@$COREDNS_VERSION"
pause_stamp="pause@$(sha256sum "$here/node/pause.go" | cut -c1-12)"
provisioner_lib=sigs.k8s.io/sig-storage-lib-external-provisioner/v13
provisioner_stamp="$provisioner_lib@$PROVISIONER_LIB_VERSION+$(sha256sum "$here/node/hostpath-provisioner.go" | cut -c1-12)"
node_built() {
  stamp_ok containerd "$containerd_stamp" containerd containerd-shim-runc-v2 ctr &&
    stamp_ok coredns "$coredns_stamp" coredns && stamp_ok pause "$pause_stamp" pause
}

# Fast path: everything already built (no Go toolchain, no lock, no network needed).
if stamp_ok kubernetes "$k8s_stamp" "${K8S_BINARIES[@]}" &&
  stamp_ok etcd "$etcd_stamp" etcd && stamp_ok kwok "$kwok_stamp" kwok &&
  stamp_ok hostpath-provisioner "$provisioner_stamp" hostpath-provisioner && node_built; then
  log "binaries up to date in $BIN_DIR (kubernetes $K8S_VERSION, etcd $ETCD_VERSION, kwok $KWOK_VERSION)"
  echo "$BIN_DIR"
  exit 0
fi

# --- Toolchain --------------------------------------------------------------------------------------
GO="${GO:-}"
if [ -z "$GO" ]; then
  if [ -x /usr/local/go/bin/go ]; then GO=/usr/local/go/bin/go; else GO="$(command -v go || true)"; fi
fi
if [ -z "$GO" ] || [ ! -x "$GO" ]; then die "no Go toolchain found (set GO=/path/to/go; Go >= 1.26 is required)"; fi
go_minor="$("$GO" env GOVERSION | sed -n 's/^go1\.\([0-9]*\).*/\1/p')"
if [ -z "$go_minor" ] || [ "$go_minor" -lt 26 ]; then die "Go >= 1.26 required, $GO is $("$GO" env GOVERSION)"; fi

# Never let the go command fetch another toolchain behind our back; static, reproducible binaries.
export GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS="${GOFLAGS:+$GOFLAGS }-mod=mod"
case "$("$GO" env GOPROXY)" in
  off | direct) die "GOPROXY is '$("$GO" env GOPROXY)': this build needs a Go module proxy" ;;
esac

mkdir -p "$BIN_DIR" "$K8S_CACHE_DIR/src" "$K8S_CACHE_DIR/logs"
exec 9>"$K8S_CACHE_DIR/.build.lock"
if ! flock -n 9; then
  log "another build is running for $K8S_CACHE_DIR; waiting for it"
  flock 9
fi

NICE=(nice -n "${COLONY_BUILD_NICE:-10}")

# Prints the path of the go.mod file of <module>@<version> as served by the proxy, downloading the
# module (its source is needed for the build anyway).
module_gomod() {
  local json
  json="$("$GO" mod download -json "$1@$2")" || die "go mod download $1@$2 failed:
$json"
  sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",\{0,1\}$/\1/p' <<<"$json" | head -n1
}

# Names of the modules that <go.mod> replaces with a local directory (./staging/..., ../api, ...).
local_replaces() {
  awk '
    /^replace[[:space:]]*\(/ { inblock = 1; next }
    inblock && /^\)/ { inblock = 0; next }
    {
      line = $0
      if (!inblock) { if (line !~ /^replace[[:space:]]/) next; sub(/^replace[[:space:]]+/, "", line) }
      n = split(line, f, /[[:space:]]+/)
      # fields: [""] module [version] => target [version]
      for (i = 1; i <= n; i++) if (f[i] == "=>") { arrow = i; break }
      if (!arrow) next
      target = f[arrow + 1]; mod = (f[1] == "" ? f[2] : f[1]); arrow = 0
      # local directories only; upstream etcd also "replaces" banned modules with a bogus path
      if (target ~ /^\.\.?\// && target !~ /FORBIDDEN/) print mod
    }' "$1"
}

go_directive() { sed -n 's/^go \([0-9.]*\)$/\1/p' "$1" | head -n1; }

# Runs `go build` for a throwaway module, with a heartbeat so long compiles show progress. Build tags
# come from COMPILE_TAGS.
# <component> <srcdir> <outdir> <ldflags> <packages...>
compile() {
  local name="$1" src="$2" out="$3" ldflags="$4"
  shift 4
  local logf="$K8S_CACHE_DIR/logs/build-$name.log" start=$SECONDS next=$((SECONDS + 60)) pid rc
  log "[$name] compiling $* (nice, -trimpath; log: $logf)"
  (cd "$src" && exec "${NICE[@]}" "$GO" build -v -trimpath -tags "${COMPILE_TAGS:-}" -ldflags "$ldflags" -o "$out/" "$@") >"$logf" 2>&1 &
  pid=$!
  while kill -0 "$pid" 2>/dev/null; do
    sleep 5
    if kill -0 "$pid" 2>/dev/null && ((SECONDS >= next)); then
      log "[$name] ... $((SECONDS - start))s, $(wc -l <"$logf") packages compiled so far"
      next=$((SECONDS + 60))
    fi
  done
  rc=0
  wait "$pid" || rc=$?
  if [ "$rc" -ne 0 ]; then
    tail -n 40 "$logf" >&2
    die "[$name] go build failed (exit $rc); full log: $logf"
  fi
  log "[$name] compiled in $((SECONDS - start))s"
}

# Creates <dir>/go.mod (+ tools.go) for a throwaway main module that requires <module>@<version>,
# pins every module in <replaces> to <pin version>, and imports <packages> so `go mod tidy`
# resolves exactly what the build needs.
# <dir> <go version> <module> <version> <pin version> <replaces (newline separated)> <packages...>
write_module() {
  local dir="$1" gover="$2" mod="$3" ver="$4" pin="$5" replaces="$6" r p
  shift 6
  rm -rf "$dir"
  mkdir -p "$dir"
  {
    echo "// Generated by scripts/cluster/build.sh: throwaway module to build $mod@$ver."
    echo "module colony.local/cluster-build"
    echo
    echo "go $gover"
    echo
    echo "require $mod $ver"
    if [ -n "$replaces" ]; then
      echo
      echo "replace ("
      while IFS= read -r r; do [ -n "$r" ] && printf '\t%s => %s %s\n' "$r" "$r" "$pin"; done <<<"$replaces"
      echo ")"
    fi
  } >"$dir/go.mod"
  {
    echo "//go:build tools"
    echo
    echo "// Package tools only pins the commands built from this module."
    echo "package tools"
    echo
    echo "import ("
    for p in "$@"; do printf '\t_ "%s"\n' "$p"; done
    echo ")"
  } >"$dir/tools.go"
  log "resolving dependencies of $mod@$ver (go mod tidy)"
  (cd "$dir" && "$GO" mod tidy) >&2 || die "go mod tidy failed in $dir"
}

build_start=$SECONDS

# --- kubernetes: kube-apiserver, kube-controller-manager, kube-scheduler, kubectl -------------------
if stamp_ok kubernetes "$k8s_stamp" "${K8S_BINARIES[@]}"; then
  log "[kubernetes] $K8S_VERSION already built"
else
  log "[kubernetes] building $K8S_VERSION from the Go module proxy"
  k8s_gomod="$(module_gomod k8s.io/kubernetes "$K8S_VERSION")"
  staging="$(local_replaces "$k8s_gomod")"
  [ -n "$staging" ] || die "no ./staging replace directives found in $k8s_gomod"
  staging_version="v0.${K8S_VERSION#v1.}" # v1.37.1 -> v0.37.1
  log "[kubernetes] pinning $(wc -l <<<"$staging") staging modules to $staging_version"
  src="$K8S_CACHE_DIR/src/kubernetes"
  cmds=()
  for b in "${K8S_BINARIES[@]}"; do cmds+=("k8s.io/kubernetes/cmd/$b"); done
  write_module "$src" "$(go_directive "$k8s_gomod")" k8s.io/kubernetes "$K8S_VERSION" \
    "$staging_version" "$staging" "${cmds[@]}"

  # Version stamping as upstream's hack/lib/version.sh does, so /version reports the release.
  # buildDate is the release's publication time from the proxy (reproducible builds).
  release_time="$("$GO" list -m -json "k8s.io/kubernetes@$K8S_VERSION" | sed -n 's/^[[:space:]]*"Time": "\([^"]*\)".*/\1/p' | head -n1)"
  build_date="$(date -u -d "${release_time:-now}" +%Y-%m-%dT%H:%M:%SZ)"
  major="${K8S_VERSION#v}"
  major="${major%%.*}"
  minor="${K8S_VERSION#v*.}"
  minor="${minor%%.*}"
  ldflags="-s -w"
  for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ldflags+=" -X $pkg.gitVersion=$K8S_VERSION -X $pkg.gitMajor=$major -X $pkg.gitMinor=$minor"
    ldflags+=" -X $pkg.gitTreeState=clean -X $pkg.buildDate=$build_date"
  done
  out="$(mktemp -d "$K8S_CACHE_DIR/out.XXXXXX")"
  compile kubernetes "$src" "$out" "$ldflags" "${cmds[@]}"
  for b in "${K8S_BINARIES[@]}"; do mv -f "$out/$b" "$BIN_DIR/$b"; done
  rm -rf "$out"
  echo "$k8s_stamp" >"$BIN_DIR/.stamp-kubernetes"
fi

# --- etcd ------------------------------------------------------------------------------------------
if stamp_ok etcd "$etcd_stamp" etcd; then
  log "[etcd] $ETCD_VERSION already built"
else
  log "[etcd] building $ETCD_VERSION from the Go module proxy"
  etcd_gomod="$(module_gomod go.etcd.io/etcd/server/v3 "$ETCD_VERSION")"
  etcd_mods="$(local_replaces "$etcd_gomod")"
  log "[etcd] pinning $(wc -l <<<"$etcd_mods") sibling modules to $ETCD_VERSION"
  src="$K8S_CACHE_DIR/src/etcd"
  write_module "$src" "$(go_directive "$etcd_gomod")" go.etcd.io/etcd/server/v3 "$ETCD_VERSION" \
    "$ETCD_VERSION" "$etcd_mods" go.etcd.io/etcd/server/v3
  out="$(mktemp -d "$K8S_CACHE_DIR/out.XXXXXX")"
  compile etcd "$src" "$out" "-s -w -X go.etcd.io/etcd/api/v3/version.GitSHA=module-$ETCD_VERSION" \
    go.etcd.io/etcd/server/v3
  # go names the binary after the import path (".../server/v3" -> "server"); take the one file.
  built=("$out"/*)
  if [ "${#built[@]}" -ne 1 ] || [ ! -x "${built[0]}" ]; then die "[etcd] unexpected build output: ${built[*]}"; fi
  mv -f "${built[0]}" "$BIN_DIR/etcd"
  rm -rf "$out"
  echo "$etcd_stamp" >"$BIN_DIR/.stamp-etcd"
fi

# --- kwok ------------------------------------------------------------------------------------------
if stamp_ok kwok "$kwok_stamp" kwok; then
  log "[kwok] $KWOK_VERSION already built"
else
  log "[kwok] building $KWOK_VERSION from the Go module proxy"
  kwok_gomod="$(module_gomod sigs.k8s.io/kwok "$KWOK_VERSION")"
  src="$K8S_CACHE_DIR/src/kwok"
  write_module "$src" "$(go_directive "$kwok_gomod")" sigs.k8s.io/kwok "$KWOK_VERSION" \
    "$KWOK_VERSION" "$(local_replaces "$kwok_gomod")" sigs.k8s.io/kwok/cmd/kwok
  out="$(mktemp -d "$K8S_CACHE_DIR/out.XXXXXX")"
  compile kwok "$src" "$out" "-s -w -X sigs.k8s.io/kwok/pkg/consts.Version=${KWOK_VERSION#v}" sigs.k8s.io/kwok/cmd/kwok
  mv -f "$out/kwok" "$BIN_DIR/kwok"
  rm -rf "$out"
  echo "$kwok_stamp" >"$BIN_DIR/.stamp-kwok"
fi

# --- hostpath-provisioner: the volumes of the `standard` StorageClass ------------------------------
if stamp_ok hostpath-provisioner "$provisioner_stamp" hostpath-provisioner; then
  log "[hostpath-provisioner] already built"
else
  log "[hostpath-provisioner] building against $provisioner_lib@$PROVISIONER_LIB_VERSION"
  provisioner_gomod="$(module_gomod "$provisioner_lib" "$PROVISIONER_LIB_VERSION")"
  src="$K8S_CACHE_DIR/src/hostpath-provisioner"
  # tools.go imports what main.go does, so `go mod tidy` resolves all of it.
  mapfile -t imports < <(sed -n 's/^[[:space:]]*[a-z0-9]* *"\([a-z0-9-]*\.[^"]*\)"$/\1/p' "$here/node/hostpath-provisioner.go")
  write_module "$src" "$(go_directive "$provisioner_gomod")" "$provisioner_lib" "$PROVISIONER_LIB_VERSION" \
    "" "" "${imports[@]}"
  cp "$here/node/hostpath-provisioner.go" "$src/main.go"
  out="$(mktemp -d "$K8S_CACHE_DIR/out.XXXXXX")"
  compile hostpath-provisioner "$src" "$out" "-s -w" .
  mv -f "$out/cluster-build" "$BIN_DIR/hostpath-provisioner"
  rm -rf "$out"
  echo "$provisioner_stamp" >"$BIN_DIR/.stamp-hostpath-provisioner"
fi

# --- the real node: containerd 2.x, its runc shim and ctr ------------------------------------------
if stamp_ok containerd "$containerd_stamp" containerd containerd-shim-runc-v2 ctr; then
  log "[containerd] $CONTAINERD_VERSION already built"
else
  log "[containerd] building $CONTAINERD_VERSION from the Go module proxy"
  containerd_gomod="$(module_gomod github.com/containerd/containerd/v2 "$CONTAINERD_VERSION")"
  src="$K8S_CACHE_DIR/src/containerd"
  cmds=(github.com/containerd/containerd/v2/cmd/containerd github.com/containerd/containerd/v2/cmd/containerd-shim-runc-v2
    github.com/containerd/containerd/v2/cmd/ctr)
  write_module "$src" "$(go_directive "$containerd_gomod")" github.com/containerd/containerd/v2 "$CONTAINERD_VERSION" \
    "$CONTAINERD_VERSION" "$(local_replaces "$containerd_gomod")" "${cmds[@]}"
  out="$(mktemp -d "$K8S_CACHE_DIR/out.XXXXXX")"
  # Without cgo the btrfs snapshotter drops out by itself; zfs and devmapper are left out by tag. The
  # node uses overlayfs.
  COMPILE_TAGS="no_zfs no_devmapper no_btrfs urfave_cli_no_docs osusergo netgo" \
    compile containerd "$src" "$out" "-s -w -X github.com/containerd/containerd/v2/version.Version=$CONTAINERD_VERSION" "${cmds[@]}"
  for b in containerd containerd-shim-runc-v2 ctr; do mv -f "$out/$b" "$BIN_DIR/$b"; done
  rm -rf "$out"
  echo "$containerd_stamp" >"$BIN_DIR/.stamp-containerd"
fi

# --- the real node: CoreDNS with the plugins cluster DNS needs ---------------------------------------
if stamp_ok coredns "$coredns_stamp" coredns; then
  log "[coredns] $COREDNS_VERSION already built"
else
  log "[coredns] building $COREDNS_VERSION from the Go module proxy"
  coredns_gomod="$(module_gomod github.com/coredns/coredns "$COREDNS_VERSION")"
  src="$K8S_CACHE_DIR/src/coredns"
  mapfile -t plugins < <(sed -n 's/^[[:space:]]*_ "\(github.com\/coredns\/coredns\/plugin\/[a-z]*\)"$/\1/p' "$here/node/coredns.go")
  write_module "$src" "$(go_directive "$coredns_gomod")" github.com/coredns/coredns "$COREDNS_VERSION" \
    "$COREDNS_VERSION" "$(local_replaces "$coredns_gomod")" github.com/coredns/coredns/coremain "${plugins[@]}"
  cp "$here/node/coredns.go" "$src/main.go"
  out="$(mktemp -d "$K8S_CACHE_DIR/out.XXXXXX")"
  compile coredns "$src" "$out" "-s -w" .
  mv -f "$out/cluster-build" "$BIN_DIR/coredns"
  rm -rf "$out"
  echo "$coredns_stamp" >"$BIN_DIR/.stamp-coredns"
fi

# --- the real node: the pod sandbox process ----------------------------------------------------------
if stamp_ok pause "$pause_stamp" pause; then
  log "[pause] already built"
else
  src="$K8S_CACHE_DIR/src/pause"
  rm -rf "$src"
  mkdir -p "$src"
  printf 'module colony.local/pause\n\ngo 1.26\n' >"$src/go.mod"
  cp "$here/node/pause.go" "$src/main.go"
  out="$(mktemp -d "$K8S_CACHE_DIR/out.XXXXXX")"
  compile pause "$src" "$out" "-s -w" .
  mv -f "$out/pause" "$BIN_DIR/pause"
  rm -rf "$out"
  echo "$pause_stamp" >"$BIN_DIR/.stamp-pause"
fi

log "all binaries ready in $BIN_DIR ($((SECONDS - build_start))s)"
echo "$BIN_DIR"
