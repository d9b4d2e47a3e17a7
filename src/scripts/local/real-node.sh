# Sourced by src/scripts/run.sh when the local control plane runs a real node: everything as a user installs it.
#   real_node_publish           make publish to the control plane's registry (127.0.0.1:<port>/streams-memory): the six
#                               images and the chart; sets real_node_registry and real_node_version
#   real_node_install_operator  helm install of the chart from oci://<registry>/charts, as a real pod whose images the node
#                               pulls; it reaches the API server at the node's bridge address (no kube-proxy here)
#   real_node_start_broker      examples/local/kafka-broker.yaml, once Ready; sets real_node_bootstrap (<pod IP>:9092)
#   real_node_apply_example     examples/policy.yaml, then examples/kafka-streams-app.yaml with that bootstrap address
#                               (no cluster DNS on the local node), once the webhook selects the namespace
# Expects from run.sh: $root, say, kubectl, helm.

operator_namespace="streams-memory-system"
operator_release="streams-memory-operator"
real_node_bootstrap=""
real_node_registry=""
real_node_version=""

real_node_publish() {
  real_node_registry="$(cat "$root/.local-cluster/registry-address")/streams-memory"
  real_node_version="$(awk -F'"' '/^appVersion:/ {print $2}' "$root/deploy/helm/streams-memory-operator/Chart.yaml")"
  say "publishing the images and the chart to the local registry (make publish REGISTRY=$real_node_registry)"
  "$root/src/scripts/publish.sh" "$real_node_registry" "$real_node_version" >&2
}

# An examples/ manifest with its images from the local registry instead of ghcr.io/streams-memory.
real_node_from_registry() { sed "s#image: ghcr.io/streams-memory/#image: $real_node_registry/#" "$1"; }

real_node_install_operator() {
  local node_ip api_port
  node_ip="$(cat "$root/.local-cluster/node-ip")"
  api_port="$(kubectl config view --minify -o jsonpath='{.clusters[0].cluster.server}' | sed 's/.*://')"
  say "installing the operator with Helm from oci://$real_node_registry/charts/streams-memory-operator (version $real_node_version) as a real pod"
  helm upgrade --install "$operator_release" "oci://$real_node_registry/charts/streams-memory-operator" \
    --version "$real_node_version" --plain-http \
    --namespace "$operator_namespace" --create-namespace --wait --timeout 5m \
    --set operator.replicas=1 --set logFormat=text \
    --set operator.extraEnv[0].name=KUBERNETES_SERVICE_HOST --set-string "operator.extraEnv[0].value=$node_ip" \
    --set operator.extraEnv[1].name=KUBERNETES_SERVICE_PORT --set-string "operator.extraEnv[1].value=$api_port" \
    --set operator.extraEnv[2].name=STREAMSMEMORY_OBSERVE_INTERVAL --set-string "operator.extraEnv[2].value=PT10S" >&2
}

real_node_start_broker() {
  say "starting a Kafka broker as a real pod (examples/local/kafka-broker.yaml)"
  real_node_from_registry "$root/examples/local/kafka-broker.yaml" | kubectl apply -f - >&2
  kubectl rollout status deployment/kafka --timeout=180s >&2
  local ip
  ip="$(kubectl get pods -l app=kafka -o jsonpath='{.items[0].status.podIP}')"
  real_node_bootstrap="$ip:9092"
}

real_node_apply_example() {
  say "applying examples/policy.yaml and checking that the API server calls the webhook for namespace default"
  kubectl apply -f "$root/examples/policy.yaml" >&2
  # The check a user runs after an install (make verify-install): a dry-run pod the webhook answers.
  TRIES=60 "$root/src/scripts/verify-install.sh" default >&2 \
    || say "WARNING: the example's pods may start without the agent (reported as drift, then rolled once)"
  say "applying examples/kafka-streams-app.yaml with BOOTSTRAP_SERVERS=$real_node_bootstrap"
  real_node_from_registry "$root/examples/kafka-streams-app.yaml" \
    | kubectl set env --local -f - "BOOTSTRAP_SERVERS=$real_node_bootstrap" -o yaml | kubectl apply -f - >&2
  kubectl rollout status deployment/orders-streams --timeout=300s >&2
}

# Until the operator shows the example's observed memory (read from the pods' agents over the pod network).
real_node_await_observed() {
  local _
  for _ in $(seq 1 120); do
    [[ "$(kubectl get smp orders -o jsonpath='{.status.workloads[0].observed.podsReporting}' 2>/dev/null)" =~ ^[1-9] ]] \
      && return 0
    sleep 2
  done
  say "WARNING: the operator has not read the pods' memory reports yet (kubectl describe smp orders)"
}
