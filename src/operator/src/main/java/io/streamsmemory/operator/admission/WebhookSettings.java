package io.streamsmemory.operator.admission;

import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.streamsmemory.engine.MemoryModel;
import io.streamsmemory.operator.workload.MetadataKeys;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * How the pod webhook is served and what it injects. The Quarkus app fills it from
 * {@code streamsmemory.webhook.*} in application.properties (see there for each key); tests set it directly.
 */
public final class WebhookSettings {
    /** Names the operator's manifests (deploy/webhook.yaml) use. */
    public static final String DEFAULT_CONFIGURATION_NAME = MetadataKeys.WEBHOOK_CONFIGURATION;

    public static final String DEFAULT_SECRET_NAME = "streams-memory-operator-webhook-tls";
    public static final String DEFAULT_SERVICE_NAME = "streams-memory-operator-webhook";
    public static final String PATH = "/mutate-pods";
    /** The init container's image unless streamsmemory.webhook.agent.image names another (the chart always does). */
    public static final String DEFAULT_AGENT_IMAGE = "ghcr.io/streams-memory/streams-memory-agent:0.1.0";

    /**
     * Reviews in flight at once (being read, waiting for a worker or answered) before more are shed. Real traffic
     * has a handful: the API server sends one review per pod CREATE of a policy's namespace, the controller-manager
     * (which creates most pods) is held to 20 requests/s, bursts of 30, by its client's defaults
     * ({@code --kube-api-qps}, {@code --kube-api-burst}), and a review is answered in about a millisecond. 256
     * leaves room for several API servers bursting together; each review in flight costs no more than its
     * connection's buffers and its body (capped below) and lasts at most {@code request-timeout}.
     */
    public static final int DEFAULT_MAX_IN_FLIGHT = 256;

    /**
     * Request-body bytes held at once, across all connections, before more reviews are shed: 16 MiB is every one of
     * {@link #DEFAULT_MAX_IN_FLIGHT} reviews at 64 KiB (a pod review is typically 5 to 20 KiB), or four at the 4 MiB
     * a single request may send. The heap a body takes is a few times its size (a buffer that grows by doubling
     * while it is read, the worker's copy, the parsed tree): some tens of MiB at the cap, inside what the chart's
     * 512Mi limit leaves (a heap of 40% of it, ~205 MiB, of which the caches of 1,000 managed workloads hold
     * ~80 MiB). WebhookOverloadTest measures the process under 200 slow clients and 50 bodies of 3 MiB at once.
     */
    public static final long DEFAULT_MAX_BUFFERED_BYTES = 16L << 20;

    /** Names of what the webhook adds to a pod. */
    public static final String INIT_CONTAINER = "streams-memory-agent";

    public static final String AGENT_VOLUME = "streams-memory-agent";
    public static final String ALLOCATION_VOLUME = "streams-memory-allocation";
    public static final String AGENT_JAR = "streams-memory-agent.jar";
    /** The environment variable that turns on the agent's memory report, on this port. */
    public static final String REPORT_PORT_VARIABLE = MetadataKeys.REPORT_PORT_VARIABLE;

    String host = "0.0.0.0";
    int port = 8443;
    /** Workers answering complete reviews; handshakes and reads happen on the event loops without them. */
    int threads = 8;
    /** The longest a client may take for its TLS handshake, and for a request's body once its headers are in. */
    Duration requestTimeout = Duration.ofSeconds(10);
    /** The global caps ({@link WebhookLoad}); above either a review is answered 429 unread and admitted unchanged. */
    int maxInFlight = DEFAULT_MAX_IN_FLIGHT;

    long maxBufferedBytes = DEFAULT_MAX_BUFFERED_BYTES;

    String namespace = "default";
    String serviceName = DEFAULT_SERVICE_NAME;
    List<String> extraSans = new ArrayList<>();
    String configurationName = DEFAULT_CONFIGURATION_NAME;
    String secretName = DEFAULT_SECRET_NAME;
    Path certFile;
    Path keyFile;
    Duration certificateValidity = Duration.ofDays(90);
    Duration certificateRenewBefore = Duration.ofDays(30);
    Duration caValidity = Duration.ofDays(3 * 365);
    Duration caRenewBefore = Duration.ofDays(365);
    Duration refreshPeriod = Duration.ofSeconds(60);
    /**
     * After the webhook begins serving, how long an unanswered install check ({@link WebhookReachCheck}) is no
     * verdict: the pod must pass its readiness probe and join its Service's endpoints before the API server can call it.
     */
    Duration reachGrace = Duration.ofSeconds(30);

    String agentImage = DEFAULT_AGENT_IMAGE;
    String agentJarPath = "/streams-memory/" + AGENT_JAR;
    String agentMountPath = "/streams-memory-agent";
    String allocationMountPath = "/etc/streams-memory";
    String volumeSizeLimit = "32Mi";
    /** The init container's resources; null leaves one out (a LimitRange default may then fill it in). */
    String initCpuRequest = "10m";

    String initCpuLimit = "100m";
    String initMemoryRequest = "32Mi";
    String initMemoryLimit = "32Mi";
    /** The init container's user; null leaves runAsUser out (OpenShift's restricted SCC assigns one). */
    Long runAsUser = 65532L;
    /** Secrets for pulling the agent image, added to the pod's imagePullSecrets unless it lists them already. */
    List<String> imagePullSecrets = new ArrayList<>();

    String mallocArenaMax = MemoryModel.MALLOC_ARENA_MAX;
    /** The port of the agent's memory report (STREAMS_MEMORY_REPORT_PORT); null leaves the report off. */
    Integer reportPort = 9471;

    public WebhookSettings host(String host) {
        this.host = host;
        return this;
    }

    public WebhookSettings port(int port) {
        this.port = port;
        return this;
    }

    public WebhookSettings threads(int threads) {
        this.threads = threads;
        return this;
    }

    public WebhookSettings requestTimeout(Duration timeout) {
        this.requestTimeout = timeout;
        return this;
    }

    public WebhookSettings maxInFlight(int maxInFlight) {
        this.maxInFlight = maxInFlight;
        return this;
    }

    public WebhookSettings maxBufferedBytes(long maxBufferedBytes) {
        this.maxBufferedBytes = maxBufferedBytes;
        return this;
    }

    public WebhookSettings namespace(String namespace) {
        this.namespace = namespace;
        return this;
    }

    public WebhookSettings serviceName(String serviceName) {
        this.serviceName = serviceName;
        return this;
    }

    public WebhookSettings extraSans(List<String> extraSans) {
        this.extraSans = new ArrayList<>(extraSans);
        return this;
    }

    public WebhookSettings configurationName(String name) {
        this.configurationName = name;
        return this;
    }

    public WebhookSettings secretName(String secretName) {
        this.secretName = secretName;
        return this;
    }

    public WebhookSettings certificateFiles(Path certFile, Path keyFile) {
        this.certFile = certFile;
        this.keyFile = keyFile;
        return this;
    }

    public WebhookSettings certificateValidity(Duration validity, Duration renewBefore) {
        this.certificateValidity = validity;
        this.certificateRenewBefore = renewBefore;
        return this;
    }

    public WebhookSettings caValidity(Duration validity, Duration renewBefore) {
        this.caValidity = validity;
        this.caRenewBefore = renewBefore;
        return this;
    }

    public WebhookSettings refreshPeriod(Duration refreshPeriod) {
        this.refreshPeriod = refreshPeriod;
        return this;
    }

    public WebhookSettings reachGrace(Duration reachGrace) {
        this.reachGrace = reachGrace;
        return this;
    }

    public WebhookSettings agentImage(String agentImage) {
        this.agentImage = agentImage;
        return this;
    }

    public WebhookSettings agentJarPath(String agentJarPath) {
        this.agentJarPath = agentJarPath;
        return this;
    }

    public WebhookSettings agentMountPath(String agentMountPath) {
        this.agentMountPath = agentMountPath;
        return this;
    }

    public WebhookSettings allocationMountPath(String path) {
        this.allocationMountPath = path;
        return this;
    }

    public WebhookSettings volumeSizeLimit(String volumeSizeLimit) {
        this.volumeSizeLimit = volumeSizeLimit;
        return this;
    }

    public WebhookSettings initResources(String cpuRequest, String cpuLimit, String memoryRequest, String memoryLimit) {
        this.initCpuRequest = blankToNull(cpuRequest);
        this.initCpuLimit = blankToNull(cpuLimit);
        this.initMemoryRequest = blankToNull(memoryRequest);
        this.initMemoryLimit = blankToNull(memoryLimit);
        return this;
    }

    public WebhookSettings imagePullSecrets(List<String> names) {
        this.imagePullSecrets =
                names.stream().map(String::trim).filter(n -> !n.isEmpty()).toList();
        return this;
    }

    public WebhookSettings runAsUser(Long runAsUser) {
        this.runAsUser = runAsUser;
        return this;
    }

    public WebhookSettings mallocArenaMax(String value) {
        this.mallocArenaMax = value;
        return this;
    }

    public WebhookSettings reportPort(Integer value) {
        this.reportPort = value;
        return this;
    }

    public Long runAsUser() {
        return runAsUser;
    }

    public List<String> imagePullSecrets() {
        return List.copyOf(imagePullSecrets);
    }

    /** The MALLOC_ARENA_MAX the webhook sets in pods that do not set their own; null sets none. */
    public String mallocArenaMax() {
        return mallocArenaMax;
    }

    /** The init container's request of {@code cpu} or {@code memory}, or null for none. */
    public String initRequest(String resource) {
        return "cpu".equals(resource) ? initCpuRequest : initMemoryRequest;
    }

    /** The init container's limit of {@code cpu} or {@code memory}, or null for none. */
    public String initLimit(String resource) {
        return "cpu".equals(resource) ? initCpuLimit : initMemoryLimit;
    }

    private static String blankToNull(String value) {
        return value == null || value.isBlank() ? null : value.trim();
    }

    /** Where the application container finds the agent jar. */
    public String agentJarInPod() {
        return agentMountPath + "/" + AGENT_JAR;
    }

    /** The allocation document the agent reads (STREAMS_MEMORY_ALLOCATION). */
    public String allocationFileInPod() {
        return allocationMountPath + "/allocation.json";
    }

    /** The names the serving certificate must cover: the Service's DNS names plus {@link #extraSans}. */
    public List<String> subjectAltNames() {
        List<String> sans = new ArrayList<>();
        sans.add("DNS:" + serviceName);
        sans.add("DNS:" + serviceName + "." + namespace);
        sans.add("DNS:" + serviceName + "." + namespace + ".svc");
        sans.add("DNS:" + serviceName + "." + namespace + ".svc.cluster.local");
        for (String san : extraSans) {
            String trimmed = san.trim();
            if (!trimmed.isEmpty()) {
                sans.add(trimmed.contains(":") ? trimmed : "DNS:" + trimmed);
            }
        }
        return sans;
    }

    /** True when the certificate comes from files (cert-manager) rather than the operator's own CA. */
    public boolean certificateFromFiles() {
        return certFile != null && keyFile != null;
    }

    /** The MutatingWebhookConfiguration whose caBundle and namespaceSelector the operator keeps. */
    Resource<MutatingWebhookConfiguration> configuration(KubernetesClient client) {
        return client.admissionRegistration()
                .v1()
                .mutatingWebhookConfigurations()
                .withName(configurationName);
    }
}
