package io.streamsmemory.operator.reconcile.decide;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.streamsmemory.controlplane.EnableLocalControlPlane;
import io.streamsmemory.operator.Fixtures;
import io.streamsmemory.operator.api.StreamsMemoryPolicy;
import io.streamsmemory.operator.api.StreamsMemoryPolicyStatus;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The status of a policy with 3,000 workloads, as the reconciler builds it, is accepted and kept whole by a real
 * kube-apiserver and etcd; the same status listing every workload is not.
 */
@EnableLocalControlPlane
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class BoundedStatusTest {
    private static final int WORKLOADS = 3000;
    private static final int MAX_ROWS = 100;
    KubernetesClient client;

    @BeforeAll
    void installCrd() throws Exception {
        Fixtures.installCrd(client);
    }

    @Test
    void theApiServerKeepsTheStatusOf3000Workloads() {
        String ns = "bounded";
        ManyWorkloads many = new ManyWorkloads(ns, WORKLOADS);
        StreamsMemoryPolicy created = create(many);
        StreamsMemoryPolicyStatus written = many.status(created, MAX_ROWS);
        created.setStatus(written);
        client.resource(created).updateStatus();

        StreamsMemoryPolicy read = client.resources(StreamsMemoryPolicy.class)
                .inNamespace(ns)
                .withName("orders")
                .get();
        System.out.printf(
                "status of %d workloads as stored: %d bytes%n",
                WORKLOADS, Serialization.asJson(read).getBytes(StandardCharsets.UTF_8).length);
        StreamsMemoryPolicyStatus status = read.getStatus();
        assertThat(status.getWorkloadCount()).isEqualTo(WORKLOADS);
        assertThat(status.getWorkloadRowsOmitted()).isEqualTo(WORKLOADS - MAX_ROWS);
        assertThat(status.getDriftedPods()).isEqualTo(written.getDriftedPods()).isPositive();
        assertThat(status.getWorkloads()).hasSize(MAX_ROWS);
        // Every field of every row survived the CRD's schema (nothing pruned).
        assertThat(Serialization.asJson(status.getWorkloads())).isEqualTo(Serialization.asJson(written.getWorkloads()));
        assertThat(status.getWorkloads().get(0).getMessage()).isNotNull();
        assertThat(status.getConditions())
                .hasSize(8)
                .allSatisfy(c -> assertThat(c.getMessage()).hasSizeLessThanOrEqualTo(BoundedMessages.MAX_CHARS))
                .anySatisfy(c -> assertThat(c.getMessage()).contains("2900 omitted"));
    }

    /** What the bound prevents: the API server (3 MiB a request) and etcd (1.5 MiB an object) refuse the status. */
    @Test
    void theStatusListingEvery3000WorkloadsIsRefused() {
        ManyWorkloads many = new ManyWorkloads("unbounded", WORKLOADS);
        StreamsMemoryPolicy created = create(many);
        created.setStatus(many.status(created, Integer.MAX_VALUE));
        assertThatThrownBy(() -> client.resource(created).updateStatus())
                .isInstanceOfSatisfying(
                        KubernetesClientException.class,
                        refused -> System.out.printf(
                                "the status listing all %d workloads: refused with %d %s%n",
                                WORKLOADS,
                                refused.getCode(),
                                refused.getStatus() == null
                                        ? refused.getMessage()
                                        : refused.getStatus().getMessage()));
    }

    private StreamsMemoryPolicy create(ManyWorkloads many) {
        Fixtures.namespace(client, many.policy.getMetadata().getNamespace());
        return client.resource(many.policy).create();
    }
}
