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

start=$(date +%s)
work="$cache_root/build/$K8S_VERSION"
stage="$work/out"
rm -rf "$stage"
mkdir -p "$work" "$stage"
export GOFLAGS="-mod=mod -p=${BUILD_JOBS:-2}"
# The host's platform (common.sh): the binaries run here, next to the tests.
export CGO_ENABLED=0 GOOS="$host_os" GOARCH="$host_arch"
proxy="$(go env GOPROXY | tr ',|' '\n\n' | grep -E '^https?://' | head -n1)"
proxy="${proxy:-https://proxy.golang.org}"
NICE=(nice -n "${BUILD_NICE:-10}")

# --- Kubernetes -------------------------------------------------------------
log "Kubernetes $K8S_VERSION: reading $proxy/k8s.io/kubernetes/@v/$K8S_VERSION.mod"
kmod="$work/kubernetes.mod"
curl -fsL "$proxy/k8s.io/kubernetes/@v/$K8S_VERSION.mod" -o "$kmod" \
  || die "could not fetch the go.mod of k8s.io/kubernetes $K8S_VERSION from $proxy (is the version served?)"
minor="${K8S_VERSION#v1.}"; minor="${minor%%.*}"
patch="${K8S_VERSION#v1.*.}"
staging_version="v0.$minor.$patch"
go_line="$(grep -E '^go [0-9]' "$kmod" | head -n1)"
mapfile -t staging < <(grep -E '^[[:space:]]*k8s\.io/[^[:space:]]+ v0\.0\.0([[:space:]]|$)' "$kmod" | awk '{print $1}' | sort -u)
[[ ${#staging[@]} -gt 0 ]] || die "no k8s.io/* v0.0.0 requirements found in $kmod"
log "  ${#staging[@]} staging modules -> $staging_version"

kdir="$work/k8s-wrapper"
mkdir -p "$kdir"
{
  echo "module streamsmemory.local/k8s-build"
  echo
  echo "$go_line"
  echo
  echo "require k8s.io/kubernetes $K8S_VERSION"
  echo
  echo "replace ("
  for m in "${staging[@]}"; do echo "	$m => $m $staging_version"; done
  echo ")"
} > "$kdir/go.mod"
cat > "$kdir/tools.go" <<'GO'
//go:build tools

package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
	_ "k8s.io/kubernetes/cmd/kubectl"
)
GO
rm -f "$kdir/go.sum"
log "  resolving modules (go mod tidy) - downloads a few hundred MB on a cold Go cache"
( cd "$kdir" && "${NICE[@]}" go mod tidy ) > "$work/k8s-tidy.log" 2>&1 \
  || { tail -n 30 "$work/k8s-tidy.log" >&2; die "go mod tidy failed for Kubernetes $K8S_VERSION (log: $work/k8s-tidy.log)"; }

gitmajor=1
ldf="-s -w"
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  ldf+=" -X $pkg.gitVersion=$K8S_VERSION -X $pkg.gitMajor=$gitmajor -X $pkg.gitMinor=$minor"
  ldf+=" -X $pkg.gitTreeState=clean -X $pkg.buildDate=1970-01-01T00:00:00Z"
done
for cmd in kube-apiserver kube-controller-manager kube-scheduler kubectl; do
  log "  go build $cmd (several minutes on 2 cores for a cold build)"
  t0=$(date +%s)
  ( cd "$kdir" && "${NICE[@]}" go build -trimpath -ldflags "$ldf" -o "$stage/$cmd" "k8s.io/kubernetes/cmd/$cmd" ) \
    > "$work/build-$cmd.log" 2>&1 \
    || { tail -n 30 "$work/build-$cmd.log" >&2; die "go build of $cmd ($K8S_VERSION) failed (log: $work/build-$cmd.log)"; }
  log "  $cmd done in $(( $(date +%s) - t0 ))s"
done

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
  if ( GOFLAGS="-p=${BUILD_JOBS:-2}" GOBIN="$stage" "${NICE[@]}" go install -trimpath -ldflags "-s -w" \
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
mkdir -p "$bin_dir"
rm -f "$marker"
for f in "$stage"/*; do  # copy + rename: a running binary is never overwritten in place
  mode=0755; [[ "$f" == *.yaml ]] && mode=0644
  install -m "$mode" "$f" "$bin_dir/.$(basename "$f").tmp" && mv -f "$bin_dir/.$(basename "$f").tmp" "$bin_dir/$(basename "$f")"
done
[[ -x "$stage/kwok" ]] || rm -f "$bin_dir/kwok" "$bin_dir/kwok-stages.yaml"
secs=$(( $(date +%s) - start ))
{
  echo "kubernetes=$K8S_VERSION"
  echo "etcd=$ETCD_VERSION"
  if [[ -x "$bin_dir/kwok" ]]; then echo "kwok=$KWOK_VERSION"; else echo "kwok=none"; fi
  echo "platform=$GOOS/$GOARCH"
  echo "go=$(go env GOVERSION)"
  echo "build_seconds=$secs"
} > "$marker.tmp"
mv "$marker.tmp" "$marker"
log "done in ${secs}s: $bin_dir"
ls -l "$bin_dir" >&2
echo "$bin_dir"
