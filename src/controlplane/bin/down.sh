#!/usr/bin/env bash
# make control-plane-down: stop exactly the processes up.sh started (pid files whose
# command line is verified) and remove <repo>/.local-cluster.
set -euo pipefail
. "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/common.sh"
bash "$cluster_sh" down
