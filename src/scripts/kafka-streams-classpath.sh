#!/usr/bin/env bash
# Prints the runtime classpath of one Kafka Streams version: kafka-streams, its clients, its rocksdbjni and the rest of
# its Maven dependencies, plus the slf4j-simple of its slf4j-api (so its log, the clients' config dumps included, goes
# to stderr). Maven resolves it into ~/.m2; the classpath is kept in <cache>/<version>.classpath. The agent's
# compatibility runs (AgentRealBrokerTest, make test-compat) start their application on it.
#
# Usage: kafka-streams-classpath.sh <version> [cache dir]   (default ~/.cache/streams-memory-operator/kafka-streams)
# Env:   MVN   the Maven command (default: mvn -B -ntp -q)
set -euo pipefail
version="${1:?usage: kafka-streams-classpath.sh <version> [cache dir]}"
cache="${2:-${STREAMS_MEMORY_CACHE:-$HOME/.cache/streams-memory-operator}/kafka-streams}"
file="$cache/$version.classpath"
mvn_cmd="${MVN:-mvn -B -ntp -q}"

complete() { [[ -s "$1" ]] && tr ':' '\n' < "$1" | while read -r jar; do [[ -f "$jar" ]] || exit 1; done; }
if complete "$file"; then
  cat "$file"
  exit 0
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
resolve() { # resolve <extra dependency XML>: writes $work/cp
  cat > "$work/pom.xml" <<POM
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>io.streamsmemory.compat</groupId>
  <artifactId>kafka-streams-$version</artifactId>
  <version>1</version>
  <dependencies>
    <dependency><groupId>org.apache.kafka</groupId><artifactId>kafka-streams</artifactId><version>$version</version></dependency>
    $1
  </dependencies>
</project>
POM
  $mvn_cmd -f "$work/pom.xml" dependency:build-classpath -Dmdep.includeScope=runtime -Dmdep.outputFile="$work/cp" >&2
}
resolve ""
slf4j="$(tr ':' '\n' < "$work/cp" | sed -n 's#.*/slf4j-api-\([0-9][^/]*\)\.jar$#\1#p' | head -n 1)"
[[ -n "$slf4j" ]] || { echo "kafka-streams-classpath: no slf4j-api in Kafka Streams $version's classpath" >&2; exit 1; }
resolve "<dependency><groupId>org.slf4j</groupId><artifactId>slf4j-simple</artifactId><version>$slf4j</version></dependency>"
mkdir -p "$cache"
mv "$work/cp" "$file.tmp" && mv "$file.tmp" "$file"
cat "$file"
