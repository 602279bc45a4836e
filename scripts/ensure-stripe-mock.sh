#!/usr/bin/env bash
# Builds stripe-mock (Stripe's mock of its API, for the Stripe processor tests) from the Go module proxy,
# pinned, into ~/.cache/colony/bin. Needs Go; does nothing when the pinned build is already there.
set -euo pipefail
version="v0.203.0"
COLONY_CACHE="${COLONY_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/colony}"
bin="$COLONY_CACHE/bin"
stamp="$bin/.stripe-mock-$version"
mkdir -p "$bin"
# One build at a time (parallel callers on a fresh machine wait for the first).
exec 9>"$bin/.stripe-mock.lock"
flock 9
if [ -x "$bin/stripe-mock" ] && [ -f "$stamp" ]; then
  echo "STRIPE_MOCK_BIN=$bin/stripe-mock"
  exit 0
fi
GO="${GO:-$(command -v /usr/local/go/bin/go || command -v go || true)}"
[ -n "$GO" ] || { echo "ensure-stripe-mock: Go is required to build stripe-mock" >&2; exit 1; }
echo "ensure-stripe-mock: building github.com/stripe/stripe-mock@$version" >&2
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
# Built into a scratch folder and moved in place, so an interrupted build never leaves a broken binary.
GOBIN="$tmp" GOFLAGS=-mod=mod GOTOOLCHAIN=local CGO_ENABLED=0 nice -n "${COLONY_BUILD_NICE:-10}" \
  "$GO" install "github.com/stripe/stripe-mock@$version" >&2
mv "$tmp/stripe-mock" "$bin/stripe-mock"
rm -f "$bin"/.stripe-mock-v*
touch "$stamp"
echo "STRIPE_MOCK_BIN=$bin/stripe-mock"
