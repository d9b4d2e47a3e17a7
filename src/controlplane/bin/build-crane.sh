#!/usr/bin/env bash
# Builds a pinned `crane` from the Go module proxy (github.com/google/go-containerregistry, cmd/crane) and caches it
# by version outside the clone, like build-helm.sh. crane pushes make images' tarballs to a registry (make publish)
# and serves the local control plane's registry (`crane registry serve`). Prints the path of the crane binary.
#
# Env:
#   STREAMS_MEMORY_CACHE  cache root (default in versions.env)
#   CRANE_VERSION         go-containerregistry version (default from versions.env)
#   BUILD_JOBS            parallel go build jobs (default 2)
#   FORCE=1               rebuild even if the cache marker exists
set -euo pipefail

. "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/common.sh"

go_install_tool crane "$CRANE_VERSION" "github.com/google/go-containerregistry/cmd/crane@$CRANE_VERSION" \
  "-s -w -X github.com/google/go-containerregistry/cmd/crane/cmd.Version=$CRANE_VERSION" \
  "{} version"
