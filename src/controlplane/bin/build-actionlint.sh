#!/usr/bin/env bash
# Builds a pinned `actionlint` from the Go module proxy (github.com/rhysd/actionlint, cmd/actionlint) and caches it by
# version outside the clone, like build-crane.sh. make lint-workflows (part of make test) checks .github/workflows/
# with it. Prints the path of the binary.
#
# Env:
#   STREAMS_MEMORY_CACHE  cache root (default in versions.env)
#   ACTIONLINT_VERSION    actionlint version (default from versions.env)
#   FORCE=1               rebuild even if the cache marker exists
set -euo pipefail

. "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/common.sh"

go_install_tool actionlint "$ACTIONLINT_VERSION" "github.com/rhysd/actionlint/cmd/actionlint@$ACTIONLINT_VERSION" \
  "-s -w -X github.com/rhysd/actionlint.version=$ACTIONLINT_VERSION" "{} -version"
