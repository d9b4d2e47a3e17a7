package io.streamsmemory.engine;

import static io.streamsmemory.engine.ByteSize.GiB;
import static io.streamsmemory.engine.ByteSize.MiB;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.streamsmemory.protocol.RocksDbSettings;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * Pins the formula against examples worked out by hand (the arithmetic is in the comments), so a
 * change of any constant shows up as a named difference.
 */
class AllocationEngineExamplesTest {
    private final AllocationEngine engine = new AllocationEngine();

    /** 2 GiB, 4 threads, 24 partitions over 3 replicas, 2 key-value + 1 window store per task. */
    private static WorkloadFacts realisticPod() {
        return WorkloadFacts.builder()
                .memoryBytes(2 * GiB)
                .streamThreads(4)
                .replicas(3)
                .partitions(24)
                .stores(new StoreCounts(2, 1, 0))
                .build();
    }

    /** {@link #realisticPod()} with the facts {@code change} sets. */
    private static WorkloadFacts realisticPod(UnaryOperator<WorkloadFacts.Builder> change) {
        return change.apply(realisticPod().toBuilder()).build();
    }

    @Test
    void realisticPodMatchesTheHandComputedSplit() {
        Allocation a = engine.allocate(realisticPod()).allocation();

        // code cache = 2048/16 = 128 MiB; headroom = max((2048-128)*10%, 128) = 192 MiB
        assertThat(a.part("jvm-code-cache").bytes()).isEqualTo(128 * MiB);
        assertThat(a.part("headroom").bytes()).isEqualTo(192 * MiB);
        // metaspace = ceil((15000 * 5800 + 14,000,000) / MiB) = ceil(96.3) = 97 MiB;
        // stacks = (40 + 3*4) threads x 256 KiB resident = 13 MiB
        assertThat(a.part("jvm-metaspace").bytes()).isEqualTo(97 * MiB);
        assertThat(a.part("jvm-thread-stacks").bytes()).isEqualTo(13 * MiB);
        // pool = 1728 - 97 - 13 = 1618 MiB; client I/O = min(1618 * 20%, 744) = 323 MiB; buffers get 323 - 16 = 307
        // MiB of the 4x32 + 12x50 = 728 MiB Kafka's defaults would want: producer 32 MiB * 307/728 -> 13818 KiB,
        // each of the 8 fetch buffers and 4 read copies (307 MiB - 4 x 13818 KiB) / 12 -> 21591 KiB (down to KiB)
        assertThat(a.streamsConfig())
                .containsEntry("producer.buffer.memory", Long.toString(13818 * 1024L))
                .containsEntry("main.consumer.fetch.max.bytes", Long.toString(21591 * 1024L))
                .containsEntry("restore.consumer.fetch.max.bytes", Long.toString(21591 * 1024L))
                .containsEntry("main.consumer.max.partition.fetch.bytes", "1048576")
                .containsEntry("producer.batch.size", "16384")
                .doesNotContainKey("global.consumer.fetch.max.bytes");
        // client heap = 4 x 13818 KiB + 8 x 21591 KiB; direct = 323 MiB - client heap
        long clientHeap = (4 * 13818 + 8 * 21591) * 1024L;
        assertThat(a.part("client-buffers").bytes()).isEqualTo(clientHeap);
        assertThat(a.part("client-buffers").reason()).contains("each given 42% of Kafka's default buffers");
        assertThat(a.part("jvm-direct-memory").bytes()).isEqualTo(323 * MiB - clientHeap);
        // RocksDB = floor((1618 - 323) * 0.4) = 518 MiB; heap = client heap + 777 MiB
        assertThat(a.part("rocksdb").bytes()).isEqualTo(518 * MiB);
        assertThat(a.part("heap").bytes()).isEqualTo(clientHeap + 777 * MiB);
        assertThat(a.jvmOptions())
                .contains(
                        "-Xmx" + (clientHeap + 777 * MiB) / 1024 + "k",
                        "-Xms" + (clientHeap + 777 * MiB) / 1024 + "k",
                        "-XX:MaxMetaspaceSize=97m",
                        "-XX:ReservedCodeCacheSize=128m",
                        "-XX:MaxDirectMemorySize=" + (323 * MiB - clientHeap) / 1024 + "k",
                        "-Xss1m");
        // 8 active tasks x (2 kv + 3 segments x 1 window) = 40 instances x 320 KiB outside the cache
        assertThat(a.topology().rocksDbInstances()).isEqualTo(40);
        assertThat(a.part("rocksdb-native-overhead").bytes()).isEqualTo(40 * 320 * ByteSize.KiB);
        long capacity = 518 * MiB - 40 * 320 * ByteSize.KiB;
        assertThat(a.rocksDb().blockCacheCapacityBytes()).isEqualTo(capacity);
        assertThat(a.rocksDb().writeBufferManagerBytes()).isEqualTo(capacity / 3);
        assertThat(a.rocksDb().writeBufferSizeBytes()).isEqualTo(16 * MiB); // capacity/3/4 = 42 MiB, capped at 16
        assertThat(a.rocksDb().maxWriteBufferNumber()).isEqualTo(2);
        // arena block = (505.5 MiB / 3) / 4 / (40 instances x 3 column families x 2 memtables) = 175.6 KiB,
        // down to a 4 KiB step
        assertThat(a.rocksDb().arenaBlockSizeBytes()).isEqualTo(176 * ByteSize.KiB);
        // one flush thread per stream thread, at most 4
        assertThat(a.rocksDb().backgroundFlushThreads()).isEqualTo(4);
        assertThat(a.part("rocksdb").config()).containsEntry("env.background_threads.high", "4");
        assertThat(a.rocksDb().highPriorityPoolRatio()).isEqualTo(0.1);
        // the record cache's entries would take 20% of the 777 MiB data heap (Kafka Streams counting a quarter: 38.9
        // MiB), capped at 4 MiB per stream thread by Kafka Streams' count: 16 MiB, 64 MiB of heap;
        // input = 1000 records x 8 partitions x 1 KiB
        long cacheHeap = 4 * 16 * MiB;
        assertThat(a.streamsConfig())
                .containsEntry("statestore.cache.max.bytes", Long.toString(16 * MiB))
                .containsEntry("buffered.records.per.partition", "1000");
        assertThat(a.part("record-cache").reason()).startsWith("capped at 4 MiB per stream thread");
        assertThat(a.part("record-cache").bytes()
                        + a.part("record-cache-overhead").bytes())
                .isEqualTo(cacheHeap);
        assertThat(a.part("input-buffers").bytes()).isEqualTo(8_192_000L);
        assertThat(a.parts().stream().mapToLong(Part::bytes).sum()).isEqualTo(2 * GiB);
    }

    /**
     * The cap binds only where the share would pass it, and a share the user forces is theirs: at 2 GiB the model's
     * 20% would be 38.9 MiB by Kafka Streams' count; forced, it is; at 512 MiB the share is under the cap already.
     */
    @Test
    void theRecordCacheIsCappedPerStreamThreadUnlessTheUserForcesItsShare() {
        Allocation forced = engine.allocate(
                        realisticPod(pod -> pod.overrides(Overrides.NONE.withRecordCacheFraction(0.2))))
                .allocation();
        assertThat(forced.streamsConfig()).containsEntry("statestore.cache.max.bytes", "40737177");
        assertThat(forced.part("record-cache").reason()).doesNotContain("capped");

        Allocation small =
                engine.allocate(realisticPod(pod -> pod.memoryBytes(GiB / 2))).allocation();
        long smallCache = Long.parseLong(small.streamsConfig().get("statestore.cache.max.bytes"));
        assertThat(smallCache).isLessThan(16 * MiB);
        assertThat(small.part("record-cache").reason()).doesNotContain("capped");
        assertThat(small.parts().stream().mapToLong(Part::bytes).sum()).isEqualTo(GiB / 2);
    }

    @Test
    void kafkaDefaultsBaselineShowsWhyTheDefaultPodIsKilled() {
        DefaultsBaseline defaults = engine.allocate(realisticPod()).allocation().baseline();
        // 40 instances x (50 MiB block cache + 3 x 16 MiB memtables) = 3920 MiB of RocksDB alone
        assertThat(defaults.parts().get(1).bytes()).isEqualTo(40 * 98 * MiB);
        // default heap = 25% of 2 GiB = 512 MiB, but clients alone want 4 x 32 + 8 x 50 = 528 MiB
        assertThat(defaults.heapBytes()).isEqualTo(512 * MiB);
        assertThat(defaults.heapNeedBytes()).isEqualTo(528 * MiB + 10 * MiB + 8_192_000L);
        assertThat(defaults.totalBytes()).isGreaterThan(2 * 2 * GiB);
    }

    @Test
    void statelessWorkloadGivesRocksDbNothingAndSkipsTheRecordCache() {
        Allocation a = engine.allocate(WorkloadFacts.builder()
                        .memoryBytes(GiB)
                        .streamThreads(2)
                        .tasksPerPod(4)
                        .build())
                .allocation();
        assertThat(a.part("rocksdb").bytes()).isZero();
        assertThat(a.rocksDb()).isNull();
        assertThat(a.streamsConfig()).containsEntry("statestore.cache.max.bytes", "0");
        assertThat(a.parts().stream().mapToLong(Part::bytes).sum()).isEqualTo(GiB);
    }

    @Test
    void olderKafkaStreamsGetsTheOldRecordCacheKey() {
        Allocation a = engine.allocate(realisticPod(pod -> pod.kafkaStreamsVersion("3.3.2")))
                .allocation();
        assertThat(a.streamsConfig())
                .containsKey("cache.max.bytes.buffering")
                .doesNotContainKey("statestore.cache.max.bytes");
    }

    /**
     * Two KafkaStreams instances of 2 threads in one JVM run the clients of one instance of 4 threads, so the client
     * buffers are the same; the record cache (per instance in Kafka Streams) is divided between them.
     */
    @Test
    void instancesInOneJvmShareTheRecordCacheAndHaveTheirOwnClients() {
        Allocation one = engine.allocate(realisticPod()).allocation();
        Allocation two = engine.allocate(
                        realisticPod(pod -> pod.streamThreads(2).instancesPerPod(2)))
                .allocation();
        assertThat(two.topology().producers()).isEqualTo(4);
        assertThat(two.topology().consumers()).isEqualTo(8);
        assertThat(two.part("client-buffers").bytes())
                .isEqualTo(one.part("client-buffers").bytes());
        assertThat(two.streamsConfig().get("producer.buffer.memory"))
                .isEqualTo(one.streamsConfig().get("producer.buffer.memory"));
        long perInstance = Long.parseLong(two.streamsConfig().get("statestore.cache.max.bytes"));
        // Each instance's cache is capped on its own: 4 MiB for each of its 2 threads, but never under Kafka's 10 MiB
        // default; the part is both shares.
        assertThat(perInstance).isEqualTo(10 * MiB);
        assertThat(two.part("record-cache").bytes()).isEqualTo(2 * perInstance);
        // Uncapped (the share forced), 20% of the same data heap divided by 2 (rounded down).
        Overrides forced = Overrides.NONE.withRecordCacheFraction(0.2);
        long forcedOne = Long.parseLong(engine.allocate(realisticPod(pod -> pod.overrides(forced)))
                .allocation()
                .streamsConfig()
                .get("statestore.cache.max.bytes"));
        long forcedTwo = Long.parseLong(engine.allocate(realisticPod(
                        pod -> pod.streamThreads(2).instancesPerPod(2).overrides(forced)))
                .allocation()
                .streamsConfig()
                .get("statestore.cache.max.bytes"));
        assertThat(forcedTwo).isEqualTo(forcedOne / 2);
        assertThat(two.facts().instancesPerPod()).isEqualTo(2);
        // Each instance with a global table has its own global consumer.
        Allocation global = engine.allocate(realisticPod(
                        pod -> pod.streamThreads(2).instancesPerPod(2).globalStores(1)))
                .allocation();
        assertThat(global.topology().consumers()).isEqualTo(10);
    }

    @Test
    void instancesPerPodOutsideItsRangeIsRejected() {
        assertThatThrownBy(() -> engine.allocate(realisticPod(pod -> pod.instancesPerPod(0))))
                .hasMessageContaining("instancesPerPod must be between 1 and 64, got 0");
    }

    @Test
    void globalTableAddsAGlobalConsumerAndItsStore() {
        Allocation a = engine.allocate(realisticPod(pod -> pod.globalStores(2))).allocation();
        assertThat(a.topology().rocksDbInstances()).isEqualTo(42);
        assertThat(a.topology().consumers()).isEqualTo(9);
        assertThat(a.streamsConfig()).containsKey("global.consumer.fetch.max.bytes");
    }

    @Test
    void standbysAddRocksDbInstancesButAreCappedByReplicas() {
        Topology oneReplica = engine.allocate(
                        realisticPod(pod -> pod.replicas(1).standbyReplicas(2)))
                .allocation()
                .topology();
        assertThat(oneReplica.standbyTasksPerPod()).isZero(); // no other pod to hold a standby
        Topology three = engine.allocate(
                        realisticPod(pod -> pod.standbyReplicas(1).memoryBytes(4 * GiB)))
                .allocation()
                .topology();
        assertThat(three.standbyTasksPerPod()).isEqualTo(8);
        assertThat(three.rocksDbInstances()).isEqualTo(80);
    }

    @Test
    void tinyPodForManyThreadsAndStoresIsAnErrorNamingTheCauseAndTheMinimum() {
        WorkloadFacts facts = WorkloadFacts.builder()
                .memoryBytes(256 * MiB)
                .streamThreads(8)
                .replicas(1)
                .partitions(8)
                .stores(new StoreCounts(40, 0, 0))
                .build();
        AllocationResult result = engine.allocate(facts);
        assertThat(result.ok()).isFalse();
        assertThat(result.allocation()).isNull();
        assertThat(result.errors()).singleElement().satisfies(e -> {
            assertThat(e.code()).isEqualTo("JvmOverheadExceedsMemory");
            assertThat(e.message())
                    .contains("the JVM alone needs", "but the pod has 256 MiB", "raise memory to at least");
        });
        long minimum = result.minimumMemoryBytes();
        assertThat(engine.allocate(facts.toBuilder().memoryBytes(minimum).build())
                        .ok())
                .isTrue();
        assertThat(engine.allocate(facts.toBuilder().memoryBytes(minimum - MiB).build())
                        .ok())
                .isFalse();
    }

    @Test
    void manyThreadsInASmallPodFailOnClientBuffers() {
        AllocationResult result = engine.allocate(WorkloadFacts.builder()
                .memoryBytes(1 * GiB)
                .streamThreads(48)
                .tasksPerPod(48)
                .build());
        assertThat(result.errors()).singleElement().satisfies(e -> {
            assertThat(e.code()).isEqualTo("ClientBuffersTooSmall");
            assertThat(e.message())
                    .startsWith("48 threads x (1 producer buffer + 2 consumer fetch buffers")
                    .contains("lower the threads or raise memory to at least");
        });
    }

    /**
     * Issue 14's pod (512 MiB when stacks were budgeted at their full 1 MiB; 39 MiB less since they are budgeted at
     * what they hold resident) at the edge: the producer buffers hold their floor and the fetch buffers share the rest.
     */
    @Test
    void atTheEdgeEachClientBufferKeepsItsOwnFloor() {
        WorkloadFacts edge =
                realisticPod(pod -> pod.memoryBytes(473 * MiB).replicas(1).partitions(16));
        Allocation a = engine.allocate(edge).allocation();
        assertThat(a.streamsConfig())
                .containsEntry("producer.buffer.memory", Long.toString(MiB))
                // (37 MiB client I/O - 16 MiB direct base - 4 producers x 1 MiB) / (8 consumers + 4 read copies)
                .containsEntry("main.consumer.fetch.max.bytes", Long.toString(17 * MiB / 12 / 1024 * 1024));
        assertThat(a.part("client-buffers").reason())
                .contains("producer buffers at their 1 MiB floor, fetch buffers " + "given 2.8% of Kafka's default");

        AllocationResult refused =
                engine.allocate(edge.toBuilder().memoryBytes(431 * MiB).build());
        assertThat(refused.minimumMemoryBytes()).isEqualTo(446 * MiB);
        assertThat(refused.errors()).singleElement().satisfies(e -> {
            assertThat(e.code()).isEqualTo("ClientBuffersTooSmall");
            // 4 producers + 8 consumers + 4 direct read copies at 1 MiB, + 16 MiB: 32 MiB, of 20% of 145 MiB.
            assertThat(e.neededBytes()).isEqualTo(32 * MiB);
            assertThat(e.availableBytes()).isEqualTo(29 * MiB);
            assertThat(e.message()).contains("needs 32 MiB but has 29 MiB", "raise memory to at least 446 MiB");
        });
    }

    @Test
    void heapOverrideFixesXmxAndGivesRocksDbTheRest() {
        Allocation a = engine.allocate(realisticPod(pod -> pod.overrides(Overrides.NONE.withHeapBytes(768 * MiB))))
                .allocation();
        assertThat(a.part("heap").bytes()).isLessThanOrEqualTo(768 * MiB).isGreaterThan(767 * MiB);
        assertThat(a.part("rocksdb").bytes()).isGreaterThan(505 * MiB);
    }

    @Test
    void heapOverrideLargerThanThePodIsAnError() {
        AllocationResult result =
                engine.allocate(realisticPod(pod -> pod.overrides(Overrides.NONE.withHeapBytes(4 * GiB))));
        assertThat(result.errors())
                .singleElement()
                .extracting(AllocationError::code)
                .isEqualTo("HeapOverrideTooLarge");
    }

    @Test
    void aServiceLoadingMoreClassesGetsALargerMetaspaceAndExtraDirectMemoryRaisesTheDirectCap() {
        Allocation standard = engine.allocate(realisticPod()).allocation();
        // A Spring Boot service loading 25,000 classes: ceil((25000 x 5800 + 14,000,000) / MiB) = ceil(151.6) = 152 MiB
        Allocation spring = engine.allocate(
                        realisticPod(pod -> pod.loadedClasses(25_000).extraDirectMemoryBytes(64 * MiB + 1)))
                .allocation();
        assertThat(spring.part("jvm-metaspace").bytes()).isEqualTo(152 * MiB);
        assertThat(spring.jvmOptions()).contains("-XX:MaxMetaspaceSize=152m");
        // 55 MiB more metaspace and 65 MiB (64 MiB + 1 B, rounded up) of extra direct memory leave a pool of
        // 1618 - 55 - 65 = 1498 MiB: client I/O = min(1498 x 20%, 744) = 299 MiB, so the clients' direct copies shrink.
        long clientHeap = spring.part("client-buffers").bytes();
        assertThat(spring.part("jvm-direct-memory").bytes()).isEqualTo(299 * MiB - clientHeap + 65 * MiB);
        assertThat(spring.part("jvm-direct-memory").reason()).contains("+ 65 MiB the application's own libraries use");
        assertThat(spring.part("heap").bytes()).isLessThan(standard.part("heap").bytes());
        assertThat(spring.part("rocksdb").bytes())
                .isLessThan(standard.part("rocksdb").bytes());
        assertThat(spring.parts().stream().mapToLong(Part::bytes).sum()).isEqualTo(2 * GiB);
    }

    @Test
    void transactionalStateStoresGetTheirUncommittedWritesOnTheHeapAndInRocksDbWriteBatches() {
        Allocation plain = engine.allocate(realisticPod()).allocation();
        Allocation a = engine.allocate(realisticPod(pod -> pod.transactionalStateStores(true)))
                .allocation();
        // Per counted byte of 1 KiB writes: heap (1024 + 112) / 1024 = 1.109375, WriteBatch 2 x (1024 + 12) / 1024 =
        // 2.0234375, together 3.1328125. Kafka's 64 MiB would take ceil(200.5) = 201 MiB; the share is
        // min(10% of the 1295 MiB client I/O leaves, 201) = 129 MiB: statestore.uncommitted.max.bytes =
        // floor(129 MiB / 3.1328125) = 43177274 (10.3 MiB per stream thread), heap copy ceil(43177274 x 1.109375).
        assertThat(a.streamsConfig()).containsEntry("statestore.uncommitted.max.bytes", "43177274");
        long heapCopy = (long) Math.ceil(43177274 * 1.109375);
        assertThat(a.part("uncommitted-writes").bytes()).isEqualTo(heapCopy);
        assertThat(a.part("uncommitted-write-batches").bytes()).isEqualTo(129 * MiB - heapCopy);
        // RocksDB = floor((1295 - 129) x 0.4) = 466 MiB; heap = client heap + 700 MiB + the heap copy.
        assertThat(a.part("rocksdb").bytes()).isEqualTo(466 * MiB);
        assertThat(a.part("heap").bytes())
                .isEqualTo(plain.part("client-buffers").bytes() + 700 * MiB + heapCopy);
        assertThat(a.parts().stream().mapToLong(Part::bytes).sum()).isEqualTo(2 * GiB);
        assertThat(a.part("heap").bytes()).isLessThan(plain.part("heap").bytes());
        assertThat(plain.streamsConfig()).doesNotContainKey("statestore.uncommitted.max.bytes");
        // Before Kafka Streams 4.4 there is no such feature to plan for.
        assertThatThrownBy(() -> engine.allocate(
                        realisticPod(pod -> pod.transactionalStateStores(true).kafkaStreamsVersion("4.3"))))
                .hasMessageContaining("needs Kafka Streams 4.4 or later");
    }

    @Test
    void uncommittedWritesBelowAMebibytePerThreadAreAnErrorWithTheLeastMemoryThatFits() {
        // 602 MiB leave 251 MiB after client I/O: 10% = 25 MiB hold 7.98 MiB of uncommitted writes, under 8 x 1 MiB.
        WorkloadFacts facts = WorkloadFacts.builder()
                .memoryBytes(602 * MiB)
                .streamThreads(8)
                .tasksPerPod(8)
                .stores(new StoreCounts(1, 0, 0))
                .transactionalStateStores(true)
                .build();
        AllocationResult result = engine.allocate(facts);
        assertThat(result.ok()).isFalse();
        assertThat(result.errors()).singleElement().satisfies(error -> {
            assertThat(error.code()).isEqualTo("UncommittedWritesTooSmall");
            assertThat(error.message())
                    .contains(
                            "8 stream threads",
                            "statestore.uncommitted.max.bytes",
                            "of what client I/O leaves (251 MiB) is 25 MiB",
                            "each instance needs 8 MiB but has 7.98 MiB",
                            "raise memory to at least 613 MiB");
            assertThat(error.neededBytes()).isEqualTo(8 * MiB);
        });
        assertThat(engine.allocate(facts.toBuilder()
                                .memoryBytes(result.minimumMemoryBytes())
                                .build())
                        .ok())
                .isTrue();
    }

    @Test
    void invalidFactsAreRejectedNamingTheField() {
        assertThatThrownBy(() -> engine.allocate(realisticPod(pod -> pod.loadedClasses(10))))
                .hasMessageContaining("loadedClasses must be between 1000 and 1000000");
        assertThatThrownBy(() -> engine.allocate(realisticPod(pod -> pod.extraDirectMemoryBytes(-1))))
                .hasMessageContaining("extraDirectMemory must not be negative");
        assertThatThrownBy(() -> engine.allocate(realisticPod(pod -> pod.streamThreads(0))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("threads must be at least 1");
        assertThatThrownBy(() ->
                        engine.allocate(realisticPod(pod -> pod.overrides(Overrides.NONE.withRocksDbFraction(1.5)))))
                .hasMessageContaining("rocksDbFraction must be between");
    }

    @Test
    void strictLimitAndRatioOverridesReachTheSettings() {
        RocksDbSettings s = engine.allocate(realisticPod(pod ->
                        pod.overrides(Overrides.NONE.withStrictCacheLimit(true).withHighPriorityPoolRatio(0.3))))
                .allocation()
                .rocksDb();
        assertThat(s.strictCapacityLimit()).isTrue();
        assertThat(s.highPriorityPoolRatio()).isEqualTo(0.3);
    }

    /** 2 GiB, 4 threads, 24 partitions, 2 key-value stores, 1 standby, running 4 of a replica range [2, 6]. */
    private static WorkloadFacts rangedPod(int replicas) {
        return WorkloadFacts.builder()
                .memoryBytes(2 * GiB)
                .streamThreads(4)
                .replicas(replicas)
                .partitions(24)
                .stores(new StoreCounts(2, 0, 0))
                .standbyReplicas(1)
                .replicaRange(new ReplicaRange(2, 6))
                .build();
    }

    @Test
    void replicaRangeSizesRocksDbForItsBusiestPodWhileOnePodOfTheFewestRestarts() {
        Allocation a = engine.allocate(rangedPod(4)).allocation();

        // Now, at 4 replicas: 24/4 = 6 active + 24x1/4 = 6 standby tasks x 2 stores = 24 instances.
        assertThat(a.topology().activeTasksPerPod()).isEqualTo(6);
        assertThat(a.topology().standbyTasksPerPod()).isEqualTo(6);
        assertThat(a.topology().rocksDbInstances()).isEqualTo(24);
        // Planned for 1 to 6 replicas (2 - 1 while a pod of the fewest restarts): 1 pod holds all 24 active tasks and
        // no standby (48 instances); 2 pods hold 12 + 12 (also 48); the tie goes to the most active tasks: 1 pod.
        assertThat(a.plannedTopology().activeTasksPerPod()).isEqualTo(24);
        assertThat(a.plannedTopology().standbyTasksPerPod()).isZero();
        assertThat(a.plannedTopology().rocksDbInstances()).isEqualTo(48);
        // RocksDB = 518 MiB as in realisticPod (same memory and threads); 48 x 320 KiB = 15 MiB native overhead
        assertThat(a.part("rocksdb").bytes()).isEqualTo(518 * MiB);
        assertThat(a.part("rocksdb-native-overhead").bytes()).isEqualTo(15 * MiB);
        assertThat(a.rocksDb().blockCacheCapacityBytes()).isEqualTo(503 * MiB);
        // arena block = (503 MiB / 3) / 4 / (48 instances x 3 column families x 2 memtables) = 152,600 B, down to a
        // 4 KiB step: 148 KiB
        assertThat(a.rocksDb().arenaBlockSizeBytes()).isEqualTo(148 * ByteSize.KiB);
        assertThat(a.part("rocksdb").reason())
                .contains("48 instances (24 active + 0 standby tasks x 2 per task: "
                        + "the busiest pod at 1 to 6 replicas");
        // Input buffers follow the current count: 1000 records x 6 partitions x 1 KiB.
        assertThat(a.part("input-buffers").bytes()).isEqualTo(6_144_000L);
        assertThat(a.parts().stream().mapToLong(Part::bytes).sum()).isEqualTo(2 * GiB);

        // Scaling to either end of the range keeps every setting read at start.
        for (int replicas : new int[] {2, 6}) {
            Allocation scaled = engine.allocate(rangedPod(replicas)).allocation();
            assertThat(scaled.restartHash()).as("replicas %d", replicas).isEqualTo(a.restartHash());
            assertThat(scaled.rocksDb()).isEqualTo(a.rocksDb());
            assertThat(scaled.jvmOptions()).isEqualTo(a.jvmOptions());
        }
        // Without the range the same pod plans for its 24 instances only: 518 MiB - 24 x 320 KiB of cache.
        Allocation unranged = engine.allocate(
                        rangedPod(4).toBuilder().replicaRange(null).build())
                .allocation();
        assertThat(unranged.plannedTopology()).isEqualTo(unranged.topology());
        assertThat(unranged.rocksDb().blockCacheCapacityBytes()).isEqualTo(518 * MiB - 24 * 320 * ByteSize.KiB);
        assertThat(unranged.restartHash()).isNotEqualTo(a.restartHash());
    }

    @Test
    void withoutARangeThePlanIsTheCurrentTopology() {
        Allocation a = engine.allocate(realisticPod()).allocation();
        assertThat(a.facts().replicaRange()).isNull();
        assertThat(a.facts().plannedRange()).isEqualTo(ReplicaRange.exactly(3));
        assertThat(a.plannedTopology()).isEqualTo(a.topology());
    }

    @Test
    void aReplicaRangeMustBeOrderedAndPositive() {
        for (ReplicaRange bad : new ReplicaRange[] {new ReplicaRange(0, 3), new ReplicaRange(4, 3)}) {
            assertThat(realisticPod(pod -> pod.replicaRange(bad)).validate())
                    .singleElement()
                    .asString()
                    .startsWith("replicaRange must satisfy 1 <= min <= max");
        }
        // Running outside the range is the operator's to report: the engine plans anyway.
        assertThat(realisticPod(pod -> pod.replicaRange(new ReplicaRange(5, 8))).validate())
                .isEmpty();
    }

    /**
     * Found by moreMemoryNeverShrinksAnyPart: 1,004 partitions on one pod make a round of buffered input records
     * (one per partition) about 1 MiB, and a part of whole rounds jumped by that much, taking it from the
     * application. Each MiB more must leave every heap part where it was or larger.
     */
    @Test
    void aLargeRoundOfInputRecordsNeverTakesFromTheApplication() {
        WorkloadFacts facts = WorkloadFacts.builder()
                .memoryBytes(11_195_645_952L)
                .streamThreads(1)
                .partitions(1004)
                .stores(new StoreCounts(4, 0, 1))
                .build();
        Allocation previous = engine.allocate(facts).allocation();
        for (int mib = 1; mib <= 256; mib++) {
            Allocation next = engine.allocate(facts.toBuilder()
                            .memoryBytes(facts.memoryBytes() + mib * MiB)
                            .build())
                    .allocation();
            for (String part :
                    List.of("application", "input-buffers", "record-cache", "record-cache-overhead", "heap")) {
                assertThat(next.part(part).bytes())
                        .as("%s at +%d MiB", part, mib)
                        .isGreaterThanOrEqualTo(previous.part(part).bytes());
            }
            previous = next;
        }
    }
    /**
     * Found by {@code moreMemoryNeverShrinksAnyPart} (seed -4949101430410923275): with a 0.35 record cache the client
     * buffers and the heap's data part grew alike, and the rule that the application keep half of the whole heap flipped
     * between fitting and not with every MiB. Measured against what the client buffers leave, once a pod fits every
     * larger pod does, and no part shrinks.
     */
    @Test
    void oncePodFitsEveryLargerPodFits() {
        WorkloadFacts facts = WorkloadFacts.builder()
                .memoryBytes(37_559_992_320L)
                .streamThreads(8)
                .instancesPerPod(5)
                .replicas(6)
                .partitions(211)
                .globalStores(1)
                .recordBytes(1024)
                .loadedClasses(1000)
                .overrides(Overrides.NONE.withRecordCacheFraction(0.35))
                .build();
        Allocation previous = engine.allocate(facts).allocation();
        for (int mib = 1; mib <= 512; mib++) {
            AllocationResult next = engine.allocate(facts.toBuilder()
                    .memoryBytes(facts.memoryBytes() + mib * MiB)
                    .build());
            assertThat(next.ok()).as("fits at +%d MiB", mib).isTrue();
            for (String part :
                    List.of("application", "input-buffers", "record-cache", "record-cache-overhead", "heap")) {
                assertThat(next.allocation().part(part).bytes())
                        .as("%s at +%d MiB", part, mib)
                        .isGreaterThanOrEqualTo(previous.part(part).bytes());
            }
            previous = next.allocation();
        }
    }
}
