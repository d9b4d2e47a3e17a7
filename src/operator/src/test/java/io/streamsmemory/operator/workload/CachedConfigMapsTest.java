package io.streamsmemory.operator.workload;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.FieldsV1;
import io.fabric8.kubernetes.api.model.ManagedFieldsEntryBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.informers.cache.Cache;
import io.fabric8.kubernetes.client.informers.cache.ItemStore;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.streamsmemory.engine.ByteSize;
import io.streamsmemory.operator.Fixtures;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The cache keeps a published ConfigMap small, and every reader sees in it what the API server holds. */
class CachedConfigMapsTest {
    private final Deployment deployment = Fixtures.deployment("shop", "orders-app", "orders", 2, "2Gi");
    private final Workload workload;
    private final ConfigMap desired;

    CachedConfigMapsTest() {
        deployment.getMetadata().setUid("uid-orders-app");
        workload = Workload.of(deployment).orElseThrow();
        desired = AllocationConfigMap.desired("orders", workload, Fixtures.smallAllocation(2 * ByteSize.GiB, 4), "");
    }

    @Test
    void thePublishedConfigMapIsCachedCompressedAndReadsAsPublished() {
        ConfigMap live = asServed(desired, "streams-memory-operator");
        String whole = Serialization.asJson(live);
        ItemStore<ConfigMap> store = CachedConfigMaps.store();

        store.put(Cache.metaNamespaceKeyFunc(live), asServed(desired, "streams-memory-operator"));
        ConfigMap cached = store.get(Cache.metaNamespaceKeyFunc(live));

        assertThat(cached.getMetadata().getManagedFields()).isNull();
        assertThat(cached.getData()).doesNotContainKey(MetadataKeys.ALLOCATION_KEY);
        assertThat(CachedConfigMaps.data(cached)).isEqualTo(desired.getData()).isEqualTo(CachedConfigMaps.data(live));
        assertThat(AllocationConfigMap.document(cached)).isEqualTo(AllocationConfigMap.document(live));
        assertThat(AllocationConfigMap.sameAs(cached, desired)).isTrue();
        assertThat(ConfigMapProvenance.problem(cached, deployment)).isNull();
        assertThat(bytesKept(cached)).isLessThan(whole.length() / 2);
    }

    @Test
    void aHandEditIsSeenInTheCachedCopyAsInTheLiveOne() {
        ConfigMap edited = asServed(desired, "kubectl-edit");
        edited.getData().put(MetadataKeys.ALLOCATION_KEY, edited.getData().get(MetadataKeys.ALLOCATION_KEY) + "\n");
        ConfigMap cached = CachedConfigMaps.trim(asServed(edited, "kubectl-edit"));

        assertThat(CachedConfigMaps.foreignWriter(cached)).contains("kubectl-edit");
        assertThat(ConfigMapProvenance.problem(cached, deployment))
                .isEqualTo(ConfigMapProvenance.problem(edited, deployment))
                .contains("written by \"kubectl-edit\"");
        assertThat(AllocationConfigMap.sameAs(cached, desired)).isFalse();
    }

    /** As the API server returns it: the operator's managed fields, and those of {@code writer} when another. */
    private static ConfigMap asServed(ConfigMap configMap, String writer) {
        ConfigMapBuilder served = new ConfigMapBuilder(configMap)
                .editMetadata()
                .withUid("uid-cm")
                .withResourceVersion("7")
                .addToManagedFields(new ManagedFieldsEntryBuilder()
                        .withManager(MetadataKeys.FIELD_MANAGER)
                        .withOperation("Apply")
                        .withFieldsV1(fields())
                        .build())
                .endMetadata();
        if (!writer.equals(MetadataKeys.FIELD_MANAGER)) {
            served.editMetadata()
                    .addToManagedFields(new ManagedFieldsEntryBuilder()
                            .withManager(writer)
                            .withOperation("Update")
                            .withFieldsV1(fields())
                            .build())
                    .endMetadata();
        }
        return Serialization.clone(served.build());
    }

    private static FieldsV1 fields() {
        FieldsV1 fields = new FieldsV1();
        fields.setAdditionalProperty("f:data", Map.of("f:" + MetadataKeys.ALLOCATION_KEY, Map.of()));
        return fields;
    }

    /** What the cached copy holds, its compressed document counted as bytes. */
    private static int bytesKept(ConfigMap cached) {
        byte[] compressed = (byte[]) cached.getAdditionalProperties().get(CachedConfigMaps.COMPRESSED_ALLOCATION);
        ConfigMap rest = new ConfigMapBuilder(cached).build();
        rest.getAdditionalProperties().clear();
        return Serialization.asJson(rest).length() + compressed.length;
    }
}
