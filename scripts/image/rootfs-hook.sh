#!/usr/bin/env bash
# Shapes the root of a Node base image (see bases.sh):
# <root> build <node dir> <npm tarball>   node and npm in /usr/local (a layer for node:*-bookworm-slim)
# <root> runtime <node dir>               an mmdebstrap hook: Debian's extracted libraries become a
#                                         distroless-like root with node at /nodejs/bin/node
set -euo pipefail
root="${1:?}" kind="$2" node_home="$3"
# It deletes with rm -rf inside $root: never let that be the machine's own root.
[ "$(cd "$root" && pwd -P)" != / ] || { echo "rootfs-hook: refusing to work on /" >&2; exit 2; }

case "$kind" in
  build)
    install -D -m 0755 "$node_home/bin/node" "$root/usr/local/bin/node"
    npm_dir="$root/usr/local/lib/node_modules/npm"
    mkdir -p "$npm_dir"
    tar -xzf "$4" -C "$npm_dir" --strip-components=1 --no-same-owner
    # The registry tarball does not mark the CLIs executable; npm's own installer would.
    chmod 0755 "$npm_dir/bin/npm-cli.js" "$npm_dir/bin/npx-cli.js"
    ln -s ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/local/bin/npm"
    ln -s ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/local/bin/npx"
    ;;
  runtime)
    cd "$root"
    # The packages were only extracted: apt's and dpkg's scaffolding is dead weight with no dpkg to
    # read it, resolv.conf and hostname come from the container runtime, and iconv's charset modules
    # (gconv) and debugger helpers go unused (node converts charsets with its own ICU).
    rm -rf etc/apt etc/dpkg var etc/resolv.conf etc/hostname etc/fstab usr/share/gcc usr/share/gdb \
      usr/share/lintian usr/lib/*/gconv
    # Licences stay (the copyright files), the rest of the documentation goes.
    find usr/share/doc ! -type d ! -name copyright -delete
    install -D -m 0755 "$node_home/bin/node" nodejs/bin/node
    # The users distroless images have; nonroot (65532) is the one the Dockerfile runs as.
    printf '%s\n' 'root:x:0:0:root:/root:/sbin/nologin' 'nobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin' \
      'nonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin' >etc/passwd
    printf '%s\n' 'root:x:0:' 'nobody:x:65534:' 'nonroot:x:65532:' >etc/group
    # Without it glibc consults /etc/hosts only when DNS is unreachable; Kubernetes writes /etc/hosts.
    printf '%s\n' 'passwd: files' 'group: files' 'hosts: files dns' >etc/nsswitch.conf
    install -d -m 1777 tmp
    install -d -m 0700 root
    install -d -m 0700 -o 65532 -g 65532 home/nonroot
    ;;
  *)
    echo "rootfs-hook: unknown kind '$kind'" >&2
    exit 2
    ;;
esac
