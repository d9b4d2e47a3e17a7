#!/usr/bin/env bash
# make test's Maven run with the Go builds (make go-builds) beside it: on a warm cache they end in seconds; on a cold
# one (a fresh machine) they take about ten minutes, in which Maven compiles and runs the classes that need no Go
# binary (the engine, the plan, the agent on its Kafka brokers). A class that needs a binary still being built waits
# for it (ControlPlaneBinaries.awaitBuilt, told by STREAMS_MEMORY_BUILDS_PENDING, a file that exists until the builds
# end and names their cache root) and fails naming its build script when the builds ended without it. Fails when
# either failed.
#
# Usage: beside-go-builds.sh <command> [args...]
set -uo pipefail
cd "$(dirname "$0")/../.."

# shellcheck source=../controlplane/src/main/resources/io/streamsmemory/controlplane/versions.env
. src/controlplane/src/main/resources/io/streamsmemory/controlplane/versions.env
pending="$(mktemp -t streams-memory-go-builds.XXXXXX)"
# The cache root they build into: a class that looks for binaries elsewhere (a test's empty folder) does not wait.
echo "$STREAMS_MEMORY_CACHE" > "$pending"
status_file="$pending.status"
rm -f "$status_file"
# The builds ahead of the tests, not at the scripts' default nice 10: on a fresh machine they are what the control
# plane's and the real-node classes wait for (nice -5 as root, else 0), and the agent module's tests beside them run at
# nice 19 meanwhile (src/scripts/nice-java/bin/java). In the run on a1f8e1d, at nice 0, cosign took 294 s beside the
# operator module's first classes instead of 112 s, and the real-node classes waited for it.
build_nice=0
[[ "$(id -u)" == 0 ]] && build_nice=-5
( BUILD_NICE="${BUILD_NICE:-$build_nice}" make --no-print-directory go-builds; echo $? > "$status_file"; rm -f "$pending" ) &
builds=$!
trap 'kill -- -$builds 2>/dev/null; kill $builds 2>/dev/null; rm -f "$pending" "$status_file"' INT TERM

STREAMS_MEMORY_BUILDS_PENDING="$pending" "$@"
status=$?
wait "$builds"
builds_status="$(cat "$status_file" 2>/dev/null || echo 1)"
rm -f "$pending" "$status_file"
if [[ "$builds_status" != 0 ]]; then
  echo "beside-go-builds.sh: make go-builds failed (exit $builds_status)" >&2
  exit 1
fi
exit "$status"
