#!/usr/bin/env bash
# make run: the operator's main job. Unless asked for another cluster (CLUSTER=current), it builds the images (make
# images) and starts the local control plane (src/controlplane) with a registry and a real node, publishes the images
# and the chart to that registry (make publish) and installs everything from it as users do
# (src/scripts/local/real-node.sh): the operator with its Helm chart from oci:// as a real pod, a Kafka broker pod,
# examples/policy.yaml and the example application's pods, injected by the real webhook; the node pulls every image.
# A kubeconfig on this machine is left alone unless CLUSTER=current names it. Where the
# machine cannot run a real node (the control plane says why in one line), it runs the operator here in the
# foreground on kwok's fake node and one real Kafka Streams JVM behind the hostNetwork pod of
# src/scripts/local/orders-streams-local.yaml (src/scripts/local/real-streams.sh).
# With CLUSTER=current it runs the operator here against the kubeconfig's current context.
# Ctrl-C stops what this script started: the operator, the JVM and broker, the local control plane and its node.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
port="${OPERATOR_HTTP_PORT:-8080}"
webhook_port="${OPERATOR_WEBHOOK_PORT:-8443}"
operator_jar="src/operator/target/quarkus-app/quarkus-run.jar"
embedded=0

say() { printf '\n[run] %s\n' "$*" >&2; }

started=$(date +%s)
real_node=0
if [[ "${CLUSTER:-local}" != current ]]; then
  embedded=1
  if [[ -n "${KUBECONFIG:-}" || -f "$HOME/.kube/config" ]]; then
    say "a kubeconfig is configured here and left alone: this run uses a local control plane (make run CLUSTER=current runs against the kubeconfig's current context)"
  fi
  unset KUBECONFIG
  say "building the images and the real node's binaries (cached after the first run)"
  src/images/build.sh >&2 || say "WARNING: make images failed; the control plane falls back to kwok's fake node"
  src/controlplane/bin/build-node.sh > /dev/null || say "WARNING: building the real node failed; the control plane falls back to kwok's fake node"
  say "starting the local control plane with a registry and a real node (src/controlplane/bin/up.sh)"
  CP_COMPONENTS="${CP_COMPONENTS:-etcd apiserver controller-manager scheduler registry node}" src/controlplane/bin/up.sh
  export KUBECONFIG="$root/.local-cluster/kubeconfig"
  kubectl_bin="$(src/controlplane/bin/build.sh 2>/dev/null)/kubectl"
  [[ "$(cat "$root/.local-cluster/node-kind" 2>/dev/null)" == real ]] && real_node=1
else
  say "using the configured cluster: $(kubectl config current-context 2>/dev/null || echo "${KUBECONFIG:-~/.kube/config}")"
  kubectl_bin="kubectl"
fi
kubectl() { "$kubectl_bin" "$@"; }
# shellcheck source=local/real-streams.sh
. "$root/src/scripts/local/real-streams.sh"
# shellcheck source=local/real-node.sh
. "$root/src/scripts/local/real-node.sh"

if [[ "$real_node" == 1 ]]; then
  helm_bin="$(src/controlplane/bin/build-helm.sh 2>/dev/null)"
  helm() { KUBECONFIG="$KUBECONFIG" "$helm_bin" "$@"; }
  cleanup_real_node() {
    trap - INT TERM EXIT
    if [[ "${KEEP_CONTROL_PLANE:-0}" != 1 ]]; then
      say "stopping the local control plane and its node"
      src/controlplane/bin/down.sh >&2 || true
    fi
    exit 0
  }
  trap cleanup_real_node INT TERM EXIT
  real_node_publish
  real_node_install_operator
  real_node_start_broker
  real_node_apply_example
  real_node_await_observed
  kubectl get pods -o wide >&2
  kubectl get smp -o wide >&2
  say "ready in $(( $(date +%s) - started )) s (from the start of make run to the example's observed memory)"
  cat >&2 <<EOT

The operator runs as a real pod on the local node. In another terminal:
  export KUBECONFIG=$KUBECONFIG
  kubectl get pods -A -o wide                            # real pods, IPs on the node's bridge
  kubectl get smp -o wide                                # the plan and the observed memory of real JVMs
  kubectl describe smp orders
  kubectl get configmap orders-streams-deployment-streams-memory -o jsonpath='{.data.allocation\.json}'
  kubectl logs deploy/orders-streams -c streams | grep streams-memory-agent   # what the agent loaded
  kubectl scale deployment orders-streams --replicas=4   # re-split within seconds
Ctrl-C stops the local control plane and its node (KEEP_CONTROL_PLANE=1 leaves them running).
The operator's log follows.
EOT
  while true; do
    kubectl logs -f -n "$operator_namespace" "deployment/$operator_release" || true
    sleep 2
  done
fi

if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
  echo "run.sh: ERROR: port $port is in use; set OPERATOR_HTTP_PORT to a free port" >&2
  exit 1
fi
if (exec 3<>"/dev/tcp/127.0.0.1/$webhook_port") 2>/dev/null; then
  echo "run.sh: ERROR: port $webhook_port is in use; set OPERATOR_WEBHOOK_PORT to a free port" >&2
  exit 1
fi

say "building the operator and the agent"
mvn -B -ntp -q -Dstyle.color=never -pl src/operator,src/agent -am package -DskipTests >&2

say "installing the CRD"
kubectl apply -k crds/ >&2
kubectl wait --for=condition=Established crd/streamsmemorypolicies.streamsmemory.io --timeout=60s >&2

operator_pid=""
cleanup() {
  trap - INT TERM EXIT
  real_streams_stop
  if [[ -n "$operator_pid" ]] && kill -0 "$operator_pid" 2>/dev/null; then
    say "stopping the operator"
    kill "$operator_pid" 2>/dev/null || true
    wait "$operator_pid" 2>/dev/null || true
  fi
  if [[ "$embedded" == 1 && "${KEEP_CONTROL_PLANE:-0}" != 1 ]]; then
    say "stopping the local control plane"
    src/controlplane/bin/down.sh >&2 || true
  fi
}
trap cleanup INT TERM EXIT

if [[ "$embedded" == 1 ]]; then
  # The API server runs on this machine: point deploy/webhook.yaml's configuration at the local operator
  # (https://127.0.0.1:<port>) instead of the in-cluster Service; the operator fills in its caBundle.
  say "installing the pod admission webhook configuration (https://127.0.0.1:$webhook_port/mutate-pods)"
  # deploy/webhook.yaml is generated from the Helm chart: take its MutatingWebhookConfiguration document, wherever it
  # stands in the file, and replace each webhook's clientConfig with a structured patch (not a text edit).
  webhook_url="https://127.0.0.1:$webhook_port/mutate-pods"
  webhook_configuration="$(awk '/^---/ { if (keep) exit; doc = ""; next } { doc = doc $0 "\n" }
    /^kind: MutatingWebhookConfiguration/ { keep = 1 } END { if (keep) printf "%s", doc }' deploy/webhook.yaml)"
  webhook_count="$(kubectl create --dry-run=client -o jsonpath='{.webhooks[*].name}' -f - <<< "$webhook_configuration" | wc -w)"
  webhook_patch=""
  for ((i = 0; i < webhook_count; i++)); do
    webhook_patch+="{\"op\":\"replace\",\"path\":\"/webhooks/$i/clientConfig\",\"value\":{\"url\":\"$webhook_url\"}},"
  done
  kubectl patch --local -f - --type=json -p "[${webhook_patch%,}]" -o yaml <<< "$webhook_configuration" \
    | kubectl apply -f - >&2
fi

say "starting the operator (health and metrics on http://127.0.0.1:$port/q/health and /q/metrics, webhook on https://127.0.0.1:$webhook_port)"
POD_NAMESPACE="${POD_NAMESPACE:-default}" POD_NAME="${POD_NAME:-$(hostname)}" \
  STREAMSMEMORY_WEBHOOK_PORT="$webhook_port" STREAMSMEMORY_WEBHOOK_EXTRA_SANS="${STREAMSMEMORY_WEBHOOK_EXTRA_SANS:-IP:127.0.0.1}" \
  STREAMSMEMORY_WEBHOOK_REFRESH_PERIOD="${STREAMSMEMORY_WEBHOOK_REFRESH_PERIOD:-PT10S}" \
  STREAMSMEMORY_OBSERVE_INTERVAL="${STREAMSMEMORY_OBSERVE_INTERVAL:-PT10S}" \
  java -Dquarkus.http.port="$port" -jar "$operator_jar" &
operator_pid=$!
for _ in $(seq 1 60); do
  curl -fs "http://127.0.0.1:$port/q/health/ready" >/dev/null 2>&1 && break
  kill -0 "$operator_pid" 2>/dev/null || { echo "run.sh: ERROR: the operator exited during start-up" >&2; exit 1; }
  sleep 1
done

if [[ "$embedded" == 1 ]]; then
  for _ in $(seq 1 30); do
    [[ -n "$(kubectl get mutatingwebhookconfiguration streams-memory-operator -o jsonpath='{.webhooks[0].clientConfig.caBundle}' 2>/dev/null)" ]] && break
    sleep 1
  done
fi

if [[ "$embedded" == 1 ]]; then
  # The policy first: the webhook is called only for namespaces that hold a policy, so pods created before the
  # operator has added "default" to its namespaceSelector would run without the agent (drift, rolled only after
  # streamsmemory.rollout.min-interval).
  say "applying examples/policy.yaml and waiting until the webhook is called for namespace default"
  kubectl apply -f examples/policy.yaml >&2
  for _ in $(seq 1 30); do
    kubectl get mutatingwebhookconfiguration streams-memory-operator \
      -o jsonpath='{.webhooks[0].namespaceSelector.matchExpressions[?(@.operator=="In")].values}' 2>/dev/null \
      | grep -q '"default"' && break
    sleep 1
  done
fi
if [[ "$embedded" == 1 || "${APPLY_EXAMPLES:-0}" == 1 ]]; then
  say "applying examples/"
  kubectl apply -f examples/ >&2
fi
if [[ "$embedded" == 1 ]]; then
  say "applying src/scripts/local/orders-streams-local.yaml (make run only: a hostNetwork pod a local JVM stands in for)"
  kubectl apply -f src/scripts/local/orders-streams-local.yaml >&2
fi

if [[ "$embedded" == 1 ]]; then
  say "waiting for the example's pods to be injected (annotation streamsmemory.io/allocation-hash)"
  for _ in $(seq 1 60); do
    total="$(kubectl get pods -l app=orders-streams --no-headers 2>/dev/null | grep -vc Terminating || true)"
    injected="$(kubectl get pods -l app=orders-streams -o jsonpath='{range .items[?(@.metadata.annotations.streamsmemory\.io/allocation-hash)]}{.metadata.name}{"\n"}{end}' 2>/dev/null | grep -c . || true)"
    [[ "$total" -gt 0 && "$injected" -ge "$total" ]] && break
    sleep 1
  done
  kubectl get pods -l app=orders-streams \
    -o custom-columns='POD:.metadata.name,STATUS:.status.phase,INIT:.spec.initContainers[*].name,ALLOCATION:.metadata.annotations.streamsmemory\.io/allocation-hash' >&2 || true

  if real_streams_start; then
    say "waiting (at most 120 s) for the operator to read the real JVM's memory report with its stream threads running"
    for _ in $(seq 1 120); do
      [[ -n "$(kubectl get smp orders -o jsonpath='{.status.peakMemoryRatio}' 2>/dev/null)" \
         && "$(kubectl get smp orders -o jsonpath='{.status.workloads[?(@.name=="orders-streams-local")].observed.streamThreads}' 2>/dev/null)" \
            =~ ^[1-9] ]] && break
      sleep 1
    done
    kubectl get smp -o wide >&2 || true
    kubectl describe smp orders 2>/dev/null | sed -n '/^    Name: *orders-streams-local/,/^    Rocks Db Instances:/p' >&2 || true
  fi
fi

cat >&2 <<EOT

The operator is running. In another terminal:
  export KUBECONFIG=${KUBECONFIG:-$HOME/.kube/config}
  kubectl get smp -o wide
  kubectl describe smp orders                            # workload orders-streams-local: Observed, from a real JVM
  kubectl get configmap orders-streams-deployment-streams-memory -o jsonpath='{.data.allocation\.json}'
  kubectl scale deployment orders-streams --replicas=4   # re-split within seconds
  kubectl get pod -l app=orders-streams -o yaml          # the injected agent, JAVA_TOOL_OPTIONS, allocation hash
Ctrl-C stops it$( [[ "$embedded" == 1 ]] && echo ", the local Kafka Streams JVM and broker, and the local control plane").
EOT
wait "$operator_pid"
