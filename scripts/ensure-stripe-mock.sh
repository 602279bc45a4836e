#!/usr/bin/env bash
# Builds stripe-mock (Stripe's mock of its API, for the Stripe processor tests) from the Go module proxy,
# pinned, into ~/.cache/colony/bin. Needs Go; does nothing when the pinned build is already there.
set -euo pipefail
version="v0.203.0"
COLONY_CACHE="${COLONY_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/colony}"
bin="$COLONY_CACHE/bin"
stamp="$bin/.stripe-mock-$version"
if [ -x "$bin/stripe-mock" ] && [ -f "$stamp" ]; then
  echo "STRIPE_MOCK_BIN=$bin/stripe-mock"
  exit 0
fi
command -v go >/dev/null || { echo "ensure-stripe-mock: Go is required to build stripe-mock" >&2; exit 1; }
mkdir -p "$bin"
echo "ensure-stripe-mock: building github.com/stripe/stripe-mock@$version" >&2
GOBIN="$bin" GOFLAGS=-mod=mod go install "github.com/stripe/stripe-mock@$version" >&2
touch "$stamp"
echo "STRIPE_MOCK_BIN=$bin/stripe-mock"
