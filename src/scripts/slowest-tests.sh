#!/usr/bin/env bash
# The slowest test classes of the last run, from the Surefire and Failsafe reports: printed at the end of make test so
# the next slow class is seen when it lands. Usage: slowest-tests.sh [N] (default 10).
set -euo pipefail
cd "$(dirname "$0")/../.."
count=${1:-10}
shopt -s nullglob
reports=(src/*/target/surefire-reports/TEST-*.xml src/*/target/failsafe-reports/TEST-*.xml)
if [ ${#reports[@]} -eq 0 ]; then
  echo "slowest-tests: no test reports under src/*/target" >&2
  exit 0
fi
# "<seconds> <class>" per report, from its <testsuite> element (its attributes come in any order).
times=$(for report in "${reports[@]}"; do
  suite=$(grep -m1 -o '<testsuite [^>]*>' "$report")
  echo "$(sed -E 's/.* time="([^"]*)".*/\1/' <<<"$suite") $(sed -E 's/.* name="([^"]*)".*/\1/' <<<"$suite")"
done)
echo "slowest test classes (s):"
# awk reads every line (head would close the pipe early, and under pipefail sort's SIGPIPE failed make test: 141).
sort -rn <<<"$times" | awk -v count="$count" 'NR <= count { printf "  %7.1f  %s\n", $1, $2 }'
awk '{ total += $1 } END { printf "  %7.1f  all %d classes\n", total, NR }' <<<"$times"
