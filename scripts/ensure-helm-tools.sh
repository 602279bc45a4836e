#!/usr/bin/env bash
# Installs the chart tooling, pinned and cached outside the checkout, and prints where it is:
#   helm, ct (chart-testing) and actionlint from the Go module proxy (built from pinned releases),
#   yamllint and yamale (ct's linters) from PyPI into a virtualenv.
# Nothing comes from release pages. A second run only checks stamps and returns at once.
# Output (stdout, one per line, shell-sourceable): HELM=… CT=… ACTIONLINT=… YAMLLINT=… YAMALE=…
# CT_CHART_SCHEMA=… (ct's own chart_schema.yaml, which only ct's release archive ships) and
# finally HELM_TOOLS_BIN=<dir> (put it on PATH: ct runs helm, yamllint and yamale from there).
set -euo pipefail

HELM_VERSION="${COLONY_HELM_VERSION:-v3.22.0}"
CT_VERSION="${COLONY_CT_VERSION:-v3.14.0}"
ACTIONLINT_VERSION="${COLONY_ACTIONLINT_VERSION:-v1.7.12}"
YAMLLINT_VERSION="${COLONY_YAMLLINT_VERSION:-1.38.0}"
YAMALE_VERSION="${COLONY_YAMALE_VERSION:-6.1.0}"

COLONY_CACHE="${COLONY_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/colony}"
tools="$COLONY_CACHE/helm-tools"
bin="$tools/bin"
mkdir -p "$bin" "$tools/logs"
# One installer at a time (test files may call this concurrently on a fresh machine).
exec 9>"$tools/.lock"
flock 9

log() { printf '[helm-tools] %s\n' "$*" >&2; }
GO="${GO:-$(command -v /usr/local/go/bin/go || command -v go || true)}"

# Upstream's release ldflags where they matter: helm's version, and the Kubernetes version helm
# assumes without a cluster (`helm template`, `helm lint`), which its Makefile derives from client-go.
ldflags_for() {
  case "$1" in
    helm)
      local kv major minor
      kv="$("$GO" list -m -f '{{.Version}}' k8s.io/client-go)" # v0.M.P -> Kubernetes 1.M
      major=1 minor="$(echo "$kv" | cut -d. -f2)"
      printf '%s ' -s -w "-X helm.sh/helm/v3/internal/version.version=$2" \
        "-X helm.sh/helm/v3/internal/version.gitTreeState=clean" \
        "-X helm.sh/helm/v3/pkg/lint/rules.k8sVersionMajor=$major" \
        "-X helm.sh/helm/v3/pkg/lint/rules.k8sVersionMinor=$minor" \
        "-X helm.sh/helm/v3/pkg/chartutil.k8sVersionMajor=$major" \
        "-X helm.sh/helm/v3/pkg/chartutil.k8sVersionMinor=$minor"
      ;;
    ct) printf '%s ' -s -w "-X github.com/helm/chart-testing/v3/ct/cmd.Version=$2" ;;
    actionlint) printf '%s ' -s -w "-X github.com/rhysd/actionlint.version=$2" ;;
  esac
}

# go_tool <name> <main package> <version>: built in a throwaway module that requires the release.
# (`go install pkg@version` would also read the module's version list for deprecation notices, and
# the proxy refuses that list for some modules, e.g. chart-testing.)
go_tool() {
  local name="$1" pkg="$2" version="$3" stamp="$bin/.stamp-$1" src="$tools/src/$1" recipe=2
  if [ -x "$bin/$name" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$pkg@$version r$recipe" ]; then return; fi
  [ -n "$GO" ] || { log "ERROR: Go is needed to build $name ($pkg@$version)"; exit 1; }
  log "building $name $version ($pkg@$version through the Go module proxy; log: $tools/logs/$name.log)"
  rm -rf "$src" && mkdir -p "$src"
  printf 'module colony.local/tools/%s\n\ngo 1.24\n' "$name" >"$src/go.mod"
  if ! (
    cd "$src" &&
      export GOFLAGS=-buildvcs=false CGO_ENABLED=0 GOTOOLCHAIN=local &&
      "$GO" get "$pkg@$version" &&
      nice -n "${COLONY_BUILD_NICE:-10}" "$GO" build -trimpath -ldflags "$(ldflags_for "$name" "$version")" \
        -o "$bin/$name" "$pkg"
  ) >"$tools/logs/$name.log" 2>&1; then
    tail -n 20 "$tools/logs/$name.log" >&2
    exit 1
  fi
  echo "$pkg@$version r$recipe" >"$stamp"
}

go_tool helm helm.sh/helm/v3/cmd/helm "$HELM_VERSION"
go_tool ct github.com/helm/chart-testing/v3/ct "$CT_VERSION"
go_tool actionlint github.com/rhysd/actionlint/cmd/actionlint "$ACTIONLINT_VERSION"

# ct validates Chart.yaml against the schema it ships in etc/; take it from the module we built.
schema="$tools/ct-$CT_VERSION/chart_schema.yaml"
if [ ! -f "$schema" ]; then
  moddir="$("$GO" env GOMODCACHE)/github.com/helm/chart-testing/v3@$CT_VERSION"
  mkdir -p "$(dirname "$schema")"
  cp "$moddir/etc/chart_schema.yaml" "$schema"
  chmod u+w "$schema"
fi

venv="$tools/venv"
want="yamllint==$YAMLLINT_VERSION yamale==$YAMALE_VERSION"
if [ ! -x "$venv/bin/yamllint" ] || [ "$(cat "$venv/.stamp" 2>/dev/null)" != "$want" ]; then
  log "installing $want from PyPI into $venv"
  python3 -m venv "$venv"
  # shellcheck disable=SC2086 # $want is two requirement specifiers
  "$venv/bin/pip" install --quiet --disable-pip-version-check $want >"$tools/logs/pip.log" 2>&1 ||
    { tail -n 20 "$tools/logs/pip.log" >&2; exit 1; }
  echo "$want" >"$venv/.stamp"
fi
ln -sf "$venv/bin/yamllint" "$bin/yamllint"
ln -sf "$venv/bin/yamale" "$bin/yamale"

echo "HELM=$bin/helm"
echo "CT=$bin/ct"
echo "ACTIONLINT=$bin/actionlint"
echo "YAMLLINT=$bin/yamllint"
echo "YAMALE=$bin/yamale"
echo "CT_CHART_SCHEMA=$schema"
echo "HELM_TOOLS_BIN=$bin"
