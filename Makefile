# Streams Memory Operator: the commands a newcomer needs. `make help` lists them.
SHELL := /bin/bash
MVN ?= mvn -B -ntp -Dstyle.color=never
# Everything Maven needs to build the plan command.
PLAN_JAR := src/plan/target/streams-memory-plan.jar
PLAN_SOURCES := $(shell find src/protocol/src/main src/engine/src/main src/plan/src/main -type f 2>/dev/null) pom.xml src/protocol/pom.xml src/engine/pom.xml src/plan/pom.xml
AGENT_JAR := src/agent/target/streams-memory-agent.jar
# The example pod the README talks about (2 GiB, 4 threads, 24 partitions over 3 replicas, 2 kv + 1 window store).
EXAMPLE_PLAN := --memory 2Gi --threads 4 --partitions 24 --replicas 3 --stores kv=2,window=1
# SST files per RocksDB instance in make bench-rocksdb-overhead.
FLUSHES ?= 1
BUDGETS ?= 512Mi,1Gi,4Gi
ALL_VARIANTS ?= false
ROCKSDB_VARIANTS ?= false
SHAPES ?= default,zipf
# The benchmark JVM of bench-memory and bench-throughput, with the options both take.
BENCH_MEMORY_JAVA = java -Djava.awt.headless=true -Dbench.budgets=$(BUDGETS) -Dbench.allVariants=$(ALL_VARIANTS) \
	-Dbench.rocksDbVariants=$(ROCKSDB_VARIANTS) $(if $(LOADED_CLASSES),-Dbench.loadedClasses=$(LOADED_CLASSES)) \
	$(if $(NMT),-Dbench.nmt=$(NMT)) $(if $(REPEATS),-Dbench.repeats=$(REPEATS)) \
	$(if $(MAX_SECONDS),-Dbench.maxSeconds=$(MAX_SECONDS)) $(if $(VARIANTS),-Dbench.variants=$(VARIANTS)) \
	$(if $(LEARN_SECONDS),-Dbench.learnSeconds=$(LEARN_SECONDS)) $(if $(LEARN_SETTLE_SECONDS),-Dbench.learnSettleSeconds=$(LEARN_SETTLE_SECONDS)) \
	$(if $(CGROUP),-Dbench.cgroup=$(CGROUP)) \
	$(if $(CANDIDATES),-Dbench.candidates=$(CANDIDATES)) $(if $(JFR),-Dbench.jfr=$(JFR)) $(if $(RANGE),-Dbench.range=$(RANGE)) \
	-cp "$$(cat src/agent/target/test.classpath):src/agent/target/test-classes"

.DEFAULT_GOAL := help
.PHONY: reference actionlint lint-workflows cosign verify-install sbom test-webhook-abuse help run crane publish plan-example test test-prerequisites go-builds test-quick test-long prove-limit manifests helm images image-names test-faults fuzz build plan agent bench-memory bench-throughput bench-record-cache bench-rocksdb-overhead bench-webhook bench-scale dashboard-picture control-plane-binaries node-binaries control-plane control-plane-down clean

help: ## List the targets
	@grep -E '^[a-zA-Z_-]+:.*?## ' $(MAKEFILE_LIST) | awk 'BEGIN {FS = ":.*?## "}; {printf "  make %-24s %s\n", $$1, $$2}'

run: control-plane-binaries helm crane ## The main job: images and chart published to a local registry, the operator installed from it (helm install oci://) on a local real node, with examples/ (CLUSTER=current: run against the kubeconfig's current context instead)
	src/scripts/run.sh

plan-example: $(PLAN_JAR) ## Plan the README's example pod
	java -jar $(PLAN_JAR) $(EXAMPLE_PLAN)

test: ## All tests: engine, plan, agent on a real Kafka broker, operator and Helm chart on a real API server, the fault suite, real pods on a real node; then the docs' runnable blocks (make check-docs) and the release workflow (make lint-workflows)
	rm -rf src/*/target/do-no-harm src/operator/target/faults src/operator/target/real-node/real-*.txt src/operator/target/real-node/install-oci.txt src/*/target/surefire-reports src/*/target/failsafe-reports src/agent/target/compat
	@# Two module lanes (-T 2): src/controlplane then src/operator, beside src/engine, src/plan and src/agent. The
	@# operator's tests read the agent jar, which make images built and the agent module rebuilds at process-classes,
	@# long before the control plane's own tests end.
	@# The agent module's tests at nice 5 (src/scripts/nice-java/bin/java): they end minutes before the operator's lanes.
	@# The JUnit tag compat (FrameworkAgentTest: the frameworks on a bare broker) is make test-compat's; make test
	@# runs the frameworks' images on the real node instead.
	@# make images first (its Maven build writes the target/ folders this run builds too), and make go-builds beside
	@# both (src/scripts/beside-go-builds.sh): on a fresh machine the classes that need no Go binary run while they
	@# build, and those that need one wait for it.
	src/scripts/beside-go-builds.sh sh -c '$(MAKE) --no-print-directory images && \
		$(MVN) -T 2 verify -Dagent.tests.jvm=$(CURDIR)/src/scripts/nice-java/bin/java -DexcludedGroups=compat'
	@src/scripts/do-no-harm.sh
	@cat src/operator/target/faults/summary.txt
	@src/scripts/check-docs.sh
	@$(MAKE) --no-print-directory lint-workflows
	@cat src/operator/target/real-node/real-limit.txt 2>/dev/null || echo "real-limit: not run (no real node here)"
	@cat src/operator/target/real-node/install-oci.txt 2>/dev/null || echo "install-oci: not run (no real node here)"
	@src/scripts/compat-line.sh $(TEST_COMPAT_VERSIONS)
	@src/scripts/slowest-tests.sh

# The Kafka Streams versions the agent is run on: make test the oldest, the newest and 3.9.1 (AgentRealBrokerTest's base
# runs); make test-compat the whole matrix, each resolved by src/scripts/kafka-streams-classpath.sh.
TEST_COMPAT_VERSIONS = 2.8.2,3.9.1,4.4.0
COMPAT_VERSIONS ?= 2.8.2,3.0.2,3.4.1,3.6.2,3.8.1,3.9.1,4.0.2,4.2.2,4.4.0

test-compat: ## The agent on each Kafka Streams version of COMPAT_VERSIONS (2.8 to 4.4), a real broker and a real application each, then on the Spring Boot and Quarkus examples' jars (FrameworkAgentTest: every key counted); prints compat: versions=... bounded=... failed=...
	rm -rf src/agent/target/compat
	@# The compat line is printed even when a test failed (it says which versions); then a failed Maven run fails too.
	$(MVN) -pl src/agent -am test -Dtest='AgentRealBrokerTest#theAgentBoundsARealApplication,FrameworkAgentTest' \
		-Dsurefire.failIfNoSpecifiedTests=false -Dkafka.compat.versions=$(COMPAT_VERSIONS); status=$$?; \
	src/scripts/compat-line.sh $(COMPAT_VERSIONS) | tee /dev/stderr | grep -q ' failed=0$$' && exit $$status

test-quick: ## The inner loop (under 2 min warm): the engine, the plan command, the agent's and the operator's tests that need no control plane, no Kafka broker and no image (JUnit tags control-plane, kafka-broker and images left out)
	rm -rf src/*/target/surefire-reports
	@# No packaged operator either (quarkus.build.skip): only the *IT classes run it, and they need a control plane.
	$(MVN) test -pl src/engine,src/plan,src/agent,src/operator -am -DexcludedGroups=control-plane,kafka-broker,images \
		-Dquarkus.build.skip=true
	@src/scripts/slowest-tests.sh 5

# Tries per property in make test-long (make test runs 1,000 per engine property, 200 per fuzz target).
LONG_TRIES ?= 10000

test-long: ## The properties and fuzz targets at LONG_TRIES=10000 tries each, beyond make test's budget of a few seconds per property (CI does not run it)
	rm -rf src/*/target/surefire-reports
	$(MVN) -pl src/engine,src/agent,src/operator -am test -Dtest='*PropertiesTest,SizingExplainerAgreementTest,*FuzzTest' \
		-Dsurefire.failIfNoSpecifiedTests=false -Djqwik.tries.default=$(LONG_TRIES)
	@src/scripts/slowest-tests.sh 5

prove-limit: control-plane-binaries helm node-binaries images ## On the local real node: Kafka's defaults OOM-killed, the same pod under a 512Mi policy not (prints real-limit: and real-oom:, ~6 min)
	$(MVN) -pl src/operator -am test -Dtest=RealLimitTest -Dsurefire.failIfNoSpecifiedTests=false
	@cat src/operator/target/real-node/real-limit.txt src/operator/target/real-node/real-oom.txt

test-faults: control-plane-binaries ## The fault suite alone (make test runs it too, beside the other classes): the packaged operator under kill -9, an API server restart, a frozen etcd, a lost leader, a stopped webhook (~3 min)
	rm -rf src/operator/target/faults
	$(MVN) -pl src/operator -am test -Dtest=FaultScenarios -Dsurefire.failIfNoSpecifiedTests=false
	@cat src/operator/target/faults/summary.txt

# Tries per fuzz property in make fuzz (the normal test run takes junit-platform.properties' 200).
FUZZ_TRIES ?= 20000

fuzz: ## Only the fuzz targets (*FuzzTest: webhook reviews, pod shapes, agent reports, policy quantities, allocation documents) at FUZZ_TRIES=20000 tries per property; a crash found goes into src/*/src/test/resources/fuzz/<target>/ (minutes)
	$(MVN) -pl src/engine,src/agent,src/operator -am test -Dtest='*FuzzTest' -Dsurefire.failIfNoSpecifiedTests=false \
		-Djqwik.tries.default=$(FUZZ_TRIES)

build: ## Compile and package every module without tests
	$(MVN) -q package -DskipTests

plan: $(PLAN_JAR) ## Plan a pod: make plan ARGS='--memory 2Gi --threads 4 --partitions 24 --stores kv=2'
	@java -jar $(PLAN_JAR) $(ARGS)

$(PLAN_JAR): $(PLAN_SOURCES)
	@$(MVN) -q -pl src/plan -am package -DskipTests >&2

agent: ## Build the injected agent: src/agent/target/streams-memory-agent.jar
	$(MVN) -q -pl src/agent -am package -DskipTests

bench-memory: ## Memory benchmark on a real broker, each budget run to its RSS plateau: defaults vs Kafka docs' bounded config vs the agent, each in a memory cgroup limited to the budget as root, so past it the kernel kills it as in a pod (CGROUP=false: none, RSS only) (BUDGETS='512Mi,1Gi,4Gi', LOADED_CLASSES=8000 the plan's class count, the agent runs with MALLOC_ARENA_MAX=2 as the webhook injects it, ALL_VARIANTS=true adds it on glibc's default arenas and on jemalloc, ROCKSDB_VARIANTS=true adds it with 4x its write buffers or data blocks (past the budget: what the throughput gap costs), NMT=true prints the agent run's thread stacks, REPEATS=3 runs every variant three times in turn and gives medians, MAX_SECONDS a run's limit (default 300 per GiB of budget); VARIANTS=default,learned runs only those of default,docs-bounded,agent,learned (default all), VARIANTS=default,learned,learned-kafka-cache adds the learned plan with the application setting Kafka's default 10 MiB record cache; learned: a learning run of the agent on the declared plan first reads its /report for LEARN_SECONDS (default 120), the engine plans as for spec.jvm.sizing: Observed, and learned runs the agent on that plan with its own summary line; ~10 min per repeat at 512Mi and 1Gi, up to an hour at 4Gi)
	$(MVN) -q -pl src/agent -am test-compile
	$(BENCH_MEMORY_JAVA) -Dbench.mode=memory io.streamsmemory.agent.bench.MemoryBenchmark

bench-throughput: ## Throughput in the same pod (issue 64), per budget and shape: the declared plan (agent) against Kafka's defaults at the same limit (kafka-defaults, killed or not), three hand-tuned configs from public advice (hand-docs, hand-responsive, hand-flink) and the ceiling (unbounded: Kafka's defaults in an 8 GiB cgroup), each in a memory cgroup at the budget, every variant rated over the same input records (RANGE=1000000:3000000, from:to), 3 interleaved repeats (REPEATS=); one throughput: line per budget and shape and a throughput-variant: line per variant (BUDGETS='512Mi,1Gi,2Gi,4Gi', SHAPES='default,zipf' (16 partitions, 80 RocksDB instances, 15 million keys uniform or Zipf 0.99; wide: 32 partitions), VARIANTS= any of those, learned, and with CANDIDATES=true issue 43's and 64's candidates (MemoryBenchmark.candidates), MAX_SECONDS=1500 per run, JFR=true records every run; a budget's part ~45-70 min)
	$(MVN) -q -pl src/agent -am test-compile
	$(BENCH_MEMORY_JAVA) -Dbench.mode=throughput -Dbench.shapes=$(SHAPES) $(if $(MIN_SECONDS),-Dbench.minSeconds=$(MIN_SECONDS)) \
		$(if $(RECORDS),-Dbench.records=$(RECORDS)) io.streamsmemory.agent.bench.MemoryBenchmark

bench-record-cache: ## The heap Kafka Streams' record cache really takes per byte it counts, for small and large values, with and without the source record's raw bytes Kafka Streams 4.x keeps in each entry (ARGS='200000' entries; ~1 min)
	$(MVN) -q -pl src/agent -am test-compile
	java -Xmx2g -cp "$$(cat src/agent/target/test.classpath):src/agent/target/test-classes" org.apache.kafka.streams.state.internals.RecordCacheHeapCost $(ARGS)

bench-rocksdb-overhead: ## Native memory per RocksDB instance that neither the JVM nor the shared cache explain (ARGS='8 32 128', FLUSHES=1 SST files each, ARENA=8192 bytes per arena block (default 64 KiB; the engine plans 4 KiB to 1 MiB), ~4 min)
	$(MVN) -q -pl src/agent -am test-compile
	java -Dflushes=$(FLUSHES) $(if $(ARENA),-Darena=$(ARENA)) -cp "$$(cat src/agent/target/test.classpath):src/agent/target/test-classes" io.streamsmemory.agent.bench.RocksDbOverheadBenchmark $(ARGS)

bench-webhook: control-plane-binaries ## Pod-creation latency through a real API server, webhook on, in a namespace without policies, and off (ARGS='pods rounds warmup')
	@# -am puts the parent POM in the reactor too: src/operator, built alone below, resolves it and both modules
	@# from ~/.m2, which on a fresh machine holds none of them.
	$(MVN) -q -pl src/engine,src/controlplane -am install -DskipTests
	cd src/operator && $(MVN) -q test-compile dependency:build-classpath -Dmdep.outputFile=target/bench.classpath -Dmdep.includeScope=test
	cd src/operator && java -cp target/test-classes:target/classes:$$(cat target/bench.classpath) io.streamsmemory.operator.admission.WebhookBenchmark $(ARGS)

bench-scale: control-plane-binaries ## The packaged operator with deploy/'s heap against N workloads and M bystanders (ARGS='1000 5000')
	$(MVN) -q -pl src/operator -am install -DskipTests
	cd src/operator && $(MVN) -q test-compile dependency:build-classpath -Dmdep.outputFile=target/bench.classpath -Dmdep.includeScope=test
	cd src/operator && java -cp target/test-classes:target/classes:$$(cat target/bench.classpath) io.streamsmemory.operator.bench.ScaleBenchmark $(ARGS)

# make dashboard-picture: the Grafana dashboard drawn from real figures (Grafana itself is AGPL, not usable here).
DASHBOARD_VENV := $(HOME)/.cache/streams-memory-operator/venv
MINUTES ?= 10
INTERVAL ?= 10
METRICS_URL ?= http://127.0.0.1:$(or $(OPERATOR_HTTP_PORT),8080)/q/metrics
RECORDING ?= docs/dashboard-recording.jsonl
RECORD ?= 1
ALLOW_EMPTY ?=

dashboard-picture: ## Record make run's metrics (in another terminal) for MINUTES=10, draw the dashboard to docs/dashboard.png (RECORD=0: redraw only)
	@$(DASHBOARD_VENV)/bin/python -c 'import matplotlib' 2>/dev/null || { \
		echo "creating $(DASHBOARD_VENV) with matplotlib" >&2; \
		python3 -m venv $(DASHBOARD_VENV) && $(DASHBOARD_VENV)/bin/pip install -q matplotlib; }
	@mkdir -p $(dir $(RECORDING)) docs
	@if [ "$(RECORD)" = 1 ]; then \
		curl -fs -o /dev/null $(METRICS_URL) || { echo "no metrics at $(METRICS_URL): start make run in another terminal first" >&2; exit 1; }; \
		echo "recording $(METRICS_URL) every $(INTERVAL) s for $(MINUTES) min into $(RECORDING)" >&2; \
		python3 src/scripts/dashboard/record.py --url $(METRICS_URL) --interval $(INTERVAL) --minutes $(MINUTES) --out $(RECORDING); \
	fi
	$(DASHBOARD_VENV)/bin/python src/scripts/dashboard/render.py --recording $(RECORDING) --out docs/dashboard.png \
		--source "make run's operator ($(RECORDING))" $(if $(ALLOW_EMPTY),--allow-empty '$(ALLOW_EMPTY)')

test-prerequisites: ## What make test builds, in two lanes: the Go builds (go-builds) and make images (make test runs its Maven build beside the Go builds instead of after them)
	@$(MAKE) --no-print-directory -j2 go-builds images

go-builds: ## The Go builds make test needs, one after another so each reuses what the one before compiled (Go's build cache): control-plane-binaries, node-binaries (the kubelet), crane (the real node's registry), then helm and cosign (at Kubernetes' module versions) and actionlint
	@# crane (6 s) before helm and cosign (1-4 min on a fresh machine): the real-node classes start their node and its
	@# registry with it, need helm only after that, to publish and install the chart, and cosign only in their last
	@# class (RealNodeTest checks the signatures; the chart is installed unsigned and signed then).
	@$(MAKE) --no-print-directory -j1 control-plane-binaries node-binaries crane helm cosign actionlint

control-plane-binaries: ## Build (or reuse from ~/.cache) kube-apiserver, etcd, kube-controller-manager, kubectl
	@src/controlplane/bin/build.sh >/dev/null

node-binaries: ## Build (or reuse from ~/.cache) containerd and kubelet for the real node; installs Debian's runc and CNI plugins when missing
	@src/controlplane/bin/build-node.sh >/dev/null

control-plane: control-plane-binaries ## Start a local Kubernetes control plane (NODE=real: with a real node; make images node-binaries first); kubeconfig in .local-cluster/kubeconfig
	$(if $(filter real,$(NODE)),CP_COMPONENTS="etcd apiserver controller-manager scheduler node") src/controlplane/bin/up.sh

control-plane-down: ## Stop the local control plane and remove its state
	src/controlplane/bin/down.sh

helm: ## Build (or reuse from ~/.cache) the pinned helm the chart tests use
	@src/controlplane/bin/build-helm.sh >/dev/null

crane: ## Build (or reuse from ~/.cache) the pinned crane (go-containerregistry): make publish pushes with it, the local control plane's registry is its registry serve
	@src/controlplane/bin/build-crane.sh >/dev/null

actionlint: ## Build (or reuse from ~/.cache) the pinned actionlint that make lint-workflows runs
	@src/controlplane/bin/build-actionlint.sh >/dev/null

lint-workflows: actionlint ## Check .github/workflows/ (the release) with actionlint (part of make test); prints lint-workflows: files=<n> errors=0
	@"$$(src/controlplane/bin/build-actionlint.sh 2>/dev/null)" && echo "lint-workflows: files=$$(ls .github/workflows/*.yml | wc -l) errors=0"

cosign: ## Build (or reuse from ~/.cache) the pinned cosign (sigstore): make publish SIGN_KEY=... signs the images and the chart and attaches the SBOMs with it
	@src/controlplane/bin/build-cosign.sh >/dev/null

reference: ## Write docs/reference.md's field tables from the CRD's schema again (ReferenceDocTest fails in make test while they differ)
	$(MVN) -q -pl src/operator -am test -Dtest=ReferenceDocTest -Dreference.write=true -Dsurefire.failIfNoSpecifiedTests=false

verify-install: ## Prove that the API server itself calls the operator's webhook (a dry-run pod in NAMESPACE=<ns>, default: the first namespace holding a policy, comes back answered), against kubectl's current context; says what to check when it does not
	src/scripts/verify-install.sh $(NAMESPACE)

publish: images helm crane ## Push the six images and the Helm chart (an OCI artifact) to REGISTRY=<host[:port]/path> at VERSION (default: the chart's appVersion); INSECURE=1 for a plain-HTTP registry (127.0.0.1 is one); SIGN_KEY=<cosign.key> (COSIGN_PASSWORD) or SIGN=keyless signs them and attaches the SBOMs; what was pushed, with digests, in ~/.cache/streams-memory-operator/images/<appVersion>/published.txt
	@[[ -n "$(REGISTRY)" ]] || { echo "make publish: set REGISTRY=<host[:port]/path>, e.g. REGISTRY=ghcr.io/streams-memory" >&2; exit 2; }
	src/scripts/publish.sh "$(REGISTRY)" $(VERSION)

manifests: ## Render deploy/ from the Helm chart (the source) and copy crds/ into the chart; a test fails when they differ
	src/scripts/manifests.sh

# The images make images builds: the names are the chart's default values, the tag its appVersion; the other images
# (base JRE, pause, example app, Kafka broker) live beside the operator's in the same registry path.
CHART := deploy/helm/streams-memory-operator
IMAGE_TAG = $(shell awk -F'"' '/^appVersion:/ {print $$2}' $(CHART)/Chart.yaml)
OPERATOR_REPOSITORY = $(shell awk '/^operator:/ {o=1} o && /repository:/ {print $$2; exit}' $(CHART)/values.yaml)
OPERATOR_IMAGE = $(OPERATOR_REPOSITORY):$(IMAGE_TAG)
AGENT_IMAGE = $(shell awk '/^  agent:/ {a=1} a && /repository:/ {print $$2; exit}' $(CHART)/values.yaml):$(IMAGE_TAG)
OTHER_IMAGES = $(foreach n,jre pause example-app kafka,$(dir $(OPERATOR_REPOSITORY))streams-memory-$(n):$(IMAGE_TAG))

image-names: ## The image references make images tags (operator and agent first: the chart's defaults)
	@echo $(OPERATOR_IMAGE)
	@echo $(AGENT_IMAGE)
	@for i in $(OTHER_IMAGES); do echo $$i; done

images: ## Build every image with buildah, no daemon or registry needed (IMAGES='jre pause agent operator example-app kafka example-spring-boot example-quarkus'); tarballs in ~/.cache/streams-memory-operator/images/
	@src/images/build.sh

sbom: ## CycloneDX SBOMs (JSON) of the operator and the agent, from their Maven dependencies: src/operator/target/bom.json, src/agent/target/bom.json
	$(MVN) -q -pl src/engine,src/agent,src/operator org.cyclonedx:cyclonedx-maven-plugin:makeBom
	@for m in operator agent; do echo "src/$$m/target/bom.json: $$(python3 -c "import json,sys; d=json.load(open('src/'+sys.argv[1]+'/target/bom.json')); print(len(d.get('components',[])), 'components,', 'CycloneDX', d['specVersion'])" $$m)"; done

test-webhook-abuse: control-plane-binaries ## The webhook under abuse as a whole: 200 slow clients and 50 senders of 3 MiB bodies at once while normal reviews and pods must still be answered within the API server's 2 s (timed, so not in make test; prints webhook-abuse: ...)
	$(MVN) -q -pl src/controlplane,src/engine install -DskipTests
	$(MVN) -pl src/operator test -Dtest=WebhookOverloadTest -Dsurefire.failIfNoSpecifiedTests=false -Dstreamsmemory.webhookAbuse=true

clean: ## Remove build outputs
	$(MVN) -q clean

.PHONY: check-docs docs-diagram

check-docs: ## Check README.md and docs/*.md: the make targets and repository paths their shell blocks name exist, relative links resolve, blocks marked <!-- check: run --> run and quoted figures still print
	src/scripts/check-docs.sh

docs-diagram: ## Render docs/architecture.dot to docs/architecture.svg with Graphviz's dot (apt-get install graphviz)
	dot -Tsvg docs/architecture.dot -o docs/architecture.svg
