#!/usr/bin/env bash
# The e2e tier's own images, built with buildah on the project's storage (no Docker, no registry) and
# loaded into the local node like the Colony image:
#   colony.local/e2e-service   the per-office service stand-in: the Colony image + test/e2e/images/service
#   colony.local/e2e-postgres  PostgreSQL from Debian's packages, for the in-cluster API
# Needs the Colony image (`npm run image`): COLONY_E2E_IMAGE, default colony.local/colony:dev.
# Progress goes to stderr; stdout ends with SERVICE_IMAGE=<ref> and POSTGRES_IMAGE=<ref> (content tags,
# each also tagged :dev, the name the e2e tier uses by default).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
# shellcheck source=scripts/toolchain.sh
COLONY_SKIP_NPM_CI=1 . scripts/toolchain.sh
# shellcheck source=scripts/image/lib.sh
. scripts/image/lib.sh
# shellcheck source=scripts/image/bases.sh
. scripts/image/bases.sh

colony_image="${COLONY_E2E_IMAGE:-colony.local/colony:dev}"
ensure_image_tools
image_exists "$colony_image" || die "no image $colony_image in the project's image storage: run \`npm run image\` first"
# PostgreSQL comes from Debian's packages on the plain Debian base (no node: it needs none).
ensure_debian_base

# Builds <context dir> as <repository>:<content tag> and :dev, exports and loads it; prints the ref.
# <repository> <context dir> [buildah bud options...]
build_e2e_image() {
  local repo="$1" context="$2" iidfile id ref archive
  shift 2
  iidfile="$(mktemp)"
  log "building $repo from $context"
  buildah_cmd bud --layers --pull=never --network host --iidfile "$iidfile" "$@" -f "$context/Dockerfile" \
    "$context" >&2
  id="$(cat "$iidfile")"
  rm -f "$iidfile"
  id="${id#sha256:}"
  # The tag names the content, as build.sh does for the Colony image.
  ref="$repo:${id:0:12}"
  buildah_cmd tag "$id" "$ref" "$repo:dev"
  archive="$(export_image "$ref")"
  find "$(dirname "$archive")" -name "${repo//[\/:]/_}_*.oci.tar" ! -path "$archive" -delete
  load_into_node "$archive" "$ref" "$repo:dev"
  echo "$ref"
}

service="$(build_e2e_image colony.local/e2e-service test/e2e/images/service \
  --build-arg COLONY_IMAGE="$colony_image")"
postgres="$(build_e2e_image colony.local/e2e-postgres test/e2e/images/postgres \
  --build-arg BASE_IMAGE="$DEBIAN_BASE")"
echo "SERVICE_IMAGE=$service"
echo "POSTGRES_IMAGE=$postgres"
