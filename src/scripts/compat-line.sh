#!/usr/bin/env bash
# Prints the compat line of make test and make test-compat from what AgentRealBrokerTest recorded for each Kafka Streams
# version it ran the agent on (src/agent/target/compat/<version>.result: "bounded", or "untouched: <reason>" where a
# version cannot take the bound and the agent says so). A version asked for with no record failed.
# Usage: compat-line.sh <version>,<version>,...
set -euo pipefail
dir="$(cd "$(dirname "$0")/../agent/target" && pwd)/compat"
bounded=0 untouched=0 failed=0 total=0 missing=()
IFS=',' read -r -a versions <<<"${1:?usage: compat-line.sh <version>,<version>,...}"
for version in "${versions[@]}"; do
  total=$((total + 1))
  result="$(cat "$dir/$version.result" 2>/dev/null || true)"
  case "$result" in
    bounded) bounded=$((bounded + 1)) ;;
    untouched*) untouched=$((untouched + 1)) ;;
    *) failed=$((failed + 1)); missing+=("$version") ;;
  esac
done
echo "compat: versions=$total bounded=$bounded untouched_with_reason=$untouched failed=$failed${missing:+ (failed: ${missing[*]})}"
