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

export CP_STATE_DIR="${CP_STATE_DIR:-$repo_root/.local-cluster}"
export CP_BIN_DIR="${CP_BIN_DIR:-$k8s_bin_dir}"

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
