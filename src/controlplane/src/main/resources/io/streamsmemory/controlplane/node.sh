# shellcheck shell=bash
# The real node of the local control plane: containerd + kubelet (src/controlplane/bin/build-node.sh), Debian's runc
# and CNI plugins, the images of `make images` imported, pods on a bridge that stays on this machine. Sourced by
# cluster.sh (component "node"); every path it writes is under $STATE/node except the three a kubelet cannot be told
# to move (/var/log/containers, /var/lib/kubelet/device-plugins/kubelet.sock, /var/lib/cni/results), which teardown
# cleans (node_clean_host_paths).
#
# Only one real node runs on a machine (a kubelet's cgroups, the bridge and the three host paths are machine-wide):
# $NODE_OWNER names the state folder of the node that holds the machine. A node whose processes are gone is a
# crashed run; the next start of a real node cleans what it left.
#
# Environment (besides cluster.sh's):
#   CP_NODE_BIN_DIR     containerd, ctr, containerd-shim-runc-v2, kubelet              [default: build-node.sh's cache]
#   CP_IMAGES_DIR       folder with images.txt and the image tarballs of `make images` [default: the cache's current]
#   CP_NODE_IMAGES      the images to import, by name ("pause example-app"; the jre comes with them)  [default: all]
#   CP_NODE_SUBNET      the pod network's /24, first address on the bridge           [default 10.213.0.0/24]
#   CP_KUBELET_PORT     default 10250          CP_KUBELET_HEALTHZ_PORT  default 10248

NODE_NAME=streams-memory-node
NODE_BRIDGE=smo0
NODE_NET=streams-memory-pods
# Machine-wide, like the node: the owner file, and the shims' sockets (containerd allows a socket_dir of at most 42
# characters, shorter than any state folder of a test).
NODE_RUN=/run/streams-memory-node
NODE_OWNER=$NODE_RUN/owner
CGROUP_ROOT=/sys/fs/cgroup

node_settings() {
  NODE_DIR="$STATE/node"
  NODE_BIN="${CP_NODE_BIN_DIR:-}"
  IMAGES_DIR="${CP_IMAGES_DIR:-}"
  local subnet="${CP_NODE_SUBNET:-10.213.0.0/24}"
  NODE_SUBNET="$subnet"
  NODE_IP="${subnet%.*/*}.1"
  KUBELET_PORT="${CP_KUBELET_PORT:-10250}"
  KUBELET_HEALTHZ_PORT="${CP_KUBELET_HEALTHZ_PORT:-10248}"
  NODE_SOCK="$NODE_DIR/run/containerd.sock"
}

CTR() { "$NODE_BIN/ctr" --address "$NODE_SOCK" --namespace k8s.io "$@"; }

# Why this machine cannot run a real node, or nothing when it can.
node_unavailable_reason() {
  [[ "$(id -u)" == 0 ]] || { echo "not root (a kubelet creates cgroups, mounts and network namespaces)"; return; }
  grep -qw overlay /proc/filesystems || { echo "no overlayfs in /proc/filesystems"; return; }
  [[ -x /usr/sbin/runc ]] || { echo "no runc (apt-get install runc)"; return; }
  [[ -x /usr/lib/cni/bridge && -x /usr/lib/cni/host-local ]] \
    || { echo "no CNI plugins in /usr/lib/cni (apt-get install containernetworking-plugins)"; return; }
  [[ -d "$CGROUP_ROOT/memory" ]] || { echo "no memory cgroup controller at $CGROUP_ROOT/memory"; return; }
  command -v ip > /dev/null || { echo "no 'ip' command (iproute2)"; return; }
  local b
  for b in containerd ctr containerd-shim-runc-v2 kubelet; do
    [[ -x "$NODE_BIN/$b" ]] || { echo "$b is not built (make node-binaries)"; return; }
  done
  [[ -f "$IMAGES_DIR/images.txt" ]] || { echo "no images in ${IMAGES_DIR:-<unset>} (make images)"; return; }
  grep -q streams-memory-pause "$IMAGES_DIR/images.txt" || { echo "no pause image in $IMAGES_DIR/images.txt (make images)"; return; }
  if [[ -f "$NODE_OWNER" ]]; then
    local owner; owner="$(cat "$NODE_OWNER")"
    if [[ "$owner" != "$STATE" ]] && node_processes_alive "$owner"; then
      echo "another real node runs on this machine (state $owner)"
      return
    fi
  fi
}

# True when containerd or kubelet recorded under state folder $1 still runs.
node_processes_alive() {
  local c pid
  for c in containerd kubelet; do
    pid="$(cat "$1/pids/$c.pid" 2> /dev/null || true)"
    [[ "$pid" =~ ^[0-9]+$ ]] && tr '\0' ' ' 2> /dev/null < "/proc/$pid/cmdline" | grep -q "$1" && return 0
  done
  return 1
}

node_certs() { # called from gen_certs, in $PKI
  leaf kubelet-client "/O=system:nodes/CN=system:node:$NODE_NAME" "$client"
  leaf kubelet-server "/CN=$NODE_NAME" "basicConstraints=CA:FALSE
keyUsage=critical,digitalSignature,keyEncipherment
extendedKeyUsage=serverAuth
subjectAltName=IP:$NODE_IP,DNS:$NODE_NAME"
  leaf apiserver-kubelet-client "/O=system:masters/CN=kube-apiserver-kubelet-client" "$client"
}

# kube-apiserver's flags for a cluster with this node: pods reach it on the bridge's address (kube-apiserver then listens
# on every address; it requires a client certificate or a token, anonymous requests are refused), it reaches kubelet
# with its own client certificate, and webhooks' Services are called at their endpoints (no kube-proxy here).
node_apiserver_flags() {
  echo "--bind-address=0.0.0.0 --advertise-address=$NODE_IP --anonymous-auth=false"
  echo "--kubelet-client-certificate=$PKI/apiserver-kubelet-client.crt --kubelet-client-key=$PKI/apiserver-kubelet-client.key"
  echo "--kubelet-certificate-authority=$PKI/ca.crt --kubelet-preferred-address-types=InternalIP"
  echo "--enable-aggregator-routing=true --enable-admission-plugins=NodeRestriction"
}

node_write_configs() {
  mkdir -p "$NODE_DIR"/{run,containerd/root,containerd/state,cni/net.d,cni/ipam,kubelet,pod-logs,etc,certs.d}
  chmod 711 "$NODE_DIR"
  local pause_ref
  pause_ref="$(awk '/streams-memory-pause/ {print $1; exit}' "$IMAGES_DIR/images.txt")"
  # With the control plane's registry the kubelet pulls every image from it, the sandbox's too (make publish pushes
  # them under the same path: 127.0.0.1:<port>/streams-memory/...).
  if wants registry; then pause_ref="127.0.0.1:$REGISTRY_PORT/${pause_ref#*/}"; fi
  cat > "$NODE_DIR/containerd.toml" << EOF
version = 3
root = "$NODE_DIR/containerd/root"
state = "$NODE_DIR/containerd/state"
[grpc]
  address = "$NODE_SOCK"
[ttrpc]
  address = "$NODE_SOCK.ttrpc"
[plugins]
  [plugins.'io.containerd.cri.v1.images']
    snapshotter = 'overlayfs'
    [plugins.'io.containerd.cri.v1.images'.pinned_images]
      sandbox = '$pause_ref'
    [plugins.'io.containerd.cri.v1.images'.registry]
      config_path = '$NODE_DIR/certs.d'
  [plugins.'io.containerd.cri.v1.runtime']
    enable_selinux = false
    # runc cannot lower oom_score_adj without CAP_SYS_RESOURCE (real-node notes): pause and Guaranteed containers
    # get 0 instead; per-pod memory cgroup OOM kills are unaffected.
    restrict_oom_score_adj = true
    netns_mounts_under_state_dir = true
    [plugins.'io.containerd.cri.v1.runtime'.containerd]
      default_runtime_name = 'runc'
      [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc]
        runtime_type = 'io.containerd.runc.v2'
        [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc.options]
          BinaryName = '/usr/sbin/runc'
          Root = '$NODE_DIR/run/runc'
          SystemdCgroup = false
    [plugins.'io.containerd.cri.v1.runtime'.cni]
      bin_dirs = ['/usr/lib/cni']
      conf_dir = '$NODE_DIR/cni/net.d'
      max_conf_num = 1
  [plugins.'io.containerd.nri.v1.nri']
    disable = true
  [plugins.'io.containerd.shim.v1.manager']
    socket_dir = '$NODE_RUN/s'
  [plugins.'io.containerd.grpc.v1.cri']
    disable_tcp_service = true
    stream_server_address = '127.0.0.1'
    stream_server_port = '0'
EOF
  # The control plane's registry, if it runs one: plain HTTP on loopback (containerd runs on the host's network).
  if wants registry; then
    mkdir -p "$NODE_DIR/certs.d/127.0.0.1:$REGISTRY_PORT"
    cat > "$NODE_DIR/certs.d/127.0.0.1:$REGISTRY_PORT/hosts.toml" << EOF
server = "http://127.0.0.1:$REGISTRY_PORT"
[host."http://127.0.0.1:$REGISTRY_PORT"]
  capabilities = ["pull", "resolve"]
EOF
  fi
  # No gateway, no masquerade, no default route in pods: they reach each other and this machine, nothing else.
  cat > "$NODE_DIR/cni/net.d/10-$NODE_NET.conflist" << EOF
{"cniVersion":"1.0.0","name":"$NODE_NET","plugins":[{"type":"bridge","bridge":"$NODE_BRIDGE",
 "isGateway":false,"isDefaultGateway":false,"ipMasq":false,"hairpinMode":true,
 "ipam":{"type":"host-local","ranges":[[{"subnet":"$NODE_SUBNET","gateway":"$NODE_IP"}]],
 "dataDir":"$NODE_DIR/cni/ipam"}}]}
EOF
  echo "options ndots:1" > "$NODE_DIR/etc/resolv.conf"
  cat > "$NODE_DIR/kubelet.yaml" << EOF
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
failCgroupV1: false
cgroupDriver: cgroupfs
failSwapOn: false
containerRuntimeEndpoint: unix://$NODE_SOCK
imageServiceEndpoint: unix://$NODE_SOCK
address: $NODE_IP
port: $KUBELET_PORT
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
healthzPort: $KUBELET_HEALTHZ_PORT
tlsCertFile: $PKI/kubelet-server.crt
tlsPrivateKeyFile: $PKI/kubelet-server.key
authentication: {anonymous: {enabled: false}, webhook: {enabled: false}, x509: {clientCAFile: $PKI/ca.crt}}
authorization: {mode: AlwaysAllow}
resolvConf: $NODE_DIR/etc/resolv.conf
clusterDomain: cluster.local
clusterDNS: []
staticPodPath: ""
makeIPTablesUtilChains: false
podLogsDir: $NODE_DIR/pod-logs
volumePluginDir: $NODE_DIR/kubelet/volume-plugins
oomScoreAdj: 0
evictionHard: {memory.available: "200Mi", nodefs.available: "2%", imagefs.available: "2%", nodefs.inodesFree: "2%"}
imageGCHighThresholdPercent: 99
imageGCLowThresholdPercent: 98
cgroupsPerQOS: true
cgroupRoot: /
maxPods: 30
podPidsLimit: 4096
EOF
  write_kubeconfig "$STATE/kubelet.kubeconfig" kubelet-client
}

node_bridge_up() {
  ip link add "$NODE_BRIDGE" type bridge
  ip addr add "$NODE_IP/${NODE_SUBNET#*/}" dev "$NODE_BRIDGE"
  ip link set "$NODE_BRIDGE" up
}

# ghcr.io/streams-memory/streams-memory-pause:0.1.0 -> pause
node_image_name() { local name="${1##*/}"; name="${name%%:*}"; echo "${name#streams-memory-}"; }

# make images' tarballs imported into the node's containerd (a control plane without a registry: the tests'): the
# release's images and the frameworks' example applications (examples.txt, when make images built them), or only
# those CP_NODE_IMAGES names.
node_import_images() {
  local ref tarball digest t0 lists=("$IMAGES_DIR/images.txt") imported=()
  t0=$(date +%s)
  [[ -f "$IMAGES_DIR/examples.txt" ]] && lists+=("$IMAGES_DIR/examples.txt")
  while read -r ref tarball digest; do
    # The JRE is only the others' base: its layers come with them.
    [[ -n "$ref" && "$ref" != *streams-memory-jre:* ]] || continue
    [[ -z "${CP_NODE_IMAGES:-}" || " $CP_NODE_IMAGES " == *" $(node_image_name "$ref") "* ]] || continue
    CTR images import --no-unpack=false "$tarball" > /dev/null 2>> "$LOGS/containerd.log" \
      || { msg "importing $tarball into the node failed (see $LOGS/containerd.log)"; return 1; }
    imported+=("$ref")
  done < <(cat "${lists[@]}")
  msg "  images imported in $(( $(date +%s) - t0 )) s: ${imported[*]}"
}

start_node() {
  msg "real node: containerd, images, kubelet ($NODE_NAME on bridge $NODE_BRIDGE $NODE_IP)"
  mkdir -p "$NODE_RUN"
  echo "$STATE" > "$NODE_OWNER"
  node_write_configs
  node_bridge_up
  start_proc containerd --config "$NODE_DIR/containerd.toml"
  wait_for "containerd on $NODE_SOCK" "$TIMEOUT" "$NODE_BIN/ctr" --address "$NODE_SOCK" version
  if wants registry; then
    msg "  no images imported: the kubelet pulls them from the registry on 127.0.0.1:$REGISTRY_PORT (make publish)"
  else
    node_import_images
  fi
  start_proc kubelet --config="$NODE_DIR/kubelet.yaml" --kubeconfig="$STATE/kubelet.kubeconfig" \
    --root-dir="$NODE_DIR/kubelet" --node-ip="$NODE_IP" --hostname-override="$NODE_NAME" --v=1
}

wait_for_node() {
  wait_for "kubelet healthz on 127.0.0.1:$KUBELET_HEALTHZ_PORT" "$TIMEOUT" curl -fsS "http://127.0.0.1:$KUBELET_HEALTHZ_PORT/healthz"
  wait_for "node $NODE_NAME Ready" "$TIMEOUT" KUBECTL wait "node/$NODE_NAME" --for=condition=Ready --timeout=1s
  echo real > "$STATE/node-kind"
  echo "$NODE_IP" > "$STATE/node-ip"
}

# Stops and removes whatever a node under state folder $1 left: its containers, shims, mounts, the bridge, the pods'
# cgroups and the host paths. Safe to run twice and on a node that never fully started.
node_teardown() {
  local state="$1" dir="$1/node" sock="$1/node/run/containerd.sock" pid
  [[ -d "$dir" ]] || { node_release "$state"; return 0; }
  # kubelet first, so it does not restart what is stopped next.
  node_stop_pid "$state/pids/kubelet.pid" kubelet
  if [[ -S "$sock" && -n "${NODE_BIN:-}" && -x "$NODE_BIN/ctr" ]]; then
    local ctr=("$NODE_BIN/ctr" --address "$sock" --namespace k8s.io) id
    for id in $("${ctr[@]}" tasks list -q 2> /dev/null); do "${ctr[@]}" tasks kill -s SIGKILL "$id" > /dev/null 2>&1 || true; done
    for id in $("${ctr[@]}" tasks list -q 2> /dev/null); do "${ctr[@]}" tasks delete -f "$id" > /dev/null 2>&1 || true; done
  fi
  node_stop_pid "$state/pids/containerd.pid" containerd
  # Shims serving this node's containerd outlive it by design: stop them (and their containers' processes with them).
  for pid in $(pgrep -f "containerd-shim-runc-v2 .*$dir" 2> /dev/null || true); do kill -KILL "$pid" 2> /dev/null || true; done
  # What is machine-wide belongs to the node that holds the machine: leave it alone if that is another one.
  local owner owns=0
  owner="$(cat "$NODE_OWNER" 2> /dev/null || true)"
  [[ -z "$owner" || "$owner" == "$state" ]] && owns=1
  # Container processes whose shim is gone: every task of the node ran in a cgroup under kubepods.
  if [[ $owns == 1 ]]; then node_kill_cgroup_procs; fi
  # Mounts under the node's folder, deepest first (overlay root filesystems, shm, netns, volumes).
  local m
  for m in $(awk -v d="$dir/" 'index($2, d) == 1 {print $2}' /proc/self/mounts | sort -r); do
    umount -l "$m" 2> /dev/null || true
  done
  if [[ $owns == 1 ]]; then
    ip link del "$NODE_BRIDGE" 2> /dev/null || true
    rm -rf "$NODE_RUN/s"
    node_remove_cgroups
    node_clean_host_paths "$dir"
  fi
  node_release "$state"
}

# SIGKILL at once (as cluster.sh's stop_all): what a graceful stop would tidy, node_teardown removes anyway.
node_stop_pid() { # pid file, name
  local pid; pid="$(cat "$1" 2> /dev/null || true)"
  [[ "$pid" =~ ^[0-9]+$ ]] && tr '\0' ' ' 2> /dev/null < "/proc/$pid/cmdline" | grep -q "/$2 " || return 0
  kill -KILL "$pid" 2> /dev/null || true
  local i
  for i in $(seq 1 100); do running "$pid" || return 0; sleep 0.05; done
}

node_kill_cgroup_procs() {
  local f pid
  for f in $(find "$CGROUP_ROOT"/*/kubepods -name cgroup.procs 2> /dev/null); do
    while read -r pid; do kill -KILL "$pid" 2> /dev/null || true; done < "$f"
  done
}

node_remove_cgroups() {
  local d i
  for i in 1 2 3 4 5; do
    for d in $(find "$CGROUP_ROOT"/*/kubepods -depth -type d 2> /dev/null); do rmdir "$d" 2> /dev/null || true; done
    compgen -G "$CGROUP_ROOT/*/kubepods" > /dev/null || return 0
    sleep 0.5
  done
  msg "WARNING: cgroups left: $(echo "$CGROUP_ROOT"/*/kubepods)"
}

node_clean_host_paths() { # node folder
  local l
  for l in /var/log/containers/*.log; do
    [[ -L "$l" ]] || continue
    [[ "$(readlink "$l")" == "$1/"* || ! -e "$l" ]] && rm -f "$l"
  done
  rmdir /var/log/containers 2> /dev/null || true
  rm -f /var/lib/kubelet/device-plugins/kubelet.sock /var/lib/kubelet/device-plugins/kubelet_internal_checkpoint
  rmdir /var/lib/kubelet/device-plugins /var/lib/kubelet/plugins_registry /var/lib/kubelet/plugins \
    /var/lib/kubelet/pod-resources /var/lib/kubelet 2> /dev/null || true
  rm -f /var/lib/cni/results/"$NODE_NET"-*
  # containerd runs the loopback plugin itself: its results name the pod's network namespace, under the node's folder.
  grep -lF "$1/" /var/lib/cni/results/cni-loopback-* 2> /dev/null | xargs -r rm -f || true
  rmdir /var/lib/cni/results /var/lib/cni 2> /dev/null || true
}

node_release() {
  [[ "$(cat "$NODE_OWNER" 2> /dev/null)" == "$1" ]] && rm -f "$NODE_OWNER" && rmdir "$NODE_RUN" 2> /dev/null
  return 0
}

# A node whose processes are gone left its state: clean it before this one starts.
node_clean_crashed() {
  [[ -f "$NODE_OWNER" ]] || { ip link del "$NODE_BRIDGE" 2> /dev/null || true; return 0; }
  local owner; owner="$(cat "$NODE_OWNER")"
  node_processes_alive "$owner" && return 0
  msg "cleaning what a real node that did not stop cleanly left (state $owner)"
  (set +e; node_teardown "$owner")
  [[ "$owner" == "$STATE" ]] || rm -rf "$owner/node"
}
