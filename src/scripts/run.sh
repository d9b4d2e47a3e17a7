#!/usr/bin/env bash
# make run: the operator's main job. With no cluster configured (KUBECONFIG unset and no ~/.kube/config)
# it starts the local control plane (src/controlplane), installs the CRD, runs the operator in the
# foreground and applies examples/; there it also runs one real Kafka Streams JVM on a local broker behind the
# hostNetwork pod of src/scripts/local/orders-streams-local.yaml (src/scripts/local/real-streams.sh), so the
# operator reads a real memory report. With a cluster configured it runs the operator against that cluster.
# Ctrl-C stops the operator and, if this script started them, the JVM, its broker and the local control plane.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
port="${OPERATOR_HTTP_PORT:-8080}"
webhook_port="${OPERATOR_WEBHOOK_PORT:-8443}"
operator_jar="src/operator/target/quarkus-app/quarkus-run.jar"
embedded=0

say() { printf '\n[run] %s\n' "$*" >&2; }

if [[ -z "${KUBECONFIG:-}" && ! -f "$HOME/.kube/config" ]]; then
  embedded=1
  say "no cluster configured: starting the local control plane (src/controlplane/bin/up.sh)"
  src/controlplane/bin/up.sh
  export KUBECONFIG="$root/.local-cluster/kubeconfig"
  kubectl_bin="$(src/controlplane/bin/build.sh 2>/dev/null)/kubectl"
else
  say "using the configured cluster: $(kubectl config current-context 2>/dev/null || echo "${KUBECONFIG:-~/.kube/config}")"
  kubectl_bin="kubectl"
fi
kubectl() { "$kubectl_bin" "$@"; }
# shellcheck source=local/real-streams.sh
. "$root/src/scripts/local/real-streams.sh"

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
