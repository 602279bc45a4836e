#!/usr/bin/env bash
# `npm run image`: builds the Dockerfile with buildah on local base images (no Docker, no registry),
# exports it as an OCI archive and loads it into the local node if there is one.
# Progress goes to stderr; the last stdout line is `IMAGE=<reference>`. The agents' init image is
# built beside it as `<repository>-init` with the same tag.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
# Only for Node itself (bases.sh copies it into both bases): the build installs its own dependencies.
# shellcheck source=scripts/toolchain.sh
COLONY_SKIP_NPM_CI=1 . scripts/toolchain.sh
# shellcheck source=scripts/image/lib.sh
. scripts/image/lib.sh
# shellcheck source=scripts/image/bases.sh
. scripts/image/bases.sh

repo="colony.local/colony"
start=$SECONDS
mkdir -p "$IMAGE_TMP"
trap 'rm -rf "$IMAGE_TMP"' EXIT
ensure_image_tools
ensure_build_base
ensure_runtime_base
log "runtime base $RUNTIME_BASE: $(image_size "$RUNTIME_BASE")"

build_opts=(--layers --pull=never --network host
  --build-arg BUILD_IMAGE="$BUILD_BASE" --build-arg RUNTIME_IMAGE="$RUNTIME_BASE")
# The registry the machine's npm uses (its mirror, if it has one). Always given: buildah warns about
# an ARG without a value.
build_opts+=(--build-arg NPM_CONFIG_REGISTRY="${NPM_CONFIG_REGISTRY:-$(npm config get registry)}")
# The machine's CA bundle replaces the build base's for RUN steps (mounted, never part of a layer), so
# `npm ci` gets through wherever the host's own npm does.
host_ca="${NODE_EXTRA_CA_CERTS:-/etc/ssl/certs/ca-certificates.crt}"
[ ! -r "$host_ca" ] || build_opts+=(--volume "$host_ca:/etc/ssl/certs/ca-certificates.crt:ro")

# Two targets: the Colony image, and the agents' colony-init image (COLONY_INIT_IMAGE) beside it.
build_target() { # <target> -> image ID
  local iidfile="$IMAGE_TMP/iid-$1" id
  log "building the Dockerfile (target $1)"
  buildah_cmd bud "${build_opts[@]}" --iidfile "$iidfile" --target "$1" -f Dockerfile . >&2
  id="$(cat "$iidfile")"
  echo "${id#sha256:}"
}
id="$(build_target api)"
init_id="$(build_target init)"
# The tag names the content: the image IDs are stable while nothing changes (every layer comes from
# the cache), so a cluster with imagePullPolicy IfNotPresent sees each change as a new image. Both
# images share it, so the init image's reference follows from the Colony image's.
tag="$(node -p 'require("./package.json").version')-$(printf '%s %s' "$id" "$init_id" | sha256sum | cut -c1-12)"
ref="$repo:$tag"
init_ref="$repo-init:$tag"
buildah_cmd tag "$id" "$ref" "$repo:dev"
buildah_cmd tag "$init_id" "$init_ref" "$repo-init:dev"
log "built $ref ($(image_size "$ref")) and $init_ref ($(image_size "$init_ref")) in $((SECONDS - start)) s"

for r in "$repo" "$repo-init"; do
  archive="$(export_image "$r:$tag")"
  # Older archives of this repository are superseded.
  find "$(dirname "$archive")" -name "${r//[\/:]/_}_*.oci.tar" ! -path "$archive" -delete
  log "OCI archive: $archive"
  load_into_node "$archive" "$r:$tag" "$r:dev"
done
echo "IMAGE=$ref"
