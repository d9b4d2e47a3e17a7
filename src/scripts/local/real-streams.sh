# Sourced by src/scripts/run.sh, on the local control plane only: one real Kafka Streams JVM behind the
# hostNetwork pod of src/scripts/local/orders-streams-local.yaml, so the operator reads a real memory report.
#   real_streams_start  a single-node KRaft broker (kafka_2.13 from the agent module's test classpath, as
#                       src/agent/src/test/java/io/streamsmemory/agent/it/KafkaBroker.java runs it), then
#                       OrdersStreamsApp.java with the pod's JAVA_TOOL_OPTIONS (agent path made local), its
#                       allocation.json, STREAMS_MEMORY_REPORT_PORT and MALLOC_ARENA_MAX
#   real_streams_stop   stops the application, then the broker (the processes this file started, by pid)
# Neither ever fails make run: start-up trouble is one warning, and make run goes on without the JVM.
# Expects from run.sh: $root, say, kubectl.

real_streams_dir="$root/.local-cluster/streams"
real_streams_app="orders-streams-local"
real_streams_broker_pid=""
real_streams_app_pid=""
real_streams_why=""
# A fixed cluster id (a Kafka Uuid; one not starting with '-', which the format tool would take for an option):
# the storage is formatted afresh on every start.
real_streams_cluster_id="c3RyZWFtc21lbW9yeS1sbw"

real_streams_start() {
  if ! real_streams_up; then
    say "WARNING: no real Kafka Streams JVM this time: $real_streams_why; make run goes on without it (pods on kwok report nothing)"
    real_streams_stop
    return 1
  fi
}

real_streams_up() {
  local dir="$real_streams_dir" agent_jar="$root/src/agent/target/streams-memory-agent.jar"
  rm -rf "$dir" && mkdir -p "$dir/broker" "$dir/state" || { real_streams_why="cannot create $dir"; return 1; }
  [[ -f "$agent_jar" ]] || { real_streams_why="$agent_jar is missing"; return 1; }

  # The pod first: what the webhook injected is what the JVM runs with.
  local pod="" ip="" _
  for _ in $(seq 1 60); do
    pod="$(kubectl get pods -l app="$real_streams_app" \
      -o jsonpath='{range .items[?(@.metadata.annotations.streamsmemory\.io/allocation-hash)]}{.metadata.name} {.status.podIP} {.status.phase}{"\n"}{end}' 2>/dev/null \
      | awk '$3 == "Running" { print; exit }')"
    [[ -n "$pod" ]] && break
    sleep 1
  done
  read -r pod ip _ <<< "$pod"
  [[ -n "$pod" ]] || { real_streams_why="pod app=$real_streams_app was not injected and Running within 60 s"; return 1; }
  [[ "$ip" == 127.0.0.1 ]] || { real_streams_why="pod $pod has podIP '$ip', not 127.0.0.1 (the kwok node's IP)"; return 1; }
  local container
  container="$(kubectl get pod "$pod" -o jsonpath='{.metadata.annotations.streamsmemory\.io/injected-container}')"
  local tool_options report_port arenas configmap
  tool_options="$(real_streams_env "$pod" "${container:-streams}" JAVA_TOOL_OPTIONS)"
  report_port="$(real_streams_env "$pod" "${container:-streams}" STREAMS_MEMORY_REPORT_PORT)"
  arenas="$(real_streams_env "$pod" "${container:-streams}" MALLOC_ARENA_MAX)"
  [[ "$tool_options" == *-javaagent:* && -n "$report_port" ]] \
    || { real_streams_why="pod $pod has no -javaagent in JAVA_TOOL_OPTIONS or no STREAMS_MEMORY_REPORT_PORT"; return 1; }
  # The in-pod agent path (-javaagent:/streams-memory-agent/streams-memory-agent.jar) becomes the built jar.
  tool_options="$(sed -E "s#-javaagent:[^ ]*streams-memory-agent\.jar#-javaagent:$agent_jar#" <<< "$tool_options")"
  configmap="$(kubectl get pod "$pod" -o jsonpath='{.spec.volumes[*].configMap.name}')"
  kubectl get configmap "$configmap" -o jsonpath='{.data.allocation\.json}' > "$dir/allocation.json" 2>/dev/null \
    && [[ -s "$dir/allocation.json" ]] || { real_streams_why="ConfigMap '$configmap' has no allocation.json"; return 1; }
  real_streams_port_free "$report_port" || { real_streams_why="the report port $report_port is in use here"; return 1; }

  say "real Kafka Streams JVM: resolving the Kafka classpath (the agent module's test dependencies)"
  mvn -B -ntp -q -o -Dstyle.color=never -pl src/agent dependency:build-classpath -Dmdep.includeScope=test \
      -Dmdep.outputFile="$dir/classpath.txt" > "$dir/classpath.log" 2>&1 \
    || mvn -B -ntp -q -Dstyle.color=never -pl src/agent dependency:build-classpath -Dmdep.includeScope=test \
      -Dmdep.outputFile="$dir/classpath.txt" >> "$dir/classpath.log" 2>&1 \
    || { real_streams_why="mvn dependency:build-classpath failed (see $dir/classpath.log)"; return 1; }
  local classpath; classpath="$(cat "$dir/classpath.txt")"

  local port controller
  port="$(real_streams_free_port 19092)" && controller="$(real_streams_free_port $((port + 1)))" \
    || { real_streams_why="no free port for the broker"; return 1; }
  say "real Kafka Streams JVM: starting a single-node KRaft broker on 127.0.0.1:$port (log $dir/broker.log)"
  cat > "$dir/broker/server.properties" <<EOF
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$controller
listeners=PLAINTEXT://127.0.0.1:$port,CONTROLLER://127.0.0.1:$controller
advertised.listeners=PLAINTEXT://127.0.0.1:$port
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
log.dirs=$dir/broker/data
num.partitions=1
offsets.topic.replication.factor=1
offsets.topic.num.partitions=4
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0
EOF
  env -u JAVA_TOOL_OPTIONS java -Xmx256m -cp "$classpath" kafka.tools.StorageTool format \
      -t "$real_streams_cluster_id" \
      -c "$dir/broker/server.properties" > "$dir/broker-format.log" 2>&1 \
    || { real_streams_why="formatting the broker's storage failed (see $dir/broker-format.log)"; return 1; }
  env -u JAVA_TOOL_OPTIONS java -Xmx512m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -cp "$classpath" \
    kafka.Kafka "$dir/broker/server.properties" > "$dir/broker.log" 2>&1 &
  real_streams_broker_pid=$!
  for _ in $(seq 1 120); do
    real_streams_port_free "$port" || break
    kill -0 "$real_streams_broker_pid" 2>/dev/null || { real_streams_why="the broker exited (see $dir/broker.log)"; return 1; }
    sleep 1
  done
  ! real_streams_port_free "$port" \
    || { real_streams_why="the broker does not listen on 127.0.0.1:$port after 120 s (see $dir/broker.log)"; return 1; }

  local threads
  threads="$(kubectl get smp orders -o jsonpath='{.spec.streams.threads}' 2>/dev/null)"
  say "real Kafka Streams JVM: starting src/scripts/local/OrdersStreamsApp.java as pod $pod (report on 127.0.0.1:$report_port, log $dir/app.log)"
  say "  JAVA_TOOL_OPTIONS=$tool_options"
  env JAVA_TOOL_OPTIONS="$tool_options" STREAMS_MEMORY_ALLOCATION="$dir/allocation.json" \
      STREAMS_MEMORY_REPORT_PORT="$report_port" MALLOC_ARENA_MAX="${arenas:-2}" \
    java -cp "$classpath" "$root/src/scripts/local/OrdersStreamsApp.java" \
      "127.0.0.1:$port" "$dir/state" "${threads:-1}" 4 > "$dir/app.log" 2>&1 &
  real_streams_app_pid=$!
  for _ in $(seq 1 60); do
    curl -fs "http://127.0.0.1:$report_port/report" > /dev/null 2>&1 && return 0
    kill -0 "$real_streams_app_pid" 2>/dev/null || { real_streams_why="the application exited (see $dir/app.log)"; return 1; }
    sleep 1
  done
  real_streams_why="the application's report on 127.0.0.1:$report_port did not answer within 60 s (see $dir/app.log)"
  return 1
}

real_streams_stop() {
  local name pid _
  for name in app broker; do
    pid="$([[ $name == app ]] && echo "$real_streams_app_pid" || echo "$real_streams_broker_pid")"
    [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null || continue
    say "stopping the real Kafka Streams $([[ $name == app ]] && echo application || echo broker) (pid $pid)"
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 30); do kill -0 "$pid" 2>/dev/null || break; sleep 1; done
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  real_streams_app_pid=""
  real_streams_broker_pid=""
}

real_streams_env() { # pod container variable: the variable's value in the pod's spec
  kubectl get pod "$1" -o jsonpath="{.spec.containers[?(@.name==\"$2\")].env[?(@.name==\"$3\")].value}"
}

real_streams_port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

real_streams_free_port() { # first free port from $1 on
  local p
  for ((p = $1; p < $1 + 100; p++)); do
    real_streams_port_free "$p" && { echo "$p"; return 0; }
  done
  return 1
}
