#!/usr/bin/env bash
# Builds a pinned `cosign` from the Go module proxy (github.com/sigstore/cosign/v2, cmd/cosign) and caches it by version
# outside the clone, like build-crane.sh. make publish signs the images and the chart with it and attaches the images'
# SBOMs as signed attestations (SIGN_KEY=..., or SIGN=keyless in a release); the real-node tests verify them. A cold
# build took 277 s on 2 cores with the clouds' KMS clients, which this build leaves out. Prints the path of the binary.
#
# Env:
#   STREAMS_MEMORY_CACHE  cache root (default in versions.env)
#   COSIGN_VERSION        cosign version (default from versions.env)
#   BUILD_JOBS            parallel go build jobs (default 2)
#   FORCE=1               rebuild even if the cache marker exists
set -euo pipefail

. "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/common.sh"

# cosign's command without the clouds' KMS clients (src/controlplane/tools/cosign/main.go says why), at cosign's
# pinned version; its version string, which a build from another main module leaves at "devel", set at link time.
go_install_tool cosign "$COSIGN_VERSION" "github.com/sigstore/cosign/v2@$COSIGN_VERSION" \
  "-s -w -X sigs.k8s.io/release-utils/version.gitVersion=$COSIGN_VERSION" "{} version --json" \
  "$(cd "$(dirname "${BASH_SOURCE[0]}")/../tools/cosign" && pwd)/main.go"
