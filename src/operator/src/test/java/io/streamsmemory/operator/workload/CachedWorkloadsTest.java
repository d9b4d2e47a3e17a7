package io.streamsmemory.operator.workload;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ManagedFieldsEntryBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.client.informers.cache.Cache;
import io.fabric8.kubernetes.client.informers.cache.ItemStore;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.streamsmemory.operator.Fixtures;
import org.junit.jupiter.api.Test;

/** The caches keep a bystander's identity only, and of an opted-in workload all the operator reads. */
class CachedWorkloadsTest {

    @Test
    void aBystanderIsCachedAsItsIdentityAndItsEventKeepsTheWholeObject() {
        Deployment bystander = deployment("payments", null);
        String whole = Serialization.asJson(bystander);
        ItemStore<Deployment> store = CachedWorkloads.store();

        store.put(Cache.metaNamespaceKeyFunc(bystander), bystander);

        Deployment cached = store.get("shop/payments");
        assertThat(cached.getKind()).isEqualTo("Deployment");
        assertThat(cached.getMetadata().getUid()).isEqualTo("uid-payments");
        assertThat(cached.getMetadata().getResourceVersion()).isEqualTo("7");
        assertThat(cached.getSpec()).isNull();
        assertThat(cached.getMetadata().getAnnotations()).isNullOrEmpty();
        assertThat(Workload.of(cached)).isEmpty();
        assertThat(Serialization.asJson(bystander))
                .as("the object event handlers see")
                .isEqualTo(whole);
        assertThat(Serialization.asJson(cached).length()).isLessThan(whole.length() / 4);
    }

    @Test
    void anOptedInWorkloadKeepsAllTheOperatorReadsButNotTheManagedFields() {
        Deployment orders = deployment("orders", "orders-policy");
        ItemStore<Deployment> store = CachedWorkloads.store();

        store.put(Cache.metaNamespaceKeyFunc(orders), orders);

        Deployment cached = store.get("shop/orders");
        assertThat(cached.getMetadata().getManagedFields()).isNull();
        assertThat(cached.getMetadata().getAnnotations())
                .containsEntry(MetadataKeys.POLICY, "orders-policy")
                .doesNotContainKey(CachedWorkloads.LAST_APPLIED);
        Workload workload = Workload.of(cached).orElseThrow();
        assertThat(workload.declaredReplicas()).isEqualTo(3);
        assertThat(workload.template()
                        .getSpec()
                        .getContainers()
                        .get(0)
                        .getResources()
                        .getLimits())
                .containsEntry("memory", new Quantity("2Gi"));
        assertThat(cached.getStatus().getObservedGeneration()).isEqualTo(4L);
    }

    @Test
    void aBystanderThatOptsInIsCachedWholeFromItsUpdateOn() {
        ItemStore<StatefulSet> store = CachedWorkloads.store();
        StatefulSet before = statefulSet(null);
        store.put(Cache.metaNamespaceKeyFunc(before), before);
        assertThat(store.get("shop/ledger").getSpec()).isNull();

        StatefulSet optedIn = statefulSet("orders-policy");
        store.put(Cache.metaNamespaceKeyFunc(optedIn), optedIn);

        assertThat(Workload.of(store.get("shop/ledger")).orElseThrow().declaredReplicas())
                .isEqualTo(optedIn.getSpec().getReplicas())
                .isEqualTo(3);
        assertThat(store.get("shop/ledger").getKind()).isEqualTo("StatefulSet");
    }

    /** The shared test Deployment as the API server returns it: identity, kubectl's managed fields, a status. */
    private static Deployment deployment(String name, String policy) {
        return new DeploymentBuilder(Fixtures.deployment("shop", name, policy, 3, "2Gi"))
                .editMetadata()
                .withUid("uid-" + name)
                .withResourceVersion("7")
                .withGeneration(4L)
                .addToLabels("app", name)
                .addToAnnotations(CachedWorkloads.LAST_APPLIED, "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\"}")
                .addToManagedFields(new ManagedFieldsEntryBuilder()
                        .withManager("kubectl")
                        .withOperation("Apply")
                        .build())
                .endMetadata()
                .withNewStatus()
                .withObservedGeneration(4L)
                .endStatus()
                .build();
    }

    private static StatefulSet statefulSet(String policy) {
        return Fixtures.statefulSetLike(deployment("ledger", policy));
    }
}
