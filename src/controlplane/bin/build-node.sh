#!/usr/bin/env bash
# Builds what a real local node runs besides Debian's runc and CNI plugins: containerd, ctr and the runc shim
# (github.com/containerd/containerd/v2 at CONTAINERD_VERSION) and kubelet (k8s.io/kubernetes at K8S_VERSION), from the
# Go module proxy, and caches them by version outside the clone like build.sh. Later runs reuse the cache (marker
# .complete). Prints the cache folder on stdout.
#
# Env: STREAMS_MEMORY_CACHE, K8S_VERSION, CONTAINERD_VERSION (defaults in versions.env), BUILD_JOBS (2), FORCE=1.
set -euo pipefail

. "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/common.sh"

bin_dir="$node_bin_dir"
marker="$bin_dir/.complete"
required=(containerd ctr containerd-shim-runc-v2 kubelet)
cache_ok() {
  [[ -f "$marker" ]] || return 1
  local b
  for b in "${required[@]}"; do [[ -x "$bin_dir/$b" ]] || return 1; done
}

# runc and the CNI plugins are Debian's (crun refuses this kind of machine's hybrid cgroups); installed here when missing
# and we may. Without them the control plane says why and starts kwok's fake node instead of a real one.
if [[ ! -x /usr/sbin/runc || ! -x /usr/lib/cni/bridge ]]; then
  if [[ "$(id -u)" == 0 ]] && command -v apt-get > /dev/null 2>&1; then
    mkdir -p "$cache_root/build"
    log "installing Debian's runc and containernetworking-plugins"
    DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -q runc containernetworking-plugins > "$cache_root/build/apt-node.log" 2>&1 \
      || log "WARNING: apt-get install runc containernetworking-plugins failed (log: $cache_root/build/apt-node.log)"
  else
    log "runc or the CNI plugins are missing and cannot be installed here (not root, or no apt-get)"
  fi
fi

use_cache_or_lock "$bin_dir" "$marker" .node.lock

command -v go >/dev/null 2>&1 || die "the 'go' tool is not on PATH (needed to build containerd $CONTAINERD_VERSION and kubelet $K8S_VERSION)"
begin_go_build "$cache_root/build/node-$CONTAINERD_VERSION-$K8S_VERSION"

# --- containerd: static, without the btrfs snapshotter (needs cgo); the shim also without gRPC -----------------------
cdir="$work/containerd-wrapper"
mkdir -p "$cdir"
printf 'module streamsmemory.local/containerd-build\n\ngo 1.24\n\nrequire github.com/containerd/containerd/v2 %s\n' \
  "$CONTAINERD_VERSION" > "$cdir/go.mod"
printf '//go:build tools\n\npackage tools\n\nimport _ "github.com/containerd/containerd/v2/cmd/containerd"\n' > "$cdir/tools.go"
log "containerd $CONTAINERD_VERSION: resolving modules"
( cd "$cdir" && "${NICE[@]}" go mod tidy ) > "$work/containerd-tidy.log" 2>&1 \
  || { tail -n 30 "$work/containerd-tidy.log" >&2; die "go mod tidy failed for containerd $CONTAINERD_VERSION (log: $work/containerd-tidy.log)"; }
cldf="-s -w -X github.com/containerd/containerd/v2/version.Version=$CONTAINERD_VERSION"
tags="urfave_cli_no_docs osusergo netgo static_build no_btrfs"
for cmd in containerd-shim-runc-v2 ctr containerd; do
  t=$tags; [[ $cmd == containerd-shim-runc-v2 ]] && t="$tags no_grpc"
  log "  go build $cmd"
  t0=$(date +%s)
  ( cd "$cdir" && "${NICE[@]}" go build -trimpath -tags "$t" -ldflags "$cldf" -o "$stage/$cmd" \
      "github.com/containerd/containerd/v2/cmd/$cmd" ) > "$work/build-$cmd.log" 2>&1 \
    || { tail -n 30 "$work/build-$cmd.log" >&2; die "go build of $cmd ($CONTAINERD_VERSION) failed (log: $work/build-$cmd.log)"; }
  log "  $cmd done in $(( $(date +%s) - t0 ))s"
done

# --- kubelet, in a wrapper module like build.sh's -----------------------------------------------------------------
kdir="$work/k8s-wrapper"
k8s_wrapper_module "$kdir" "$work/kubernetes.mod" k8s.io/kubernetes/cmd/kubelet
log "kubelet $K8S_VERSION: resolving modules"
( cd "$kdir" && "${NICE[@]}" go mod tidy ) > "$work/kubelet-tidy.log" 2>&1 \
  || { tail -n 30 "$work/kubelet-tidy.log" >&2; die "go mod tidy failed for kubelet $K8S_VERSION (log: $work/kubelet-tidy.log)"; }
log "  go build kubelet (about 9 min on 2 cores when nothing is cached)"
t0=$(date +%s)
( cd "$kdir" && "${NICE[@]}" go build -trimpath -ldflags "$(k8s_version_ldflags)" -o "$stage/kubelet" k8s.io/kubernetes/cmd/kubelet ) \
  > "$work/build-kubelet.log" 2>&1 \
  || { tail -n 30 "$work/build-kubelet.log" >&2; die "go build of kubelet ($K8S_VERSION) failed (log: $work/build-kubelet.log)"; }
log "  kubelet done in $(( $(date +%s) - t0 ))s"

install_into_cache "$stage" "$bin_dir" "$marker" \
  "containerd=$CONTAINERD_VERSION" "kubelet=$K8S_VERSION" "platform=$GOOS/$GOARCH" "go=$(go env GOVERSION)" \
  "build_seconds=$(( $(date +%s) - start ))"
log "done in $(( $(date +%s) - start ))s: $bin_dir"
echo "$bin_dir"
