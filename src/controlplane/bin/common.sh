# shellcheck shell=bash
# Shared by up.sh / down.sh / status.sh: locations of the repo, the state dir and the binaries.
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo_root="$(cd "$here/../../.." && pwd)"
res="$here/../src/main/resources/io/streamsmemory/controlplane"
# shellcheck source=../src/main/resources/io/streamsmemory/controlplane/versions.env
. "$res/versions.env"
cluster_sh="$res/cluster.sh"
cache_root="${STREAMS_MEMORY_CACHE:-$HOME/.cache/streams-memory-operator}"
export CP_STATE_DIR="${CP_STATE_DIR:-$repo_root/.local-cluster}"
export CP_BIN_DIR="${CP_BIN_DIR:-$cache_root/k8s/$(k8s_bin_folder)}"
