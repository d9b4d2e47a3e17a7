#!/usr/bin/env bash
# Starts / stops a local Kubernetes control plane (etcd, kube-apiserver and optionally
# kube-controller-manager, kube-scheduler, kwok, a real node: containerd and kubelet) from prebuilt binaries.
# Used by src/controlplane/bin/up.sh / down.sh and by the Java LocalControlPlane (which
# extracts this file from the jar), so both run exactly the same flags.
#
#   cluster.sh up      start everything, wait until the API answers, write $CP_STATE_DIR/kubeconfig
#   cluster.sh down    stop exactly the processes recorded in $CP_STATE_DIR/pids, remove the state
#   cluster.sh status  exit 0 if every recorded process runs, 3 if nothing runs, 4 if stale/partial
#
# Environment:
#   CP_STATE_DIR         state directory (pids, logs, certs, etcd data, kubeconfig)   [required]
#   CP_BIN_DIR           directory holding etcd, kube-apiserver, kubectl, ...          [required for up]
#   CP_COMPONENTS        space separated subset of "etcd apiserver controller-manager scheduler kwok registry node"
#                        (default: all but node; etcd and apiserver are always started; kwok is
#                        skipped with a note when its binary is absent; node (node.sh) is a real
#                        kubelet + containerd, and needs the controller-manager and scheduler: where
#                        the machine cannot run it, one line says why and kwok's fake node runs instead.
#                        $CP_STATE_DIR/node-kind says which: real or kwok). registry: an OCI registry
#                        (crane registry serve) on 127.0.0.1:$CP_REGISTRY_PORT, its blobs in $CP_STATE_DIR/registry,
#                        the node's containerd pulling from it over plain HTTP (loopback only); its address in
#                        $CP_STATE_DIR/registry-address
#   CP_REGISTRY_PORT     default 15000       CP_CRANE_BIN       the crane binary (src/controlplane/bin/build-crane.sh)
#   CP_APISERVER_PORT    default 16443       CP_ETCD_PORT       default 12379
#   CP_ETCD_PEER_PORT    default 12380       CP_KWOK_PORT       default 10247 (kwok health/metrics)
#   CP_START_TIMEOUT     seconds to wait for readiness (default 90)
#   CP_WATCH_PID         if set, a watchdog tears the control plane down when that pid exits
#   CP_KEEP_LOGS_ON_FAILURE  1 (default): a failed start keeps $CP_STATE_DIR/logs for diagnosis
set -euo pipefail

cmd="${1:-}"
STATE="${CP_STATE_DIR:?CP_STATE_DIR is required}"
SELF="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/$(basename "${BASH_SOURCE[0]}")"
PIDS="$STATE/pids"
LOGS="$STATE/logs"
PKI="$STATE/pki"
ORDER=(etcd apiserver controller-manager scheduler kwok registry containerd kubelet)
# shellcheck source=node.sh
. "$(dirname "$SELF")/node.sh"

msg() { printf '[control-plane] %s\n' "$*" >&2; }
die() { printf '[control-plane] ERROR: %s\n' "$*" >&2; exit 1; }

binary_of() {
  case "$1" in
    etcd) echo etcd ;;
    apiserver) echo kube-apiserver ;;
    controller-manager) echo kube-controller-manager ;;
    scheduler) echo kube-scheduler ;;
    kwok) echo kwok ;;
    registry) echo crane ;;
    containerd) echo containerd ;;
    kubelet) echo kubelet ;;
  esac
}

bin_path() {
  case "$1" in
    containerd | kubelet) echo "$NODE_BIN/$1" ;;
    registry) echo "$CRANE_BIN" ;;
    *) echo "$BIN/$(binary_of "$1")" ;;
  esac
}

# pid of component $1 if its pid file names a live process whose command line is the
# binary we started with our state dir in its arguments; empty otherwise.
live_pid() {
  local f="$PIDS/$1.pid" pid cmdline
  [[ -f "$f" ]] || return 0
  pid="$(cat "$f" 2>/dev/null || true)"
  [[ "$pid" =~ ^[0-9]+$ ]] || return 0
  [[ -r "/proc/$pid/cmdline" ]] || return 0
  cmdline="$(tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null || true)"
  [[ "$cmdline" == *"/$(binary_of "$1") "* && "$cmdline" == *"$STATE"* ]] || return 0
  echo "$pid"
}

# Whether pid $1 still runs. A killed process that its parent (here PID 1) has not reaped yet, a zombie, does not,
# though kill -0 still finds it for a second or two: its memory and ports are free already.
running() {
  local state
  state="$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -c1)"
  [[ -n "$state" && "$state" != Z && "$state" != X ]]
}

recorded() { local c; for c in "${ORDER[@]}"; do [[ -f "$PIDS/$c.pid" ]] && echo "$c"; done; return 0; }

stop_all() {
  local c pid i stopped=()
  # The node first: its pods' processes, mounts and network go with it (node.sh). Best effort, in a subshell without
  # -e: nothing it meets may keep the rest of the control plane running.
  if [[ -d "$STATE/node" ]]; then (set +e; node_teardown "$STATE"); fi
  # SIGKILL, not a graceful stop: the state is removed next, so nothing is worth a clean shutdown, and a graceful one
  # cost seconds per process (kube-apiserver drains its watches, the scheduler and the kubelet wait 1-2 s each): some
  # 30 s at the end of every make test, and more for each test class with a plane of its own.
  local entry
  for ((i=${#ORDER[@]}-1; i>=0; i--)); do
    c="${ORDER[$i]}"
    pid="$(live_pid "$c")"
    if [[ -n "$pid" ]]; then
      kill -KILL "$pid" 2>/dev/null || true
      stopped+=("$c:$pid")
    fi
  done
  for entry in "${stopped[@]}"; do
    pid="${entry#*:}"
    while running "$pid"; do sleep 0.05; done
    msg "stopped ${entry%%:*} (pid $pid)"
  done
  if [[ -f "$PIDS/watchdog.pid" ]]; then
    pid="$(cat "$PIDS/watchdog.pid" 2>/dev/null || true)"
    if [[ "$pid" =~ ^[0-9]+$ && "$pid" != "${CP_SELF_WATCHDOG:-}" ]] \
       && tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | grep -q "cluster.sh watchdog"; then
      kill -TERM "$pid" 2>/dev/null || true
    fi
  fi
}

port_in_use() { ss -ltnH "( sport = :$1 )" 2>/dev/null | grep -q .; }

# ---------------------------------------------------------------------------------------
status() {
  local c any_live=0 any_dead=0
  for c in $(recorded); do
    if [[ -n "$(live_pid "$c")" ]]; then any_live=1; else any_dead=1; fi
  done
  if [[ $any_live == 1 && $any_dead == 0 ]]; then return 0; fi
  if [[ $any_live == 0 && $any_dead == 0 ]]; then return 3; fi
  return 4
}

# ---------------------------------------------------------------------------------------
gen_certs() {
  mkdir -p "$PKI"

  cd "$PKI"
  # CA (also the cluster-signing CA of kube-controller-manager)
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 3650 \
    -keyout ca.key -out ca.crt -subj "/CN=streams-memory-local-ca" \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign,digitalSignature" 2>/dev/null
  # Keys are EC P-256 (ES256 service-account tokens): an RSA key takes ~0.2 s of CPU to make, and every test class
  # with a plane of its own makes these again. Only the admin's client key is RSA (leaf's 4th argument): Java clients
  # (fabric8 without BouncyCastle) cannot load EC client keys.
  openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:prime256v1 -out sa.key 2>/dev/null
  openssl pkey -in sa.key -pubout -out sa.pub 2>/dev/null
  # leaf certs: name subject ext [key: ec (default) or rsa]
  leaf() {
    local name="$1" subj="$2" ext="$3"
    local key=(-newkey ec -pkeyopt ec_paramgen_curve:prime256v1)
    if [[ "${4:-ec}" == rsa ]]; then key=(-newkey rsa:2048); fi
    openssl req "${key[@]}" -nodes -keyout "$name.key" \
      -out "$name.csr" -subj "$subj" 2>/dev/null
    printf '%s\n' "$ext" > "$name.ext"
    openssl x509 -req -in "$name.csr" -CA ca.crt -CAkey ca.key -CAcreateserial -days 3650 \
      -out "$name.crt" -extfile "$name.ext" 2>/dev/null
    rm -f "$name.csr" "$name.ext"
  }
  leaf apiserver "/CN=kube-apiserver" \
    "basicConstraints=CA:FALSE
keyUsage=critical,digitalSignature,keyEncipherment
extendedKeyUsage=serverAuth
subjectAltName=IP:127.0.0.1,IP:10.0.0.1${NODE_SAN:-},DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local"
  local client="basicConstraints=CA:FALSE
keyUsage=critical,digitalSignature,keyEncipherment
extendedKeyUsage=clientAuth"
  leaf admin "/O=system:masters/CN=streams-memory-admin" "$client" rsa
  leaf controller-manager "/CN=system:kube-controller-manager" "$client"
  leaf scheduler "/CN=system:kube-scheduler" "$client"
  if wants node; then node_certs; fi
  rm -f ca.srl
  chmod 600 ./*.key
  cd - >/dev/null
}

write_kubeconfig() { # file user-cert-basename
  local f="$1" u="$2"
  cat > "$f" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: local
  cluster:
    server: https://127.0.0.1:$APISERVER_PORT
    certificate-authority-data: $(base64 -w0 < "$PKI/ca.crt")
users:
- name: $u
  user:
    client-certificate-data: $(base64 -w0 < "$PKI/$u.crt")
    client-key-data: $(base64 -w0 < "$PKI/$u.key")
contexts:
- name: local
  context:
    cluster: local
    user: $u
current-context: local
EOF
  chmod 600 "$f"
}

start_proc() { # component args...
  local c="$1"; shift
  local b; b="$(bin_path "$c")"
  # setsid: own session, so a Ctrl-C in the calling terminal does not hit the servers
  setsid "$b" "$@" > "$LOGS/$c.log" 2>&1 < /dev/null &
  local pid=$! waited
  echo "$pid" > "$PIDS/$c.pid"
  STARTED+=("$c")
  # Until the child execs, its command line is still this script's, and live_pid (which checks the command line so
  # that a stale pid file never names a reused pid) takes it for dead: on a loaded machine a check a few milliseconds
  # later failed a CI run with "containerd exited during start-up" and an empty log. Wait for the exec (or the exit).
  for ((waited = 0; waited < 200; waited++)); do
    [[ -n "$(live_pid "$c")" || ! -e "/proc/$pid" ]] && break
    sleep 0.025
  done
}

check_alive() {
  local c
  for c in "${STARTED[@]}"; do
    if [[ -z "$(live_pid "$c")" ]]; then
      msg "$(binary_of "$c") exited during start-up; last lines of $LOGS/$c.log:"
      tail -n 25 "$LOGS/$c.log" >&2 || true
      return 1
    fi
  done
}

wait_for() { # description timeout command...
  local what="$1" timeout="$2"; shift 2
  local deadline=$(( $(date +%s) + timeout ))
  until "$@" >/dev/null 2>&1; do
    check_alive || return 1
    if [[ $(date +%s) -ge $deadline ]]; then
      msg "timed out after ${timeout}s waiting for $what"
      return 1
    fi
    sleep 0.25
  done
}

KUBECTL() { "$BIN/kubectl" --kubeconfig "$STATE/kubeconfig" "$@"; }

on_failed_up() {
  local rc=$?
  trap - ERR EXIT
  [[ $rc == 0 ]] && return 0
  msg "start-up failed; tearing down the half-started control plane"
  stop_all
  if [[ "${CP_KEEP_LOGS_ON_FAILURE:-1}" == 1 && -d "$LOGS" ]]; then
    find "$STATE" -mindepth 1 -maxdepth 1 ! -name logs -exec rm -rf {} +
    msg "logs kept in $LOGS"
  else
    rm -rf "$STATE"
  fi
  exit "$rc"
}

# --- up, one step per function ---------------------------------------------------------
# Globals set by read_settings and used by the steps below: BIN, the ports, TIMEOUT, WANT (the components to
# start, space padded: " etcd apiserver kwok ") and STARTED (the components started so far).

wants() { [[ $WANT == *" $1 "* ]]; }

read_settings() {
  BIN="${CP_BIN_DIR:?CP_BIN_DIR is required}"
  APISERVER_PORT="${CP_APISERVER_PORT:-16443}"
  ETCD_PORT="${CP_ETCD_PORT:-12379}"
  ETCD_PEER_PORT="${CP_ETCD_PEER_PORT:-12380}"
  KWOK_PORT="${CP_KWOK_PORT:-10247}"
  REGISTRY_PORT="${CP_REGISTRY_PORT:-15000}"
  CRANE_BIN="${CP_CRANE_BIN:-}"
  TIMEOUT="${CP_START_TIMEOUT:-90}"
  WANT=" ${CP_COMPONENTS:-etcd apiserver controller-manager scheduler kwok} "
  WANT+=" etcd apiserver "
  node_settings
  # A real node needs pods scheduled and Deployments expanded.
  if wants node; then WANT+=" controller-manager scheduler "; NODE_SAN=",IP:$NODE_IP"; fi
}

check_binaries() {
  local b
  for b in etcd kube-apiserver kubectl; do
    [[ -x "$BIN/$b" ]] || die "missing binary $BIN/$b - run 'make control-plane-binaries' (src/controlplane/bin/build.sh) first"
  done
  for b in controller-manager scheduler; do
    if wants "$b" && [[ ! -x "$BIN/kube-$b" ]]; then
      die "missing binary $BIN/kube-$b - run 'make control-plane-binaries' (src/controlplane/bin/build.sh)"
    fi
  done
  if wants node; then
    local why; why="$(node_unavailable_reason)"
    if [[ -n "$why" ]]; then
      msg "real node not started: $why; kwok's fake node instead"
      WANT="${WANT// node / } kwok "
      NODE_SAN=""
    fi
  fi
  if wants registry && [[ ! -x "$CRANE_BIN" ]]; then
    die "no crane at '${CRANE_BIN:-<CP_CRANE_BIN unset>}' for the registry - run src/controlplane/bin/build-crane.sh"
  fi
  if wants kwok && [[ ! -x "$BIN/kwok" ]]; then
    msg "kwok is not built; pods will stay Pending (no fake node)"
    WANT="${WANT// kwok / }"
  fi
  command -v openssl >/dev/null || die "openssl is needed to create the local CA and keys"
}

# A complete control plane from an earlier `up` still runs: nothing to do.
already_running() { [[ -n "$(recorded)" ]] && status; }

clean_stale_state() {
  # Only a start that runs a node takes the machine-wide parts over. A control plane without one leaves a node that
  # crashed to the next node's start: started beside a real node (test classes run at once), it must not tear down
  # one that only looks crashed for a moment (its owner written before its processes run, or killed on purpose).
  if wants node; then node_clean_crashed; fi
  [[ -n "$(recorded)" ]] || return 0
  msg "found stale state in $STATE from an earlier run that did not stop cleanly; cleaning it"
  stop_all
  rm -rf "$STATE"
}

check_ports() {
  local p busy=()
  for p in "apiserver:$APISERVER_PORT" "etcd:$ETCD_PORT" "etcd-peer:$ETCD_PEER_PORT"; do
    if port_in_use "${p#*:}"; then busy+=("${p#*:} (${p%%:*})"); fi
  done
  if wants kwok && port_in_use "$KWOK_PORT"; then busy+=("$KWOK_PORT (kwok)"); fi
  if wants registry && port_in_use "$REGISTRY_PORT"; then busy+=("$REGISTRY_PORT (registry)"); fi
  if wants node; then
    for p in "kubelet:$KUBELET_PORT" "kubelet-healthz:$KUBELET_HEALTHZ_PORT"; do
      if port_in_use "${p#*:}"; then busy+=("${p#*:} (${p%%:*})"); fi
    done
  fi
  if [[ ${#busy[@]} -gt 0 ]]; then
    die "port already in use: ${busy[*]}; stop whatever listens there or choose other ports (CP_APISERVER_PORT, CP_ETCD_PORT, CP_ETCD_PEER_PORT, CP_KWOK_PORT, CP_REGISTRY_PORT)"
  fi
}

# Fresh state directory, CA, keys and one kubeconfig per client.
prepare_state() {
  rm -rf "$STATE"
  mkdir -p "$PIDS" "$LOGS" "$STATE/etcd"
  chmod 700 "$STATE"
  gen_certs
  write_kubeconfig "$STATE/kubeconfig" admin
  write_kubeconfig "$STATE/controller-manager.kubeconfig" controller-manager
  write_kubeconfig "$STATE/scheduler.kubeconfig" scheduler
}

start_etcd() {
  start_proc etcd \
    --name=local --data-dir="$STATE/etcd" \
    --listen-client-urls="http://127.0.0.1:$ETCD_PORT" --advertise-client-urls="http://127.0.0.1:$ETCD_PORT" \
    --listen-peer-urls="http://127.0.0.1:$ETCD_PEER_PORT" --initial-advertise-peer-urls="http://127.0.0.1:$ETCD_PEER_PORT" \
    --initial-cluster="local=http://127.0.0.1:$ETCD_PEER_PORT" --initial-cluster-state=new \
    --unsafe-no-fsync=true --log-level=warn
  wait_for "etcd on 127.0.0.1:$ETCD_PORT" "$TIMEOUT" curl -fsS "http://127.0.0.1:$ETCD_PORT/health"
}

# An OCI registry on loopback (crane's, blobs on disk, manifests in its memory: it lives and goes with the control
# plane); make publish pushes the images and the chart to it, and the node pulls them from it.
start_registry() {
  mkdir -p "$STATE/registry"
  start_proc registry registry serve --address "127.0.0.1:$REGISTRY_PORT" --disk "$STATE/registry"
  wait_for "the registry on 127.0.0.1:$REGISTRY_PORT" "$TIMEOUT" curl -fsS "http://127.0.0.1:$REGISTRY_PORT/v2/"
  echo "127.0.0.1:$REGISTRY_PORT" > "$STATE/registry-address"
}

start_apiserver() {
  local admission=()
  if ! wants controller-manager; then
    # without the token/serviceaccount controllers there is no "default" ServiceAccount
    admission=(--disable-admission-plugins=ServiceAccount)
  fi
  local addresses=(--bind-address=127.0.0.1 --advertise-address=127.0.0.1)
  # shellcheck disable=SC2207 # node_apiserver_flags prints flags without spaces inside them
  if wants node; then addresses=($(node_apiserver_flags)); fi
  start_proc apiserver \
    --etcd-servers="http://127.0.0.1:$ETCD_PORT" \
    "${addresses[@]}" --secure-port="$APISERVER_PORT" \
    --endpoint-reconciler-type=none \
    --cert-dir="$STATE/pki" \
    --tls-cert-file="$PKI/apiserver.crt" --tls-private-key-file="$PKI/apiserver.key" \
    --client-ca-file="$PKI/ca.crt" \
    --service-account-key-file="$PKI/sa.pub" --service-account-signing-key-file="$PKI/sa.key" \
    --service-account-issuer="https://kubernetes.default.svc.cluster.local" \
    --api-audiences="https://kubernetes.default.svc.cluster.local" \
    --service-cluster-ip-range=10.0.0.0/24 \
    --authorization-mode=Node,RBAC \
    --allow-privileged=true \
    "${admission[@]}" \
    --profiling=false
  wait_for "kube-apiserver /readyz on https://127.0.0.1:$APISERVER_PORT" "$TIMEOUT" \
    curl -fsS --cacert "$PKI/ca.crt" --cert "$PKI/admin.crt" --key "$PKI/admin.key" \
    "https://127.0.0.1:$APISERVER_PORT/readyz"
}

# Started without waiting; wait_for_controllers waits once every component runs.
start_controller_manager() {
  start_proc controller-manager \
    --kubeconfig="$STATE/controller-manager.kubeconfig" \
    --service-account-private-key-file="$PKI/sa.key" --root-ca-file="$PKI/ca.crt" \
    --cluster-signing-cert-file="$PKI/ca.crt" --cluster-signing-key-file="$PKI/ca.key" \
    --use-service-account-credentials=true --controllers='*' \
    --leader-elect=false --secure-port=0 \
    --service-cluster-ip-range=10.0.0.0/24 --allocate-node-cidrs=false
}

start_scheduler() {
  start_proc scheduler \
    --kubeconfig="$STATE/scheduler.kubeconfig" --leader-elect=false --secure-port=0
}

# kwok and the fake node it manages; wait_for_controllers waits for the node to be Ready.
start_kwok() {
  local kwok_cfg=()
  [[ -f "$BIN/kwok-stages.yaml" ]] && kwok_cfg=(--config="$BIN/kwok-stages.yaml")
  # --node-ip=127.0.0.1: the fake node's InternalIP, hence the podIP of a hostNetwork pod on it, is this
  # machine, so a JVM run here can stand in for such a pod (make run's orders-streams-local); other pods get
  # fake IPs from --cidr.
  start_proc kwok \
    --kubeconfig="$STATE/kubeconfig" "${kwok_cfg[@]}" \
    --manage-all-nodes=false \
    --manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake \
    --node-ip=127.0.0.1 --cidr=10.0.1.0/24 \
    --server-address="127.0.0.1:$KWOK_PORT"
  KUBECTL apply -f - > /dev/null <<'EOF'
apiVersion: v1
kind: Node
metadata:
  name: kwok-node-0
  annotations:
    node.alpha.kubernetes.io/ttl: "0"
    kwok.x-k8s.io/node: fake
  labels:
    kubernetes.io/arch: amd64
    kubernetes.io/os: linux
    kubernetes.io/hostname: kwok-node-0
    type: kwok
status:
  allocatable: {cpu: "32", memory: 256Gi, pods: "110"}
  capacity: {cpu: "32", memory: 256Gi, pods: "110"}
  nodeInfo:
    architecture: amd64
    operatingSystem: linux
    kubeletVersion: fake
EOF
}

wait_for_controllers() {
  if wants controller-manager; then
    # the "default" ServiceAccount appears once the controllers run; Pods need it (admission)
    wait_for "kube-controller-manager (ServiceAccount default/default)" "$TIMEOUT" \
      KUBECTL get serviceaccount default --namespace default
  fi
  if wants kwok; then
    wait_for "kwok node kwok-node-0 Ready" "$TIMEOUT" \
      KUBECTL wait node/kwok-node-0 --for=condition=Ready --timeout=1s
    echo kwok > "$STATE/node-kind"
  fi
  if wants node; then wait_for_node; fi
}

start_watchdog() {
  # setsid so the watchdog survives the caller's process group; nohup-like via redirects
  setsid bash "$SELF" watchdog "$CP_WATCH_PID" > "$LOGS/watchdog.log" 2>&1 < /dev/null &
  echo $! > "$PIDS/watchdog.pid"
}

up() {
  read_settings
  check_binaries
  if already_running; then
    msg "already running (state $STATE); nothing to do"
    return 0
  fi
  clean_stale_state
  check_ports

  STARTED=()
  trap on_failed_up EXIT
  local t0; t0=$(date +%s%N)
  prepare_state
  start_etcd
  start_apiserver
  if wants controller-manager; then start_controller_manager; fi
  if wants scheduler; then start_scheduler; fi
  if wants kwok; then start_kwok; fi
  if wants registry; then start_registry; fi
  if wants node; then start_node; fi
  wait_for_controllers
  check_alive
  if [[ -n "${CP_WATCH_PID:-}" ]]; then start_watchdog; fi
  trap - EXIT
  local ms=$(( ($(date +%s%N) - t0) / 1000000 ))
  msg "up in ${ms} ms: https://127.0.0.1:$APISERVER_PORT (components:$(printf ' %s' "${STARTED[@]}")); kubeconfig $STATE/kubeconfig"
}

down() {
  if [[ ! -d "$STATE" ]]; then
    msg "not running (no state in $STATE)"
    return 0
  fi
  if [[ -z "$(recorded)" ]]; then
    msg "no processes recorded in $STATE; removing the state"
  fi
  node_settings
  stop_all
  rm -rf "$STATE"
  msg "down; removed $STATE"
}

watchdog() {
  local watched="$1"
  while kill -0 "$watched" 2>/dev/null; do sleep 1; done
  CP_SELF_WATCHDOG=$$ down
}

case "$cmd" in
  up) up ;;
  down) down ;;
  status) set +e; status; rc=$?; set -e
          case $rc in 0) msg "running";; 3) msg "not running";; *) msg "stale or partial state in $STATE";; esac
          exit $rc ;;
  watchdog) watchdog "${2:?pid}" ;;
  *) echo "usage: $0 up|down|status" >&2; exit 2 ;;
esac
