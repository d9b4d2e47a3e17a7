#!/usr/bin/env bash
# make images: builds the project's container images with buildah, with no Docker daemon and no registry (every base
# image is made here: see README.md beside this file), and saves each as a docker-archive tarball for
# `ctr -n k8s.io images import`:
#
#   $STREAMS_MEMORY_CACHE/images/<version>/<name>.tar   one per image, tagged ghcr.io/streams-memory/<name>:<version>
#   $STREAMS_MEMORY_CACHE/images/<version>/images.txt   "<ref> <tarball> <image id>" per line: the release's six images
#   $STREAMS_MEMORY_CACHE/images/<version>/examples.txt the same for the frameworks' example applications (Spring Boot,
#                          Quarkus), which the real node's tests run and make publish does not push
#
# <version> is the chart's appVersion, the registry path that of the chart's default operator image. An image is
# rebuilt only when its inputs (context files, Containerfile, base image id) changed since its tarball was written.
#
# Env:
#   IMAGES="jre pause agent operator example-app kafka example-spring-boot example-quarkus"  the images to build
#                          (default all; names with or without the streams-memory- prefix); operator and the
#                          applications bring in jre, their base
#   STREAMS_MEMORY_CACHE   cache root (default ~/.cache/streams-memory-operator)
#   FORCE=1                rebuild every selected image
#   MVN                    the Maven command (default mvn -B -ntp -Dstyle.color=never)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo_root="$(cd "$here/../.." && pwd)"
cache_root="${STREAMS_MEMORY_CACHE:-$HOME/.cache/streams-memory-operator}"
log() { printf '[images %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { printf 'build.sh: ERROR: %s\n' "$*" >&2; exit 1; }

chart="$repo_root/deploy/helm/streams-memory-operator"
version="$(awk -F'"' '/^appVersion:/ {print $2}' "$chart/Chart.yaml")"
# ghcr.io/streams-memory: where the chart's default operator image lives (the Makefile's image-names reads the same).
registry="$(dirname "$(awk '/^operator:/ {o=1} o && /repository:/ {print $2; exit}' "$chart/values.yaml")")"
[[ -n "$version" && "$registry" != . ]] || die "cannot read appVersion / operator.image.repository from $chart"
out="$cache_root/images/$version"
work="$cache_root/images/build"
ref() { echo "$registry/streams-memory-$1:$version"; }

# --- which images -------------------------------------------------------------------------------------------------
release=(jre pause agent operator example-app kafka)
frameworks=(example-spring-boot example-quarkus)
all=("${release[@]}" "${frameworks[@]}")
wanted=" "
for name in ${IMAGES:-${all[*]}}; do
  name="${name#streams-memory-}"
  [[ " ${all[*]} " == *" $name "* ]] || die "unknown image '$name' in IMAGES (known: ${all[*]})"
  wanted+="$name "
  # All but pause and agent are FROM streams-memory-jre: it must be in buildah's storage (a cache hit costs nothing).
  [[ "$name" != pause && "$name" != agent ]] && wanted+="jre "
done
want() { [[ "$wanted" == *" $1 "* ]]; }

# --- tools --------------------------------------------------------------------------------------------------------
# buildah builds from Containerfiles without a daemon, and these Containerfiles have no RUN, so no container runtime
# is started either. Debian's package, installed when missing and we may (as the other build scripts do).
apt_install() {
  [[ "$(id -u)" == 0 ]] && command -v apt-get >/dev/null 2>&1 || return 1
  log "installing Debian's $* (apt-get)"
  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -q "$@" >/dev/null 2>&1 \
    || { DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 update -q >/dev/null 2>&1 \
         && DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -q "$@" >/dev/null 2>&1; }
}
if ! command -v buildah >/dev/null 2>&1 && ! apt_install buildah; then
  echo "make images: no buildah here and apt-get could not install it (that needs root and Debian's packages): install buildah, then run make images again"
  exit 0
fi
# The static C programs (pause, the agent image's cp): gcc and glibc's static libc.a.
if { want pause || want agent; } && { ! command -v gcc >/dev/null 2>&1 || [[ ! -e "$(gcc -print-file-name=libc.a)" ]]; }; then
  apt_install gcc libc6-dev || die "gcc with a static libc (Debian: gcc libc6-dev) is needed for the pause and agent images"
fi
# --pull=never: a FROM names only images built here; buildah's default would ask the registry for a newer one.
# --timestamp 0: no build dates in the images (ids still differ between fresh builds: the cache below keeps them).
# --runtime: only used by RUN, which none of these files has; Debian's runc works where crun may not.
bud=(buildah bud --pull=never --timestamp 0 --format docker --layers=false)
[[ -x /usr/sbin/runc ]] && bud+=(--runtime /usr/sbin/runc)
mkdir -p "$out" "$work"
exec 9> "$work/.lock"
flock -n 9 || { log "another make images is running for $cache_root; waiting for it"; flock 9; }

# --- Maven --------------------------------------------------------------------------------------------------------
modules=()
want agent && modules+=(src/agent)
want operator && modules+=(src/operator)
# The other images' modules: only when they exist and the root POM lists them (a work in progress is skipped).
declare -A module_of=([example-app]=examples/streams-app [kafka]=src/images/kafka-broker)
declare -A skipped=()
for name in example-app kafka; do
  want "$name" || continue
  dir="${module_of[$name]}"
  if [[ ! -f "$repo_root/$dir/pom.xml" || ! -f "$repo_root/$dir/Containerfile" ]] \
      || ! grep -q "<module>$dir</module>" "$repo_root/pom.xml"; then
    echo "make images: skipping $(ref "$name"): no $dir/Containerfile or Maven module yet"
    skipped[$name]=1
  else
    modules+=("$dir")
  fi
done
if ((${#modules[@]})); then
  # makeBom: each module's CycloneDX SBOM (target/bom.json), kept beside its image's tarball for make publish. An SBOM
  # lists dependencies, so it is made again only when a pom.xml changed or a copy is missing (it costs about 15 s).
  poms_hash="$(cd "$repo_root" && cat pom.xml src/*/pom.xml examples/*/pom.xml src/images/*/pom.xml 2>/dev/null | sha256sum)"
  sbom=()
  if [[ "$(cat "$out/sboms.inputs" 2>/dev/null)" != "$poms_hash" ]] \
      || ! ls "$out"/streams-memory-{agent,operator,example-app,kafka}.bom.json > /dev/null 2>&1; then
    sbom=(org.cyclonedx:cyclonedx-maven-plugin:makeBom)
  fi
  log "mvn package ${modules[*]}${sbom:+ (and their SBOMs)}"
  (cd "$repo_root" && ${MVN:-mvn -B -ntp -Dstyle.color=never} -q -pl "$(IFS=,; echo "${modules[*]}")" -am package \
    "${sbom[@]}" -DskipTests)
  ((${#sbom[@]} == 0)) || echo "$poms_hash" > "$out/sboms.inputs"
fi
# The frameworks' examples (outside the reactor, each on its framework's own Kafka line): Spring Boot's executable jar
# and Quarkus's fast-jar, which the agent's FrameworkAgentTest runs under the agent, and the real node as images.
declare -A framework_dir=([example-spring-boot]=examples/spring-boot-app [example-quarkus]=examples/quarkus-app)
# Each image's build context: what the framework's packaging made.
declare -A framework_context=([example-spring-boot]=target/image [example-quarkus]=target/quarkus-app)
for name in "${frameworks[@]}"; do
  want "$name" || continue
  log "mvn package ${framework_dir[$name]}"
  (cd "$repo_root" && ${MVN:-mvn -B -ntp -Dstyle.color=never} -q -f "${framework_dir[$name]}/pom.xml" package -DskipTests)
done

# --- building one image -------------------------------------------------------------------------------------------
# inputs_hash <context> <Containerfile> <extra>: what decides the image. Jars are hashed by their entries' names and
# CRC-32s, not their bytes: mvn package rewrites every jar with new timestamps even when nothing changed.
inputs_hash() {
  local ctx="$1" file="$2" extra="$3"
  {
    echo "$extra"
    sha256sum < "$file"
    (cd "$ctx" && find . \( -type f -o -type l \) -printf '%p %m %l\n' | LC_ALL=C sort)
    (cd "$ctx" && find . -type f ! -name '*.jar' -print0 | LC_ALL=C sort -z | xargs -0r sha256sum)
    # unzip -v: "Length Method Size Cmpr Date Time CRC-32 Name" per entry; keep length, CRC and name. No {8} in the
    # pattern: Debian's default awk (mawk) has no interval expressions, and with one nothing matched, so a jar's
    # changed classes did not change the hash and the image was not rebuilt.
    (cd "$ctx" && find . -type f -name '*.jar' | LC_ALL=C sort | while read -r jar; do
      echo "$jar"; unzip -v "$jar" | awk 'length($7) == 8 && $7 ~ /^[0-9a-f]+$/ {print $1, $7, $8}'; done)
  } | sha256sum | cut -d' ' -f1
}

# build <name> <Containerfile> <context> [base]: builds $(ref name) unless its inputs are those of its tarball.
build() {
  local name="$1" file="$2" ctx="$3" base="${4:-}" r tar stamp hash args=()
  r="$(ref "$name")"
  tar="$out/streams-memory-$name.tar"
  stamp="$out/streams-memory-$name.inputs"
  if [[ -n "$base" ]]; then
    args=(--build-arg "BASE_IMAGE=$(ref "$base")")
    base="$(cat "$out/streams-memory-$base.id")"
  fi
  hash="$(inputs_hash "$ctx" "$file" "$r $base ${args[*]}")"
  if [[ "${FORCE:-0}" != 1 && -f "$tar" && -f "$stamp" && "$(cat "$stamp")" == "$hash" ]] \
      && buildah inspect --type image "$r" >/dev/null 2>&1; then
    log "$r: unchanged, keeping $tar"
    return
  fi
  log "$r: building from $ctx"
  rm -f "$stamp"
  "${bud[@]}" "${args[@]}" -f "$file" -t "$r" "$ctx" >"$work/$name.log" 2>&1 \
    || { cat "$work/$name.log" >&2; die "buildah bud failed for $r (log above)"; }
  rm -f "$tar"
  buildah push -q "$r" "docker-archive:$tar:$r" >/dev/null 2>>"$work/$name.log" \
    || { cat "$work/$name.log" >&2; die "buildah push to $tar failed"; }
  # The image id: the digest of the image's config in the tarball, the IMAGE ID that crictl images shows after
  # ctr import (the manifest digest depends on how the archive is imported; the config does not).
  tar -xOf "$tar" manifest.json | grep -o '"Config":"[^"]*"' | sed 's/.*"\([0-9a-f]\{64\}\)\(\.json\)\?"/sha256:\1/' \
    > "$out/streams-memory-$name.id"
  echo "$hash" > "$stamp"
}

# jre: jlink and ldd into a rootfs folder (make-rootfs.sh), rebuilt when its script, the JDK or the libraries change.
if want jre; then
  java_home="${JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")}"
  rocksdb_jar="$(find "$HOME/.m2/repository/org/rocksdb/rocksdbjni" -name 'rocksdbjni-*.jar' 2>/dev/null | sort -V | tail -n1)"
  key="$( { sha256sum < "$here/jre/make-rootfs.sh"; cat "$java_home/release"; echo "${JRE_MODULES:-} $rocksdb_jar";
            ldd --version | sed -n 1p; } | sha256sum | cut -d' ' -f1)"
  if [[ "${FORCE:-0}" == 1 || "$(cat "$work/jre-rootfs.key" 2>/dev/null)" != "$key" ]]; then
    ROCKSDB_JAR="$rocksdb_jar" "$here/jre/make-rootfs.sh" "$work/jre-rootfs"
    echo "$key" > "$work/jre-rootfs.key"
  fi
  build jre "$here/jre/Containerfile" "$work/jre-rootfs"
fi

# pause and the agent's cp: static C programs, compiled into a fresh context folder.
if want pause; then
  rm -rf "$work/pause" && mkdir -p "$work/pause"
  gcc -Os -static -s -Wall -o "$work/pause/pause" "$here/pause/pause.c"
  build pause "$here/pause/Containerfile" "$work/pause"
fi
if want agent; then
  rm -rf "$work/agent" && mkdir -p "$work/agent"
  gcc -Os -static -s -Wall -o "$work/agent/cp" "$repo_root/src/agent-image/cp.c"
  chmod 0555 "$work/agent/cp"
  install -m 0444 "$repo_root/src/agent/target/streams-memory-agent.jar" "$work/agent/"
  build agent "$repo_root/src/agent-image/Dockerfile" "$work/agent"
fi
want operator && build operator "$repo_root/src/operator/Dockerfile" "$repo_root/src/operator/target/quarkus-app" jre
for name in example-app kafka; do
  want "$name" && [[ -z "${skipped[$name]:-}" ]] || continue
  dir="$repo_root/${module_of[$name]}"
  [[ -d "$dir/target/image" ]] || die "mvn package made no ${module_of[$name]}/target/image (the build context of $(ref "$name"))"
  build "$name" "$dir/Containerfile" "$dir/target/image" jre
done
for name in "${frameworks[@]}"; do
  want "$name" || continue
  dir="$repo_root/${framework_dir[$name]}"
  build "$name" "$dir/Containerfile" "$dir/${framework_context[$name]}" jre
done

# --- the SBOMs: streams-memory-<name>.bom.json beside the tarball of each image built from a Maven module ----------
declare -A sbom_of=([agent]=src/agent [operator]=src/operator [example-app]=examples/streams-app [kafka]=src/images/kafka-broker)
for name in "${!sbom_of[@]}"; do
  want "$name" && [[ -f "$repo_root/${sbom_of[$name]}/target/bom.json" ]] || continue
  cp "$repo_root/${sbom_of[$name]}/target/bom.json" "$out/streams-memory-$name.bom.json"
done

# --- images.txt and the table ------------------------------------------------------------------------------------
# list <file> <name>...: "<ref> <tarball> <image id>" of each image built, written at once.
list() {
  local file="$1" name f
  shift
  for name in "$@"; do
    f="$out/streams-memory-$name"
    [[ -f "$f.tar" && -f "$f.id" && -f "$f.inputs" ]] && echo "$(ref "$name") $f.tar $(cat "$f.id")"
  done > "$file.tmp"
  mv "$file.tmp" "$file"
}
list "$out/images.txt" "${release[@]}"
list "$out/examples.txt" "${frameworks[@]}"
# The local node imports "current" (src/controlplane's node.sh): the images of the project's version, this build's.
ln -sfn "$version" "$(dirname "$out")/current"
printf '%-66s %8s  %s\n' "IMAGE" "SIZE MB" "IMAGE ID (sha256 of the image config)"
while read -r r tar id; do
  name="${r##*/}"; name="${name%%:*}"; name="${name#streams-memory-}"
  want "$name" || continue
  printf '%-66s %8.1f  %s\n' "$r" "$(stat -c %s "$tar" | awk '{print $1 / 1048576}')" "$id"
done < <(cat "$out/images.txt" "$out/examples.txt")
log "tarballs, images.txt and examples.txt in $out"
