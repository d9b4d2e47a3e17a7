#!/usr/bin/env bash
# make verify-install [NAMESPACE=<ns>]: proves that the API server itself calls the operator's pod webhook, which the
# operator's readiness cannot (its warm-up goes over 127.0.0.1). It creates, as a dry run (nothing is stored, nothing
# runs), a pod in a namespace holding a StreamsMemoryPolicy, annotated streamsmemory.io/install-check; the webhook
# answers such a pod by setting the annotation to "answered by <operator pod>". When the annotation comes back as
# sent, the API server did not reach the webhook: every pod there is admitted without the agent (failurePolicy
# Ignore), and this says what to check.
#
# Usage: verify-install.sh [namespace]
#   namespace   default: the namespace of the first StreamsMemoryPolicy kubectl lists
# Env:
#   KUBECTL   the kubectl to run (default: kubectl on PATH), against its current context (KUBECONFIG)
#   TRIES     how many dry runs before it gives up, 2 s apart (default 10: a webhook just rolled may take a moment)
# Prints "install-check: ok ..." and exits 0, or "install-check: FAILED ..." with what to check and exits 1.
set -euo pipefail
kubectl="${KUBECTL:-kubectl}"
tries="${TRIES:-10}"
namespace="${1:-}"
if [[ -z "$namespace" ]]; then
  namespace="$("$kubectl" get streamsmemorypolicies.streamsmemory.io -A -o jsonpath='{.items[0].metadata.namespace}')"
fi
if [[ -z "$namespace" ]]; then
  echo "install-check: FAILED: no StreamsMemoryPolicy in the cluster. The webhook selects only the namespaces that" \
    "hold one: apply a policy first, or name the namespace (make verify-install NAMESPACE=<ns>)." >&2
  exit 1
fi

# A pod that the restricted Pod Security Standard and a LimitRange requiring limits both admit; the label is the one
# the webhook's objectSelector asks of a Deployment's pods.
pod='{"apiVersion": "v1", "kind": "Pod",
  "metadata": {"generateName": "streams-memory-install-check-",
               "labels": {"pod-template-hash": "install-check"},
               "annotations": {"streamsmemory.io/install-check": "asked"}},
  "spec": {"securityContext": {"runAsNonRoot": true, "runAsUser": 65532, "seccompProfile": {"type": "RuntimeDefault"}},
           "containers": [{"name": "check", "image": "registry.k8s.io/pause:3.10",
             "securityContext": {"allowPrivilegeEscalation": false, "capabilities": {"drop": ["ALL"]}},
             "resources": {"requests": {"cpu": "10m", "memory": "16Mi"}, "limits": {"cpu": "10m", "memory": "16Mi"}}}]}}'

answer=""
for ((try = 1; try <= tries; try++)); do
  if answer="$("$kubectl" create --dry-run=server -n "$namespace" -f - \
      -o 'jsonpath={.metadata.annotations.streamsmemory\.io/install-check}' <<<"$pod" 2>&1)" \
      && [[ "$answer" == "answered by "* ]]; then
    echo "install-check: ok: the API server called the webhook for a pod in namespace $namespace ($answer, try $try)"
    exit 0
  fi
  ((try < tries)) && sleep 2
done
cat >&2 <<MSG
install-check: FAILED: the API server did not call the webhook for a pod in namespace $namespace ($tries dry run(s); the
last answer: ${answer:-none}). Pods created there now start without the agent. Check, in order:
  1. the operator's pods are Ready:    kubectl get pods -A -l app.kubernetes.io/name=streams-memory-operator
  2. the webhook selects $namespace (the operator adds each namespace holding a policy):
       kubectl get mutatingwebhookconfigurations -l app.kubernetes.io/name=streams-memory-operator -o yaml | grep -A3 "operator: In"
     a namespace labelled streamsmemory.io/injection=disabled is never selected
  3. the API server reaches the nodes on the webhook's port (8443): a private GKE cluster's firewall lets the control
     plane reach only 443 and 10250 until a rule for tcp:8443 is added (docs/install.md, "Is the webhook reachable?")
  4. what the operator logged:         kubectl logs -n <operator namespace> deploy/<release> | grep -i webhook
MSG
exit 1
