#!/usr/bin/env bash
# Exit 0 if the local control plane runs, 3 if it does not, 4 if state is stale/partial.
set -euo pipefail
. "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/common.sh"
exec bash "$cluster_sh" status
