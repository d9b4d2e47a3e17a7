#!/usr/bin/env bash
# make publish: pushes make images' six images and the Helm chart (an OCI artifact) to a registry, all at one version:
#
#   <registry>/streams-memory-<name>:<version>   the images (crane push of make images' tarballs)
#   oci://<registry>/charts/streams-memory-operator   the chart, version <version>, appVersion <version>, its
#                                                default image repositories rewritten to <registry>, so an install
#                                                from it pulls the operator and the agent from the same place (under
#                                                charts/: the operator's image has the chart's name and tag)
#
# and writes what it pushed, "<name> <reference>@<digest>" per image, to $STREAMS_MEMORY_CACHE/images/<appVersion>/
# published.txt (and prints it). The images are those make images recorded for the chart's appVersion.
#
# Usage: publish.sh <registry>[/<path>] [version]
#   version   default: the chart's appVersion (deploy/helm/streams-memory-operator/Chart.yaml), the one version source
# Env:
#   INSECURE=1   the registry speaks plain HTTP (127.0.0.1 and localhost always do, as crane and helm assume)
#   SIGN_KEY=<cosign.key>  sign every image and the chart by digest with this cosign key (its password in COSIGN_PASSWORD),
#                and attach each image's SBOM (make images' streams-memory-<name>.bom.json) as a signed CycloneDX
#                attestation (src/scripts/sign.sh, which also signs a version pushed unsigned earlier); SIGN=keyless
#                does the same with Sigstore's keyless signing (a release job's OIDC token)
#   TLOG=0, COSIGN   sign.sh's: no upload to the transparency log; the cosign binary
#   CHART        the chart's folder (default deploy/helm/streams-memory-operator; the real-node tests publish a changed one)
#   CRANE, HELM  the binaries (default: src/controlplane/bin/build-crane.sh and build-helm.sh, built or reused)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
log() { printf '[publish %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { printf 'publish.sh: ERROR: %s\n' "$*" >&2; exit 1; }

registry="${1:?usage: publish.sh <registry>[/<path>] [version] (make publish REGISTRY=... [VERSION=...])}"
registry="${registry%/}"
chart="${CHART:-$root/deploy/helm/streams-memory-operator}"
app_version="$(awk -F'"' '/^appVersion:/ {print $2}' "$chart/Chart.yaml")"
version="${2:-$app_version}"
[[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+([-+][0-9A-Za-z.-]+)?$ ]] || die "version '$version' is not a SemVer (Helm needs one)"
cache_root="${STREAMS_MEMORY_CACHE:-$HOME/.cache/streams-memory-operator}"
images="$cache_root/images/$app_version"
[[ -f "$images/images.txt" ]] || die "no $images/images.txt: run make images first"
crane="${CRANE:-$("$root/src/controlplane/bin/build-crane.sh")}"
helm="${HELM:-$("$root/src/controlplane/bin/build-helm.sh")}"

host="${registry%%/*}"
plain_http=()
insecure=()
if [[ "${INSECURE:-0}" == 1 || "$host" == 127.0.0.1:* || "$host" == localhost:* ]]; then
  plain_http=(--plain-http)
  insecure=(--insecure)
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# --- the images ---------------------------------------------------------------------------------------------------
published="$work/published.txt"
while read -r ref tarball _; do
  name="${ref##*/}"
  name="${name%%:*}"
  target="$registry/$name:$version"
  log "pushing $tarball to $target"
  digest_ref="$("$crane" push "${insecure[@]}" "$tarball" "$target" 2>"$work/crane.log")" \
    || { cat "$work/crane.log" >&2; die "crane push to $target failed"; }
  echo "${name#streams-memory-} $target@${digest_ref##*@}" >> "$published"
done < "$images/images.txt"
[[ "$(wc -l < "$published")" == 6 ]] || die "expected six images in $images/images.txt, pushed $(wc -l < "$published")"

# --- the chart ----------------------------------------------------------------------------------------------------
cp -r "$chart" "$work/chart"
# The default repositories point at the registry the chart is published to (ghcr.io/streams-memory in a release).
sed -i "s#repository: ghcr.io/streams-memory/#repository: $registry/#" "$work/chart/values.yaml"
"$helm" package "$work/chart" --version "$version" --app-version "$version" -d "$work" > /dev/null
log "pushing the chart streams-memory-operator-$version.tgz to oci://$registry/charts"
"$helm" push "${plain_http[@]}" "$work/streams-memory-operator-$version.tgz" "oci://$registry/charts" > "$work/helm.log" 2>&1 \
  || { cat "$work/helm.log" >&2; die "helm push to oci://$registry/charts failed"; }
chart_digest="$(awk '/^Digest:/ {print $2}' "$work/helm.log")"
echo "chart oci://$registry/charts/streams-memory-operator:$version@$chart_digest" >> "$published"

# --- signatures and SBOMs (sign.sh) ------------------------------------------------------------------------------
if [[ -n "${SIGN_KEY:-}" || "${SIGN:-}" == keyless ]]; then
  SBOMS="$images" INSECURE="${INSECURE:-0}" "$root/src/scripts/sign.sh" "$published"
else
  log "not signed (SIGN_KEY=<cosign.key> or SIGN=keyless signs)"
fi

cp "$published" "$images/published.txt"
cat "$published"
log "published version $version to $registry (recorded in $images/published.txt)"
