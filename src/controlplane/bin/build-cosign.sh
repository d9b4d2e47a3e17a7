#!/usr/bin/env bash
# Builds a pinned `cosign` from the Go module proxy (github.com/sigstore/cosign/v2, cmd/cosign) and caches it by version
# outside the clone, like build-crane.sh. make publish signs the images and the chart with it and attaches the images'
# SBOMs as signed attestations (SIGN_KEY=..., or SIGN=keyless in a release); the real-node tests verify them. A cold
# build takes several minutes on 2 cores (cosign pulls in the clouds' KMS clients); after build.sh, at Kubernetes'
# module versions (common.sh's k8s_aligned_build), about 100 CPU-seconds less. Prints the path of the binary.
#
# Env:
#   STREAMS_MEMORY_CACHE  cache root (default in versions.env)
#   COSIGN_VERSION        cosign version (default from versions.env)
#   BUILD_JOBS            parallel go build jobs (default 2)
#   FORCE=1               rebuild even if the cache marker exists
set -euo pipefail

. "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/common.sh"

# cosign reads its version from release-utils' gitVersion, else from the main module's version, which is the wrapper's
# in a build at Kubernetes' module versions: hence the -X.
go_install_tool cosign "$COSIGN_VERSION" "github.com/sigstore/cosign/v2/cmd/cosign@$COSIGN_VERSION" \
  "-s -w -X sigs.k8s.io/release-utils/version.gitVersion=$COSIGN_VERSION" "{} version --json" github.com/sigstore/cosign/v2
