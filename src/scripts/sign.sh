#!/usr/bin/env bash
# Signs what publish.sh pushed: every reference of a published.txt ("<name> <reference>@<digest>" per line) signed by
# digest with cosign, and each image's SBOM (make images' streams-memory-<name>.bom.json, when there is one) attached
# as a signed CycloneDX attestation. publish.sh runs it when asked to sign; on its own it signs a version pushed earlier
# unsigned (the real-node tests install unsigned first and sign once cosign is built).
#
# Usage: sign.sh <published.txt>
# Env:
#   SIGN_KEY=<cosign.key>  the key (its password in COSIGN_PASSWORD); or SIGN=keyless: Sigstore's keyless signing (a
#                release job's OIDC token)
#   TLOG=0       no upload to the transparency log (a registry on loopback, as in the tests)
#   SBOMS        the folder of the SBOMs (default: the published.txt's own, as publish.sh records it beside them)
#   INSECURE=1   the registry speaks plain HTTP (127.0.0.1 and localhost always do)
#   COSIGN       the binary (default: src/controlplane/bin/build-cosign.sh, built or reused)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
log() { printf '[sign %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { printf 'sign.sh: ERROR: %s\n' "$*" >&2; exit 1; }

published="${1:?usage: sign.sh <published.txt> (SIGN_KEY=<cosign.key> or SIGN=keyless)}"
[[ -f "$published" ]] || die "no $published"
[[ -n "${SIGN_KEY:-}" || "${SIGN:-}" == keyless ]] || die "set SIGN_KEY=<cosign.key> (COSIGN_PASSWORD) or SIGN=keyless"
sboms="${SBOMS:-$(dirname "$published")}"
cosign="${COSIGN:-$("$root/src/controlplane/bin/build-cosign.sh")}"

sign=(--yes)
[[ -n "${SIGN_KEY:-}" ]] && sign+=(--key "$SIGN_KEY")
[[ "${TLOG:-1}" == 0 ]] && sign+=(--tlog-upload=false)
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

signed=0
attested=0
while read -r name reference; do
  reference="${reference#oci://}"
  host="${reference%%/*}"
  insecure=()
  if [[ "${INSECURE:-0}" == 1 || "$host" == 127.0.0.1:* || "$host" == localhost:* ]]; then
    insecure=(--allow-http-registry --allow-insecure-registry)
  fi
  "$cosign" sign "${sign[@]}" "${insecure[@]}" "$reference" > "$work/cosign.log" 2>&1 \
    || { cat "$work/cosign.log" >&2; die "cosign sign $reference failed"; }
  signed=$((signed + 1))
  bom="$sboms/streams-memory-$name.bom.json"
  [[ -f "$bom" ]] || continue
  "$cosign" attest "${sign[@]}" "${insecure[@]}" --type cyclonedx --predicate "$bom" "$reference" > "$work/cosign.log" 2>&1 \
    || { cat "$work/cosign.log" >&2; die "cosign attest (the SBOM of $name) $reference failed"; }
  attested=$((attested + 1))
done < "$published"
log "signed $signed references; attached $attested SBOMs as signed CycloneDX attestations"
