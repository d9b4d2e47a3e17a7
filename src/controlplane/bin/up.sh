#!/usr/bin/env bash
# make control-plane: build (or reuse) the binaries, then start etcd, kube-apiserver,
# kube-controller-manager, kube-scheduler and kwok (fake node) in the background.
# Admin kubeconfig: <repo>/.local-cluster/kubeconfig. Stop with down.sh.
# Env: CP_COMPONENTS, CP_APISERVER_PORT (16443), CP_ETCD_PORT (12379), CP_ETCD_PEER_PORT (12380),
#      CP_KWOK_PORT (10247), CP_REGISTRY_PORT (15000), CP_STATE_DIR, STREAMS_MEMORY_CACHE, K8S_VERSION - see README.md.
set -euo pipefail
. "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/common.sh"

if ! "$here/build.sh" > /dev/null; then
  echo "up.sh: ERROR: control plane not started: building the Kubernetes $K8S_VERSION binaries failed (see the build.sh error above)" >&2
  exit 1
fi
# The registry component runs crane, built (or reused) like the Kubernetes binaries.
if [[ " ${CP_COMPONENTS:-} " == *" registry "* && -z "${CP_CRANE_BIN:-}" ]]; then
  CP_CRANE_BIN="$("$here/build-crane.sh")" || { echo "up.sh: ERROR: building crane for the registry failed" >&2; exit 1; }
  export CP_CRANE_BIN
fi
bash "$cluster_sh" up
if [[ -x "$CP_BIN_DIR/kubectl" && -f "$CP_STATE_DIR/kubeconfig" ]]; then
  echo "kubectl: $CP_BIN_DIR/kubectl --kubeconfig $CP_STATE_DIR/kubeconfig" >&2
fi
