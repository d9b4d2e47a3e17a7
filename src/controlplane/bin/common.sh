# shellcheck shell=bash
# Shared by the scripts in this folder: locations of the repo, the cache, the state dir and the binaries; the host's
# platform; logging; the build scripts' cache check and lock.
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo_root="$(cd "$here/../../.." && pwd)"
res="$here/../src/main/resources/io/streamsmemory/controlplane"
# shellcheck source=../src/main/resources/io/streamsmemory/controlplane/versions.env
. "$res/versions.env"
cluster_sh="$res/cluster.sh"
cache_root="$STREAMS_MEMORY_CACHE" # its default is in versions.env

# The platform the binaries are built for and cached under: this host's, as Go names it. Without Go on PATH (a warm
# cache needs none) the same names come from uname.
if command -v go >/dev/null 2>&1; then
  { read -r host_os; read -r host_arch; } < <(go env GOOS GOARCH)
else
  host_os="$(uname -s | tr '[:upper:]' '[:lower:]')"
  case "$(uname -m)" in
    x86_64) host_arch=amd64 ;;
    aarch64 | arm64) host_arch=arm64 ;;
    *) host_arch="$(uname -m)" ;;
  esac
fi
# <version without v>-<os>-<arch>: the layout fabric8 kube-api-test reads too (src/controlplane/README.md)
k8s_bin_dir="$cache_root/k8s/${K8S_VERSION#v}-$host_os-$host_arch"
# The real node's binaries (build-node.sh): containerd, its shim and ctr, and kubelet.
node_bin_dir="$cache_root/node/${CONTAINERD_VERSION#v}-${K8S_VERSION#v}-$host_os-$host_arch"

export CP_STATE_DIR="${CP_STATE_DIR:-$repo_root/.local-cluster}"
export CP_BIN_DIR="${CP_BIN_DIR:-$k8s_bin_dir}"
export CP_NODE_BIN_DIR="${CP_NODE_BIN_DIR:-$node_bin_dir}"
# make images keeps a link "current" to the images of the project's version (src/images/build.sh).
export CP_IMAGES_DIR="${CP_IMAGES_DIR:-$cache_root/images/current}"

log() { printf '[%s %s] %s\n' "$(basename "$0" .sh)" "$(date +%H:%M:%S)" "$*" >&2; }
die() { printf '%s: ERROR: %s\n' "$(basename "$0")" "$*" >&2; exit 1; }

# use_cache_or_lock <path to print> <marker file> <lock name>
# For the build scripts: when the cache is warm (the caller's cache_ok), logs the marker's contents, prints the path
# and exits. Otherwise takes the lock $cache_root/build/<lock name> on fd 9, held until the script exits (one build at
# a time per cache: a second caller waits, then usually finds the cache warm) and checks once more. FORCE=1 builds
# anyway.
use_cache_or_lock() {
  local result="$1" marker="$2" lock="$cache_root/build/$3"
  if [[ "${FORCE:-0}" != 1 ]] && cache_ok; then
    log "cache hit: $result ($(tr '\n' ' ' < "$marker"))"
    echo "$result"
    exit 0
  fi
  mkdir -p "$cache_root/build"
  exec 9> "$lock"
  if ! flock -n 9; then
    log "another $(basename "$0") is running for $cache_root; waiting for it"
    flock 9
  fi
  if [[ "${FORCE:-0}" != 1 ]] && cache_ok; then
    log "cache hit after waiting: $result"
    echo "$result"
    exit 0
  fi
}

# go_build_env [<go flag>...]
# Exports the environment of every go build these scripts run: the host's platform (the binaries run here, next to the
# tests), static, BUILD_JOBS parallel jobs, plus the given flags. Two settings make a cold build cheaper without
# changing what runs: -gcflags=all=-dwarf=false, since every binary is linked stripped (-s -w) and the compiler's debug
# information was only ever thrown away, and GOGC=400 for the compiler, which then collects garbage less often (the
# build's processes held at most 3.7 GB together). From an empty build cache on 2 cores, build.sh's Kubernetes commands
# and etcd took 733-738 CPU-seconds instead of 895-911 (docs/development.md has the runs).
go_build_env() {
  export CGO_ENABLED=0 GOOS="$host_os" GOARCH="$host_arch" GOGC=400
  export GOFLAGS="-p=${BUILD_JOBS:-2} -gcflags=all=-dwarf=false${*:+ $*}"
}

# begin_go_build <work dir>
# For build.sh and build-node.sh once the cache missed: sets start (the time), work (<work dir>, whose logs and wrapper
# modules stay between runs), an empty stage "$work/out" for the binaries, NICE, and the environment of every go build
# they run (go_build_env, with -mod=mod for their wrapper modules).
begin_go_build() {
  start=$(date +%s)
  work="$1"
  stage="$work/out"
  rm -rf "$stage"
  mkdir -p "$work" "$stage"
  go_build_env -mod=mod
  NICE=(nice -n "${BUILD_NICE:-10}")
}

# k8s_wrapper_module <dir> <file for the published go.mod> <package>...
# `go install k8s.io/kubernetes/cmd/x@v` fails: that module requires every staging module at v0.0.0 and replaces it
# locally. This writes a wrapper module in <dir> that requires k8s.io/kubernetes $K8S_VERSION and replaces each staging
# module (read from the published go.mod, not hard-coded) by its published v0.<minor>.<patch>, importing <package>s.
k8s_wrapper_module() {
  local dir="$1" kmod="$2" pkg m
  shift 2
  local proxy
  proxy="$(go env GOPROXY | tr ',|' '\n\n' | grep -E '^https?://' | head -n1)"
  proxy="${proxy:-https://proxy.golang.org}"
  curl -fsL "$proxy/k8s.io/kubernetes/@v/$K8S_VERSION.mod" -o "$kmod" \
    || die "could not fetch the go.mod of k8s.io/kubernetes $K8S_VERSION from $proxy (is the version served?)"
  local minor="${K8S_VERSION#v1.}"; minor="${minor%%.*}"
  local staging_version="v0.$minor.${K8S_VERSION#v1.*.}"
  local staging
  mapfile -t staging < <(grep -E '^[[:space:]]*k8s\.io/[^[:space:]]+ v0\.0\.0([[:space:]]|$)' "$kmod" | awk '{print $1}' | sort -u)
  [[ ${#staging[@]} -gt 0 ]] || die "no k8s.io/* v0.0.0 requirements found in $kmod"
  mkdir -p "$dir"
  {
    echo "module streamsmemory.local/k8s-build"
    echo
    grep -E '^go [0-9]' "$kmod" | head -n1
    echo
    echo "require k8s.io/kubernetes $K8S_VERSION"
    echo
    echo "replace ("
    for m in "${staging[@]}"; do echo "	$m => $m $staging_version"; done
    echo ")"
  } > "$dir/go.mod"
  {
    printf '//go:build tools\n\npackage tools\n\nimport (\n'
    for pkg in "$@"; do printf '\t_ "%s"\n' "$pkg"; done
    printf ')\n'
  } > "$dir/tools.go"
  rm -f "$dir/go.sum"
}

# k8s_aligned_build <work dir> <module> <package@version> <ldflags> <output>
# Builds a Go command from the Go module proxy in a wrapper module that also requires Kubernetes $K8S_VERSION (its
# tools.go imports kube-apiserver, which is never built), so that every module the two share resolves to the version
# the Kubernetes commands were built with. Go's build cache keys a package by its module version and its
# dependencies', so what helm or cosign shares with Kubernetes (client-go, apimachinery, api, grpc, protobuf,
# golang.org/x) compiles once instead of once per version. Measured after build.sh on 2 cores: helm 35 s and 64
# CPU-seconds, cosign 97 s and 167 (269-275 from an empty build cache), kwok 11 s (63 with its own go.mod).
# Returns non-zero (and logs why) when the command does not build at those versions.
k8s_aligned_build() {
  local work="$1" module="$2" package="${3%@*}" version="${3##*@}" ldflags="$4" out="$5"
  local kdir="$1/k8s-aligned"
  k8s_wrapper_module "$kdir" "$work/kubernetes.mod" k8s.io/kubernetes/cmd/kube-apiserver "$package"
  printf '\nrequire %s %s\n' "$module" "$version" >> "$kdir/go.mod"
  log "go build $package at $version in a module with Kubernetes $K8S_VERSION's versions (shares its compiled packages)"
  if ( cd "$kdir" && go_build_env -mod=mod \
         && nice -n "${BUILD_NICE:-10}" go mod tidy \
         && nice -n "${BUILD_NICE:-10}" go build -trimpath -ldflags "$ldflags" -o "$out" "$package" ) \
       > "$work/build-aligned.log" 2>&1; then
    return 0
  fi
  tail -n 5 "$work/build-aligned.log" >&2
  log "  it does not build at Kubernetes $K8S_VERSION's module versions (log: $work/build-aligned.log); its own go.mod instead"
  return 1
}

# The -ldflags that stamp $K8S_VERSION into a Kubernetes binary (without them /version says v0.0.0 and clients that
# check the minor version break).
k8s_version_ldflags() {
  local minor="${K8S_VERSION#v1.}" pkg ldf="-s -w"
  minor="${minor%%.*}"
  for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ldf+=" -X $pkg.gitVersion=$K8S_VERSION -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor"
    ldf+=" -X $pkg.gitTreeState=clean -X $pkg.buildDate=1970-01-01T00:00:00Z"
  done
  echo "$ldf"
}

# install_into_cache <stage> <bin dir> <marker> <marker line>...
# Copies every file of <stage> into <bin dir> (copy and rename: a running binary is never overwritten in place), then
# writes the marker with the given lines, last, so a half-installed cache is never taken for a complete one.
install_into_cache() {
  local stage="$1" bin_dir="$2" marker="$3" f mode
  shift 3
  mkdir -p "$bin_dir"
  rm -f "$marker"
  for f in "$stage"/*; do
    mode=0755; [[ "$f" == *.yaml ]] && mode=0644
    install -m "$mode" "$f" "$bin_dir/.$(basename "$f").tmp" && mv -f "$bin_dir/.$(basename "$f").tmp" "$bin_dir/$(basename "$f")"
  done
  printf '%s\n' "$@" > "$marker.tmp"
  mv "$marker.tmp" "$marker"
}

# go_install_tool <name> <version> <package@version> <ldflags> <version check> [<module> to align]
# For build-helm.sh, build-crane.sh, build-cosign.sh and build-actionlint.sh: a pinned Go command installed from the
# Go module proxy into $cache_root/<name>/<version>/<name>, built for this host, checked by running <version check> (a
# command line whose output must contain <version>, with the binary as {}), cached by its marker (which records
# <ldflags>: other ones build again); prints the binary's path.
# With <module> (the one holding <package>), it is first built at Kubernetes' module versions (k8s_aligned_build): the packages it shares with the
# Kubernetes commands are then already in Go's build cache. When that fails (a version bump the tool does not compile
# against), it is installed with its own go.mod.
go_install_tool() {
  local name="$1" version="$2" package="$3" ldflags="$4" check="$5" align="${6:-}"
  local dir="$cache_root/$name/$version"
  local bin="$dir/$name" marker="$dir/.complete"
  # shellcheck disable=SC2317 # called by use_cache_or_lock
  cache_ok() { [[ -f "$marker" && -x "$bin" ]] && grep -qxF "ldflags=$ldflags" "$marker"; }
  use_cache_or_lock "$bin" "$marker" ".$name.lock"

  command -v go >/dev/null 2>&1 || die "the 'go' tool is not on PATH (needed to build $name $version)"
  local start work seen modules="its own go.mod"
  start=$(date +%s)
  work="$cache_root/build/$name-$version"
  rm -rf "$work"
  mkdir -p "$work"
  if [[ -n "$align" ]] && k8s_aligned_build "$work" "$align" "$package" "$ldflags" "$work/$name"; then
    modules="kubernetes=$K8S_VERSION"
  else
    log "go install $package ($host_os/$host_arch; a cold build takes a few minutes on 2 cores)"
    ( go_build_env; export GOBIN="$work"
      nice -n "${BUILD_NICE:-10}" go install -trimpath -ldflags "$ldflags" "$package" ) > "$work/build.log" 2>&1 \
      || { tail -n 30 "$work/build.log" >&2; die "go install of $name $version failed (log: $work/build.log)"; }
  fi
  seen="$(${check//\{\}/$work/$name} 2>&1)" || true
  [[ "$seen" == *"$version"* ]] || die "$name reports '$seen', expected $version"
  mkdir -p "$dir"
  rm -f "$marker"
  install -m 0755 "$work/$name" "$dir/.$name.tmp" && mv -f "$dir/.$name.tmp" "$bin"
  local secs=$(( $(date +%s) - start ))
  # The ldflags too: a build with other ones (helm's default Kubernetes version) is another build.
  printf '%s=%s\narch=%s\ngo=%s\nmodules=%s\nbuild_seconds=%s\nldflags=%s\n' "$name" "$version" "$host_arch" \
    "$(go env GOVERSION)" "$modules" "$secs" "$ldflags" > "$marker.tmp"
  mv "$marker.tmp" "$marker"
  log "done in ${secs}s: $bin"
  echo "$bin"
}
