#!/usr/bin/env bash
# Builds kube-apiserver, kube-controller-manager, kube-scheduler, kubectl, etcd (and kwok, best effort)
# at one pinned version from the Go module proxy, and caches them by version outside
# the clone. Later runs reuse the cache (marker file .complete) and finish in seconds.
#
# Env:
#   STREAMS_MEMORY_CACHE  cache root (default in versions.env)
#   K8S_VERSION           Kubernetes version (default from versions.env)
#   ETCD_VERSION          etcd server version (default from versions.env)
#   KWOK_VERSION          kwok version (default from versions.env); KWOK=0 skips kwok
#   BUILD_JOBS            parallel go build jobs (default 2)
#   FORCE=1               rebuild even if the cache marker exists
set -euo pipefail

. "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/common.sh"

bin_dir="$k8s_bin_dir"
marker="$bin_dir/.complete"
required=(kube-apiserver kube-controller-manager kube-scheduler kubectl etcd)

cache_ok() {
  [[ -f "$marker" ]] || return 1
  local b
  for b in "${required[@]}"; do [[ -x "$bin_dir/$b" ]] || return 1; done
}

use_cache_or_lock "$bin_dir" "$marker" .lock

command -v go >/dev/null 2>&1 || die "the 'go' tool is not on PATH (need Go >= 1.26 to build Kubernetes $K8S_VERSION)"
command -v curl >/dev/null 2>&1 || die "'curl' is needed to read the published go.mod of k8s.io/kubernetes"

begin_go_build "$cache_root/build/$K8S_VERSION"

# --- Kubernetes -------------------------------------------------------------
log "Kubernetes $K8S_VERSION: a wrapper module (common.sh's k8s_wrapper_module)"
kdir="$work/k8s-wrapper"
k8s_wrapper_module "$kdir" "$work/kubernetes.mod" k8s.io/kubernetes/cmd/kube-apiserver \
  k8s.io/kubernetes/cmd/kube-controller-manager k8s.io/kubernetes/cmd/kube-scheduler k8s.io/kubernetes/cmd/kubectl
go_line="$(grep -E '^go [0-9]' "$work/kubernetes.mod" | head -n1)"
log "  resolving modules (go mod tidy) - downloads a few hundred MB on a cold Go cache"
( cd "$kdir" && "${NICE[@]}" go mod tidy ) > "$work/k8s-tidy.log" 2>&1 \
  || { tail -n 30 "$work/k8s-tidy.log" >&2; die "go mod tidy failed for Kubernetes $K8S_VERSION (log: $work/k8s-tidy.log)"; }

ldf="$(k8s_version_ldflags)"
# One go build for the four commands: their shared packages compile once in one scheduler, and one binary links while
# the next one's packages compile (four builds in turn left a core idle through each link).
cmds=(kube-apiserver kube-controller-manager kube-scheduler kubectl)
log "  go build ${cmds[*]} (several minutes on 2 cores for a cold build)"
t0=$(date +%s)
( cd "$kdir" && "${NICE[@]}" go build -trimpath -ldflags "$ldf" -o "$stage/" "${cmds[@]/#/k8s.io/kubernetes/cmd/}" ) \
  > "$work/build-kubernetes.log" 2>&1 \
  || { tail -n 30 "$work/build-kubernetes.log" >&2; die "go build of ${cmds[*]} ($K8S_VERSION) failed (log: $work/build-kubernetes.log)"; }
log "  ${cmds[*]} done in $(( $(date +%s) - t0 ))s"

# --- etcd ---------------------------------------------------------------------
log "etcd $ETCD_VERSION"
edir="$work/etcd-wrapper"
mkdir -p "$edir"
cat > "$edir/go.mod" <<GOMOD
module streamsmemory.local/etcd

$go_line

require go.etcd.io/etcd/server/v3 $ETCD_VERSION
GOMOD
cat > "$edir/main.go" <<'GO'
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }
GO
rm -f "$edir/go.sum"
t0=$(date +%s)
( cd "$edir" && "${NICE[@]}" go mod tidy && "${NICE[@]}" go build -trimpath \
    -ldflags "-s -w" -o "$stage/etcd" . ) > "$work/build-etcd.log" 2>&1 \
  || { tail -n 30 "$work/build-etcd.log" >&2; die "building etcd $ETCD_VERSION failed (log: $work/build-etcd.log)"; }
log "  etcd done in $(( $(date +%s) - t0 ))s"

# --- kwok (optional) ------------------------------------------------------------
if [[ "${KWOK:-1}" != 0 ]]; then
  log "kwok $KWOK_VERSION (optional: fakes a node so Deployment pods become Running)"
  t0=$(date +%s)
  # At Kubernetes' module versions first: its client-go, apimachinery and api are then the ones just compiled.
  mkdir -p "$work/kwok"
  if k8s_aligned_build "$work/kwok" sigs.k8s.io/kwok "sigs.k8s.io/kwok/cmd/kwok@$KWOK_VERSION" "-s -w" "$stage/kwok" \
    || ( go_build_env; GOBIN="$stage" "${NICE[@]}" go install -trimpath -ldflags "-s -w" \
         "sigs.k8s.io/kwok/cmd/kwok@$KWOK_VERSION" ) > "$work/build-kwok.log" 2>&1; then
    # kwok alone has no lifecycle stages: ship the "fast" node/pod stages of the same version
    kstages="$(go env GOMODCACHE)/sigs.k8s.io/kwok@$KWOK_VERSION/kustomize/stage"
    for s in node/fast/node-initialize node/heartbeat/node-heartbeat pod/fast/pod-ready pod/fast/pod-complete pod/fast/pod-delete; do
      [[ -f "$kstages/$s.yaml" ]] || { log "  WARNING: kwok stage $s.yaml not found"; continue; }
      echo "---"; cat "$kstages/$s.yaml"
    done > "$stage/kwok-stages.yaml"
    log "  kwok done in $(( $(date +%s) - t0 ))s"
  else
    tail -n 10 "$work/build-kwok.log" >&2
    log "  WARNING: kwok build failed (log: $work/build-kwok.log); continuing without kwok"
  fi
fi

# --- install into the cache ---------------------------------------------------------
for b in "${required[@]}"; do [[ -x "$stage/$b" ]] || die "missing $stage/$b after build"; done
"$stage/kube-apiserver" --version | grep -q "$K8S_VERSION" \
  || die "kube-apiserver reports '$("$stage/kube-apiserver" --version)', expected $K8S_VERSION (ldflags stamping failed)"
[[ -x "$stage/kwok" ]] || rm -f "$bin_dir/kwok" "$bin_dir/kwok-stages.yaml"
kwok_line="kwok=none"
[[ -x "$stage/kwok" ]] && kwok_line="kwok=$KWOK_VERSION"
secs=$(( $(date +%s) - start ))
install_into_cache "$stage" "$bin_dir" "$marker" "kubernetes=$K8S_VERSION" "etcd=$ETCD_VERSION" "$kwok_line" \
  "platform=$GOOS/$GOARCH" "go=$(go env GOVERSION)" "build_seconds=$secs"
log "done in ${secs}s: $bin_dir"
ls -l "$bin_dir" >&2
echo "$bin_dir"
