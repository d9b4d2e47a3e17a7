#!/usr/bin/env bash
# Builds a pinned `helm` from the Go module proxy (helm.sh/helm/v3, cmd/helm) and caches it by version
# outside the clone, like build.sh does for the Kubernetes binaries. Later runs reuse the cache (marker
# file .complete) and finish at once. Prints the path of the helm binary on stdout. It is built at Kubernetes
# K8S_VERSION's module versions (common.sh's k8s_aligned_build), so after build.sh it compiles little of its own.
#
# Env:
#   STREAMS_MEMORY_CACHE  cache root (default in versions.env)
#   HELM_VERSION          helm version (default from versions.env)
#   BUILD_JOBS            parallel go build jobs (default 2)
#   FORCE=1               rebuild even if the cache marker exists
set -euo pipefail

. "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/common.sh"

# As helm's own release build does (its Makefile), the Kubernetes version that helm template and helm lint assume
# offline is set at link time; go install leaves helm's fallback, v1.20, under the chart's kubeVersion. Here it is the
# version the tests run (K8S_VERSION), so the chart renders offline as for the tested cluster.
kube_minor="${K8S_VERSION#v1.}"
kube_minor="${kube_minor%%.*}"
kube=""
for package in chartutil lint/rules; do
  kube+=" -X helm.sh/helm/v3/pkg/$package.k8sVersionMajor=1 -X helm.sh/helm/v3/pkg/$package.k8sVersionMinor=$kube_minor"
done
go_install_tool helm "$HELM_VERSION" "helm.sh/helm/v3/cmd/helm@$HELM_VERSION" \
  "-s -w -X helm.sh/helm/v3/internal/version.version=$HELM_VERSION -X helm.sh/helm/v3/internal/version.gitTreeState=clean$kube" \
  "{} version --short" helm.sh/helm/v3
