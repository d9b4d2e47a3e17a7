#!/usr/bin/env bash
# Builds a pinned `helm` from the Go module proxy (helm.sh/helm/v3, cmd/helm) and caches it by version
# outside the clone, like build.sh does for the Kubernetes binaries. Later runs reuse the cache (marker
# file .complete) and finish at once. Prints the path of the helm binary on stdout.
#
# Env:
#   STREAMS_MEMORY_CACHE  cache root (default in versions.env)
#   HELM_VERSION          helm version (default from versions.env)
#   BUILD_JOBS            parallel go build jobs (default 2)
#   FORCE=1               rebuild even if the cache marker exists
set -euo pipefail

. "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/common.sh"

go_install_tool helm "$HELM_VERSION" "helm.sh/helm/v3/cmd/helm@$HELM_VERSION" \
  "-s -w -X helm.sh/helm/v3/internal/version.version=$HELM_VERSION -X helm.sh/helm/v3/internal/version.gitTreeState=clean" \
  "{} version --short"
