#!/usr/bin/env bash
# Sums up the do-no-harm evidence the tests recorded (issue 9). Each test that proves one case of
# "What the injection never does" writes one line to src/<module>/target/do-no-harm/<test>.tsv:
#   case<N> <TAB> <test> <TAB> started=<true|false> <TAB> settings_lost=<count> [<TAB> real_pods=<count>]
# measured by the test itself (real_pods: pods of the case that ran on the real node, containerd and kubelet, rather
# than kwok's) (the API server admitted the pod / the application JVM came up; user
# settings compared before and after). Prints one line per test and the summary; exits 1 when a
# recorded pod or application failed to start or lost a setting, or when nothing was recorded.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
shopt -s nullglob
files=("$root"/src/*/target/do-no-harm/*.tsv)
if ((${#files[@]} == 0)); then
  echo "do-no-harm: no evidence recorded (run the tests first: make test)" >&2
  exit 1
fi
cat "${files[@]}" | sort -V | awk -F'\t' '
  { printf "  %-7s %-80s %s %s %s\n", $1, $2, $3, $4, $5
    cases[$1] = 1
    if ($3 != "started=true") failed++
    split($4, lost, "="); settings += lost[2]
    if ($5 != "") { split($5, real, "="); realPods += real[2] } }
  END {
    n = 0; for (c in cases) n++
    printf "do-no-harm: cases=%d real_pods=%d pods_failed_to_start=%d settings_lost=%d\n", n, realPods, failed, settings
    exit (failed > 0 || settings > 0) ? 1 : 0 }'
