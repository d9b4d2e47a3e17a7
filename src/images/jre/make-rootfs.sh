#!/usr/bin/env bash
# Prepares the root file system of the streams-memory-jre base image in the folder $1 (replaced), for
# src/images/jre/Containerfile to COPY onto scratch:
#   /opt/java          a JRE made by jlink from this host's JDK 17 (JAVA_HOME, or the java on PATH)
#   /lib*, /usr/lib*    the shared libraries that JRE loads, found with ldd, plus the dynamic loader; plus
#                      libstdc++/libgcc_s and the rest of what RocksDB's JNI library (inside rocksdbjni's jar, which
#                      extracts it to java.io.tmpdir at run time) links against
#   /etc/passwd, /etc/group, /etc/nsswitch.conf   root and nonroot (65532) only; hosts from files, then DNS
#   /tmp               an empty directory (pods mount an emptyDir there when the root file system is read-only)
# No shell, no package manager: only what a JVM needs. See src/images/README.md for why.
#
# Env: JRE_MODULES (comma-separated, default below), ROCKSDB_JAR (a rocksdbjni jar; default the newest in ~/.m2).
set -euo pipefail
out="${1:?usage: make-rootfs.sh <output folder>}"
log() { printf '[make-rootfs %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { printf 'make-rootfs.sh: ERROR: %s\n' "$*" >&2; exit 1; }

java_home="${JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")}"
[[ -x "$java_home/bin/jlink" && -d "$java_home/jmods" ]] || die "no jlink and jmods under $java_home (need a full JDK 17: set JAVA_HOME)"
# What Quarkus (the operator), the Kafka clients and Kafka Streams with RocksDB, a Kafka broker and the agent
# (-javaagent: java.instrument) use, from jdeps over their jars, plus what they load reflectively or by service:
# jdk.crypto.ec (TLS with EC keys: the API server's and the webhook's certificates), jdk.naming.dns (DNS lookups
# through JNDI), jdk.zipfs (Quarkus reads jars as file systems), jdk.management.agent (JMX, the broker's metrics),
# jdk.jfr (JDK Flight Recorder on a running pod), java.scripting (Kafka's JAAS login config can need it),
# jdk.httpserver (the agent's report endpoint, com.sun.net.httpserver, inside the application's JVM) and
# java.desktop for java.beans alone (log4j2 in the Kafka broker fails to start without java.beans.PropertyChangeEvent;
# Quarkus core and Jackson reference it too): its native AWT, font, sound and splash-screen libraries are removed
# below, they would bring X11, ALSA and FreeType into the image.
modules="${JRE_MODULES:-java.base,java.instrument,java.logging,java.management,java.naming,java.net.http,java.security.jgss,java.security.sasl,java.sql,java.xml,java.scripting,jdk.crypto.ec,jdk.management,jdk.management.agent,jdk.unsupported,jdk.zipfs,jdk.jfr,jdk.naming.dns,jdk.httpserver,java.desktop}"

rm -rf "$out"
mkdir -p "$out/opt" "$out/etc" "$out/tmp"
log "jlink $("$java_home/bin/java" -version 2>&1 | sed -n 1p) from $java_home: $modules"
"$java_home/bin/jlink" --module-path "$java_home/jmods" --add-modules "$modules" \
  --strip-debug --no-man-pages --no-header-files --compress=2 --output "$out/opt/java"
# The JRE's tools other than java are of no use in a pod without a shell.
find "$out/opt/java/bin" -type f ! -name java -delete
# java.desktop's native libraries (headless or not, none is needed by java.beans), as its jmod lists them.
if [[ ",$modules," == *,java.desktop,* ]]; then
  "$java_home/bin/jmod" list "$java_home/jmods/java.desktop.jmod" | grep -E '^lib/.*\.so$' \
    | while read -r so; do rm -f "$out/opt/java/$so"; done
fi

# The native code the image must be able to load: the JRE's launcher and libraries, and RocksDB's JNI library.
elfs=("$out/opt/java/bin/java" "$out/opt/java/lib/server/libjvm.so" "$out"/opt/java/lib/*.so)
rocksdb_jar="${ROCKSDB_JAR:-$(find "$HOME/.m2/repository/org/rocksdb/rocksdbjni" -name 'rocksdbjni-*.jar' 2>/dev/null | sort -V | tail -n1)}"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
if [[ -n "$rocksdb_jar" && -f "$rocksdb_jar" ]]; then
  unzip -q -o "$rocksdb_jar" 'librocksdbjni-linux64.so' -d "$scratch" && elfs+=("$scratch/librocksdbjni-linux64.so")
  log "RocksDB JNI library from $rocksdb_jar"
else
  log "no rocksdbjni jar in ~/.m2: adding RocksDB's known libraries (libstdc++, libgcc_s, libpthread, librt, libdl) by name"
fi
# ldd prints "name => /path (addr)" for libraries and "/path (addr)" for the loader. Only system libraries: the
# JRE's own (libjli, libjava, ...) are found through their RPATH ($ORIGIN) and are already in /opt/java.
mapfile -t libs < <(for f in "${elfs[@]}"; do ldd "$f"; done \
  | awk '$2 == "=>" && $3 ~ /^\// {print $3} $1 ~ /^\// {print $1}' | grep -v "^$out/" | grep -v "^$scratch/" | sort -u)
# RocksDB's libraries even when its jar is not in ~/.m2 yet (the image must not depend on what this machine built).
for name in libstdc++.so.6 libgcc_s.so.1 libpthread.so.0 librt.so.1 libdl.so.2 libm.so.6; do
  path="$(ldconfig -p | awk -v n="$name" '$1 == n && /x86-64|x86_64|AArch64|aarch64/ && !p {print $NF; p = 1}')"
  if [[ -n "$path" ]]; then libs+=("$path"); fi
done
mapfile -t libs < <(printf '%s\n' "${libs[@]}" | sort -u)
for lib in "${libs[@]}"; do
  # Under the path the loader looks for it (the ELF's interpreter path, the multiarch default dirs), as a file: on a
  # merged-/usr host /lib is a symlink to usr/lib, and the image needs no symlinks.
  mkdir -p "$out$(dirname "$lib")"
  cp -L "$lib" "$out$lib"
done
log "${#libs[@]} shared libraries: ${libs[*]}"

cat > "$out/etc/passwd" <<'PASSWD'
root:x:0:0:root:/root:/sbin/nologin
nonroot:x:65532:65532:nonroot:/tmp:/sbin/nologin
PASSWD
cat > "$out/etc/group" <<'GROUP'
root:x:0:
nonroot:x:65532:
GROUP
# glibc's defaults without this file try DNS before /etc/hosts; Kubernetes mounts both /etc/hosts and resolv.conf.
printf 'passwd: files\ngroup: files\nhosts: files dns\n' > "$out/etc/nsswitch.conf"
chmod 1777 "$out/tmp"
log "rootfs ready in $out ($(du -sh "$out" | cut -f1))"
