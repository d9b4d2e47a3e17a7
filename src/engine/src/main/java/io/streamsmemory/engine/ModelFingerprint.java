package io.streamsmemory.engine;

import static io.streamsmemory.engine.ByteSize.GiB;
import static io.streamsmemory.engine.ByteSize.MiB;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;

/**
 * Names this version of the model: a digest of the allocations it gives a few reference workloads, so any change of
 * a constant or of the formula that moves a number changes it, and nothing else does. The operator records it on
 * every allocation it publishes; a published allocation of another model whose facts are today's differs only by
 * the model (an upgrade of the operator), which need not roll the workload at once when the applied plan still fits.
 */
public final class ModelFingerprint {
    private static final List<WorkloadFacts> REFERENCES = List.of(
            WorkloadFacts.builder()
                    .memoryBytes(2 * GiB)
                    .streamThreads(4)
                    .replicas(3)
                    .partitions(24)
                    .stores(new StoreCounts(2, 1, 0))
                    .build(),
            WorkloadFacts.builder()
                    .memoryBytes(512 * MiB)
                    .streamThreads(1)
                    .tasksPerPod(4)
                    .stores(new StoreCounts(1, 0, 0))
                    .observedJvm(new ObservedJvm(40 * MiB, 20 * MiB, 45))
                    .build(),
            WorkloadFacts.builder()
                    .memoryBytes(8 * GiB)
                    .streamThreads(8)
                    .instancesPerPod(2)
                    .replicas(6)
                    .partitions(96)
                    .standbyReplicas(1)
                    .stores(new StoreCounts(1, 1, 1))
                    .globalStores(1)
                    .replicaRange(new ReplicaRange(3, 12))
                    .build());

    private static final String CURRENT = compute();

    private ModelFingerprint() {}

    /** This model's fingerprint: 12 hex digits. */
    public static String current() {
        return CURRENT;
    }

    private static String compute() {
        try {
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            AllocationEngine engine = new AllocationEngine();
            for (WorkloadFacts facts : REFERENCES) {
                digest.update(engine.allocate(facts).allocation().restartHash().getBytes(StandardCharsets.UTF_8));
            }
            return HexFormat.of().formatHex(digest.digest()).substring(0, 12);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JVM", e);
        }
    }
}
