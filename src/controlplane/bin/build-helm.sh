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

helm_dir="$cache_root/helm/$HELM_VERSION"
helm_bin="$helm_dir/helm"
marker="$helm_dir/.complete"
cache_ok() { [[ -f "$marker" && -x "$helm_bin" ]]; }

use_cache_or_lock "$helm_bin" "$marker" .helm.lock

command -v go >/dev/null 2>&1 || die "the 'go' tool is not on PATH (needed to build helm $HELM_VERSION)"
start=$(date +%s)
work="$cache_root/build/helm-$HELM_VERSION"
rm -rf "$work"
mkdir -p "$work"
# The host's platform (common.sh): the binary runs here, next to the tests.
export CGO_ENABLED=0 GOOS="$host_os" GOARCH="$host_arch"
export GOFLAGS="-p=${BUILD_JOBS:-2}"
ldf="-s -w -X helm.sh/helm/v3/internal/version.version=$HELM_VERSION -X helm.sh/helm/v3/internal/version.gitTreeState=clean"
log "go install helm.sh/helm/v3/cmd/helm@$HELM_VERSION ($GOOS/$GOARCH; a cold build takes a few minutes on 2 cores)"
( GOBIN="$work" nice -n "${BUILD_NICE:-10}" go install -trimpath -ldflags "$ldf" "helm.sh/helm/v3/cmd/helm@$HELM_VERSION" ) \
  > "$work/build.log" 2>&1 \
  || { tail -n 30 "$work/build.log" >&2; die "go install of helm $HELM_VERSION failed (log: $work/build.log)"; }
"$work/helm" version --short | grep -q "^$HELM_VERSION" \
  || die "helm reports '$("$work/helm" version --short)', expected $HELM_VERSION (ldflags stamping failed)"
mkdir -p "$helm_dir"
rm -f "$marker"
install -m 0755 "$work/helm" "$helm_dir/.helm.tmp" && mv -f "$helm_dir/.helm.tmp" "$helm_bin"
secs=$(( $(date +%s) - start ))
printf 'helm=%s\narch=%s\ngo=%s\nbuild_seconds=%s\n' "$HELM_VERSION" "$GOARCH" "$(go env GOVERSION)" "$secs" > "$marker.tmp"
mv "$marker.tmp" "$marker"
log "done in ${secs}s: $helm_bin"
echo "$helm_bin"
