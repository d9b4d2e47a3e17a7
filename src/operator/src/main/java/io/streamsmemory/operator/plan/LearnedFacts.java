package io.streamsmemory.operator.plan;

import static io.streamsmemory.operator.plan.LearnedAnnotation.APPLICATION_RECORD_CACHE_KIB;
import static io.streamsmemory.operator.plan.LearnedAnnotation.CODE_CACHE_PEAK_KIB;
import static io.streamsmemory.operator.plan.LearnedAnnotation.DIRECT_PEAK_KIB;
import static io.streamsmemory.operator.plan.LearnedAnnotation.HEADROOM_PEAK_KIB;
import static io.streamsmemory.operator.plan.LearnedAnnotation.IN_MEMORY_STATE_KIB;
import static io.streamsmemory.operator.plan.LearnedAnnotation.KAFKA_STREAMS_VERSION;
import static io.streamsmemory.operator.plan.LearnedAnnotation.LIVE_THREADS;
import static io.streamsmemory.operator.plan.LearnedAnnotation.LOADED_CLASSES;
import static io.streamsmemory.operator.plan.LearnedAnnotation.METASPACE_PEAK_KIB;
import static io.streamsmemory.operator.plan.LearnedAnnotation.ROCKSDB_PER_TASK;
import static io.streamsmemory.operator.plan.LearnedAnnotation.liftedKey;

import io.streamsmemory.engine.ByteSize;
import io.streamsmemory.engine.JvmCap;
import io.streamsmemory.engine.MemoryModel;
import io.streamsmemory.engine.ObservedJvm;
import io.streamsmemory.engine.StoreCounts;
import io.streamsmemory.engine.WorkloadFacts;
import io.streamsmemory.operator.api.JvmSizing;
import io.streamsmemory.operator.api.JvmSpec;
import io.streamsmemory.operator.api.StoresSpec;
import io.streamsmemory.operator.api.StreamsSpec;
import io.streamsmemory.operator.observe.AgentReport;
import io.streamsmemory.operator.observe.JvmCapsUse;
import io.streamsmemory.operator.observe.ObservedTopology;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The topology facts of one workload, each from the first that has it: the policy (or the workload's stream-threads
 * annotation), what the workload's pods reported over the observation window, or a provisional default until they
 * report. A declared fact always wins, so a user who knows the topology keeps full control; the defaults err towards
 * more of what costs memory (tasks, RocksDB instances) so the first plan leaves room rather than takes it.
 *
 * <p>Each fact is resolved by a step of its own ({@link #apply} lists them). What was learned is kept for the
 * published ConfigMap's annotation ({@link LearnedAnnotation}), with the JVM caps' way back ({@link LearnedCaps}).
 */
public final class LearnedFacts {
    /** Where a fact's value came from. */
    public enum Source {
        Declared,
        Observed,
        Default,
        /** The model's JVM caps, back after a pod used 90% of a learned one (spec.jvm.sizing: Observed). */
        Restored,
        /** A JVM cap left unset for good (until the policy changes): a JVM hit it, or used 90% of a learned one. */
        Lifted
    }

    /** One fact as the status shows it. */
    public record Fact(String name, String value, Source source) {}

    /** Kafka's num.stream.threads default, and one KafkaStreams per JVM as nearly every application runs. */
    static final int DEFAULT_THREADS = 1;

    static final int DEFAULT_INSTANCES_PER_POD = 1;
    /** Tasks a pod is planned for before it reports: input buffers and RocksDB instances are reserved for them. */
    static final int DEFAULT_TASKS_PER_POD = 8;
    /** Key-value stores (RocksDB instances) per task before the pods report: an aggregation and a join, say. */
    static final int DEFAULT_ROCKSDB_INSTANCES_PER_TASK = 2;
    /**
     * Headroom over the classes a pod was seen to load: classes loaded late (an error path, a rebalance) and the
     * hidden classes the JVM's count leaves out. The learned count never goes below the engine's default, so learning
     * only ever raises the metaspace cap: a lower cap is the Observed sizing's to take, with its own safety.
     */
    static final double CLASSES_MARGIN = 1.25;

    /** Margin over the most in-memory state a pod was seen to hold: it grows with the data between reports. */
    static final double IN_MEMORY_STATE_MARGIN = 1.25;
    /** In-memory state is learned in steps of this many MiB, so that a growing store does not re-plan at every report. */
    static final long IN_MEMORY_STATE_STEP_MIB = 16;
    /** A settled pod's headroom peak is learned in steps of this many MiB. */
    static final long HEADROOM_PEAK_STEP_MIB = 16;
    /** A direct memory peak is learned in steps of this many MiB. */
    static final long DIRECT_PEAK_STEP_MIB = 4;
    /** The status fact of the heap's in-memory state. */
    private static final String IN_MEMORY_STATE = "inMemoryState";
    /** The status fact of the record cache the application sets itself. */
    private static final String APPLICATION_RECORD_CACHE = "applicationRecordCache";
    /** The status fact that tells where the JVM caps come from (spec.jvm.sizing: Observed). */
    private static final String JVM_CAPS = "jvmCaps";

    private final List<Fact> facts = new ArrayList<>();
    private final EnumSet<JvmCap> awaitingReport = EnumSet.noneOf(JvmCap.class);
    private final EnumSet<JvmCap> lifted = EnumSet.noneOf(JvmCap.class);
    /** The learned values the plan used, by fact: published with it, the floor of the next plan. */
    private final Map<String, Integer> learned = new LinkedHashMap<>();

    private final Map<String, Integer> before;

    private LearnedFacts(Map<String, Integer> before) {
        this.before = before;
    }

    /**
     * Fills the builder's topology facts and says where each came from.
     *
     * @param threadsAnnotation the workload's stream-threads annotation, already checked, or empty
     * @param before            what the published plan had learned ({@link LearnedAnnotation#parse}): a learned fact never falls
     *                          below it, so an operator restarted with an empty observation window (or a pod
     *                          reporting fewer tasks during a rebalance) plans what it planned before, and no
     *                          workload is rolled for it
     */
    public static LearnedFacts apply(
            StreamsSpec declared,
            JvmSpec jvm,
            Optional<Integer> threadsAnnotation,
            Optional<ObservedTopology> seen,
            Map<String, Integer> before,
            WorkloadFacts.Builder builder) {
        StreamsSpec streams = declared == null ? new StreamsSpec() : declared;
        ObservedTopology observed = seen.orElse(ObservedTopology.NONE);
        LearnedFacts learned = new LearnedFacts(before);
        learned.threads(streams, threadsAnnotation, observed, builder);
        learned.partitions(streams, observed, builder);
        learned.standbys(streams, observed, builder);
        learned.kafkaStreamsVersion(streams, observed, builder);
        learned.inMemoryState(streams, observed, builder);
        learned.applicationRecordCache(streams, observed, builder);
        learned.stores(streams.getStores(), observed, builder);
        learned.metaspace(jvm, observed, builder);
        learned.directMemory(jvm, observed.jvmCaps(), builder);
        builder.uncappedJvmCaps(learned.uncapped());
        return learned;
    }

    /** KafkaStreams instances per JVM, and num.stream.threads of each. */
    private void threads(
            StreamsSpec streams,
            Optional<Integer> threadsAnnotation,
            ObservedTopology observed,
            WorkloadFacts.Builder builder) {
        int instances = pick(
                "instancesPerPod",
                Optional.ofNullable(streams.getInstancesPerPod()),
                positive(observed.instancesPerPod()),
                DEFAULT_INSTANCES_PER_POD);
        builder.instancesPerPod(instances);

        Optional<Integer> threadsDeclared = threadsAnnotation.or(() -> Optional.ofNullable(streams.getThreads()));
        // The report counts the threads of every instance of the JVM; the fact is num.stream.threads of one.
        Optional<Integer> threadsSeen = positive(observed.streamThreads()).map(t -> (t + instances - 1) / instances);
        builder.streamThreads(pick("threads", threadsDeclared, threadsSeen, DEFAULT_THREADS));
    }

    /** The application's partitions, or the tasks a pod runs. */
    private void partitions(StreamsSpec streams, ObservedTopology observed, WorkloadFacts.Builder builder) {
        if (streams.getPartitions() != null) {
            builder.partitions(declared("partitions", streams.getPartitions()));
        } else if (streams.getTasksPerPod() != null) {
            builder.tasksPerPod(declared("tasksPerPod", streams.getTasksPerPod()));
        } else {
            // Every pod's active tasks together are the application's partitions: planned over replicas as declared.
            atLeastBefore("partitions", positive(observed.activeTasks()))
                    .ifPresentOrElse(
                            partitions -> builder.partitions(observed("partitions", partitions)),
                            () -> builder.tasksPerPod(byDefault("tasksPerPod", DEFAULT_TASKS_PER_POD)));
        }
    }

    /** Standby replicas: declared, or the standby tasks a pod runs per active one. */
    private void standbys(StreamsSpec streams, ObservedTopology observed, WorkloadFacts.Builder builder) {
        Optional<Integer> standbysSeen = positive(observed.activeTasks())
                .map(active -> (int) ((nonNegative(observed.standbyTasks()) + active - 1) / active));
        builder.standbyReplicas(
                pick("standbyReplicas", Optional.ofNullable(streams.getStandbyReplicas()), standbysSeen, 0));
    }

    /**
     * The application's Kafka Streams version (the record cache's key, and which features it has): declared, else the
     * oldest a pod ran over the window, else what the published plan learned. Not a floor, as the counts are: an
     * upgrade moves it up and a rollback down. Without any, the engine's default and no fact row: the version changes
     * no byte of the plan, so it is never what makes one provisional.
     */
    private void kafkaStreamsVersion(StreamsSpec streams, ObservedTopology observed, WorkloadFacts.Builder builder) {
        if (streams.getKafkaStreamsVersion() != null) {
            builder.kafkaStreamsVersion(streams.getKafkaStreamsVersion());
            facts.add(new Fact(KAFKA_STREAMS_VERSION, streams.getKafkaStreamsVersion(), Source.Declared));
            return;
        }
        Optional.ofNullable(observed.kafkaStreamsVersion())
                .or(() -> LearnedAnnotation.version(before))
                .ifPresent(version -> {
                    learned.put(KAFKA_STREAMS_VERSION, LearnedAnnotation.versionCode(version));
                    builder.kafkaStreamsVersion(version.toString());
                    facts.add(new Fact(KAFKA_STREAMS_VERSION, version.toString(), Source.Observed));
                });
    }

    /**
     * The heap the topology's in-memory stores and suppression buffers hold: declared, else the most a pod held over
     * the window with {@link #IN_MEMORY_STATE_MARGIN}, in {@link #IN_MEMORY_STATE_STEP_MIB} MiB steps and never below
     * what the published plan learned (as the counts are); no fact without either, as the plan then has no such part.
     */
    private void inMemoryState(StreamsSpec streams, ObservedTopology observed, WorkloadFacts.Builder builder) {
        if (streams.getInMemoryState() != null) {
            long bytes = WorkloadPlanner.quantity("spec.streams.inMemoryState", streams.getInMemoryState());
            builder.inMemoryStateBytes(bytes);
            facts.add(new Fact(IN_MEMORY_STATE, ByteSize.format(bytes), Source.Declared));
            return;
        }
        atLeastBefore(
                        IN_MEMORY_STATE_KIB,
                        Optional.ofNullable(observed.inMemoryStateBytes())
                                .filter(bytes -> bytes > 0)
                                .map(bytes ->
                                        steppedKiB((long) (bytes * IN_MEMORY_STATE_MARGIN), IN_MEMORY_STATE_STEP_MIB)))
                .ifPresent(kib -> {
                    learned.put(IN_MEMORY_STATE_KIB, kib);
                    builder.inMemoryStateBytes(kib * 1024L);
                    facts.add(new Fact(IN_MEMORY_STATE, ByteSize.format(kib * 1024L), Source.Observed));
                });
    }

    /**
     * The record cache the application sets itself, which the agent keeps when it is the smaller (the plan then holds
     * heap for that cache only and gives RocksDB the rest): declared, else the largest any pod's application set over
     * the window, never below what the published plan learned; none once a pod's application sets none, since the
     * plan's cache then runs in it and the heap must hold it.
     */
    private void applicationRecordCache(StreamsSpec streams, ObservedTopology observed, WorkloadFacts.Builder builder) {
        if (streams.getRecordCache() != null) {
            long bytes = WorkloadPlanner.quantity("spec.streams.recordCache", streams.getRecordCache());
            builder.applicationRecordCacheBytes(bytes);
            facts.add(new Fact(APPLICATION_RECORD_CACHE, ByteSize.format(bytes), Source.Declared));
            return;
        }
        Long seen = observed.applicationRecordCacheBytes();
        if (seen != null && seen == AgentReport.RECORD_CACHE_LEFT_TO_PLAN) {
            return;
        }
        // In KiB rounded up: the plan's value is then never below the application's, so the agent keeps the latter.
        atLeastBefore(APPLICATION_RECORD_CACHE_KIB, Optional.ofNullable(seen).map(bytes ->
                        (int) Math.min(Integer.MAX_VALUE, (bytes + 1023) / 1024)))
                .ifPresent(kib -> {
                    learned.put(APPLICATION_RECORD_CACHE_KIB, kib);
                    builder.applicationRecordCacheBytes(kib * 1024L);
                    facts.add(new Fact(APPLICATION_RECORD_CACHE, ByteSize.format(kib * 1024L), Source.Observed));
                });
    }

    /** The state stores: declared by kind, or the RocksDB instances a task opens, each as a key-value store. */
    private void stores(StoresSpec stores, ObservedTopology observed, WorkloadFacts.Builder builder) {
        if (stores != null) {
            StoreCounts counts = new StoreCounts(
                    orZero(stores.getKeyValue()), orZero(stores.getWindow()), orZero(stores.getSession()));
            builder.stores(counts);
            facts.add(new Fact("stores", describe(counts), Source.Declared));
            return;
        }
        // Zero RocksDB instances is not learned: a pod reports before its tasks open their stores.
        Optional<Integer> perTask = atLeastBefore(
                ROCKSDB_PER_TASK,
                positive(observed.tasksPerPod())
                        .flatMap(tasks -> positive(observed.rocksDbInstances())
                                .map(instancesSeen -> (instancesSeen + tasks - 1) / tasks)));
        perTask.ifPresent(value -> learned.put(ROCKSDB_PER_TASK, value));
        int rocksDbPerTask = perTask.orElse(DEFAULT_ROCKSDB_INSTANCES_PER_TASK);
        // What the pods show is RocksDB instances, not store kinds: each counts as one key-value store.
        builder.stores(new StoreCounts(rocksDbPerTask, 0, 0));
        facts.add(new Fact(
                "stores",
                rocksDbPerTask + " RocksDB instances per task",
                perTask.isPresent() ? Source.Observed : Source.Default));
    }

    /**
     * The loaded classes the metaspace is planned for and, with spec.jvm.sizing: Observed, the JVM's peaks; the
     * metaspace cap is known from a class count declared or seen, or (Observed sizing) from its own peak.
     */
    private void metaspace(JvmSpec jvm, ObservedTopology observed, WorkloadFacts.Builder builder) {
        Optional<Integer> classesSeen = positive(observed.loadedClasses())
                .map(loaded -> classesToPlan(loaded, observed.jvmCaps().metaspacePeakBytes()));
        Optional<Integer> classesDeclared = Optional.ofNullable(jvm == null ? null : jvm.getLoadedClasses());
        builder.loadedClasses(pick(LOADED_CLASSES, classesDeclared, classesSeen, MemoryModel.DEFAULT_LOADED_CLASSES));
        if (jvm != null && jvm.getSizing() == JvmSizing.Observed) {
            jvmCaps(observed.jvmCaps(), builder);
        }
        capUnlessUnknown(
                JvmCap.METASPACE, classesDeclared.isPresent() || has(LOADED_CLASSES) || has(METASPACE_PEAK_KIB));
    }

    /**
     * The direct memory cap: from spec.jvm.extraDirectMemory when declared (the planner set it), else from the most
     * direct memory a pod held once one reports it, else left unset until then.
     */
    private void directMemory(JvmSpec jvm, JvmCapsUse seen, WorkloadFacts.Builder builder) {
        boolean declared = jvm != null && jvm.getExtraDirectMemory() != null;
        Optional<Integer> peak = declared
                ? Optional.empty()
                : atLeastBefore(
                        DIRECT_PEAK_KIB,
                        Optional.ofNullable(seen.directPeakBytes())
                                .filter(bytes -> bytes >= 0)
                                .map(LearnedFacts::directPeakKiB));
        peak.ifPresent(kib -> {
            learned.put(DIRECT_PEAK_KIB, kib);
            builder.observedDirectMemoryBytes(kib * 1024L);
        });
        capUnlessUnknown(JvmCap.DIRECT_MEMORY, declared || peak.isPresent());
    }

    /**
     * A direct memory peak in KiB, rounded up to {@link #DIRECT_PEAK_STEP_MIB} MiB: the pool moves by small reads while
     * a JVM runs, and each new peak would be a new plan and a restart pending; a step holds them (as the class count's
     * thousands do).
     */
    static int directPeakKiB(long bytes) {
        return steppedKiB(bytes, DIRECT_PEAK_STEP_MIB);
    }

    /** A peak in KiB, rounded up to a whole number of {@code stepMiB} steps (at least one). */
    private static int steppedKiB(long bytes, long stepMiB) {
        long step = stepMiB << 20;
        long stepped = Math.max(1, (bytes + step - 1) / step) * step;
        return (int) Math.min(Integer.MAX_VALUE, stepped / 1024);
    }

    /**
     * Plans {@code cap} when the fact it depends on is {@code known} and no JVM hit it since the policy last changed;
     * otherwise the plan leaves it unset, and the status says which caps wait for a report and which were lifted.
     */
    private void capUnlessUnknown(JvmCap cap, boolean known) {
        Optional<Integer> liftedAt = LearnedCaps.liftedAt(before, cap);
        if (liftedAt.isPresent()) {
            learned.put(liftedKey(cap), liftedAt.get());
            lifted.add(cap);
            facts.add(new Fact(
                    capFact(cap),
                    "unset: a JVM of the workload hit the cap (see its JvmCapLifted Event); planned again once the "
                            + "policy changes",
                    Source.Lifted));
        } else if (!known) {
            awaitingReport.add(cap);
            facts.add(new Fact(capFact(cap), "unset until a pod reports its " + cap.fact(), Source.Default));
        }
    }

    /**
     * The class count to plan the metaspace cap for, from what a pod loaded and the most metaspace one held, each
     * with {@link #CLASSES_MARGIN}: the model's bytes per class are an average, and an application of larger classes
     * (generated code, big constant pools) would cross 90% of a cap planned from its count alone.
     */
    static int classesToPlan(long loaded, Long metaspacePeakBytes) {
        long byCount = (long) Math.ceil(loaded * CLASSES_MARGIN);
        long byBytes = metaspacePeakBytes == null
                ? 0
                : (long) Math.ceil((metaspacePeakBytes * CLASSES_MARGIN - MemoryModel.METASPACE_FIXED_BYTES)
                        / MemoryModel.METASPACE_BYTES_PER_CLASS);
        long classes = (Math.max(byCount, byBytes) + 999) / 1000 * 1000;
        return (int) Math.min(MemoryModel.MAX_LOADED_CLASSES, Math.max(MemoryModel.DEFAULT_LOADED_CLASSES, classes));
    }

    /** The status fact that tells where a cap stands: metaspaceCap, directMemoryCap. */
    static String capFact(JvmCap cap) {
        return cap == JvmCap.METASPACE ? "metaspaceCap" : "directMemoryCap";
    }

    private boolean has(String name) {
        return learned.containsKey(name);
    }

    private EnumSet<JvmCap> uncapped() {
        EnumSet<JvmCap> uncapped = EnumSet.copyOf(awaitingReport);
        uncapped.addAll(lifted);
        return uncapped;
    }

    /** The caps this plan leaves unset until a pod reports the fact each depends on. */
    public List<JvmCap> awaitingReport() {
        return List.copyOf(awaitingReport);
    }

    /** The caps this plan leaves unset because a JVM hit them ({@link #lift}). */
    public List<JvmCap> lifted() {
        return List.copyOf(lifted);
    }

    /**
     * spec.jvm.sizing: Observed: the JVM's peaks for the engine to size the caps from, once every pod figure is known;
     * the model's caps until then, and for good once a pod crossed 90% of a learned cap ({@link LearnedCaps#restored}).
     */
    private void jvmCaps(JvmCapsUse seen, WorkloadFacts.Builder builder) {
        if (LearnedCaps.restoredIn(before).isPresent()) {
            for (String key : LearnedCaps.RESTORE_KEYS) {
                Optional.ofNullable(before.get(key)).ifPresent(value -> learned.put(key, value));
            }
            facts.add(new Fact(
                    JVM_CAPS,
                    "the model's: a pod used " + MemoryModel.LEARNED_CAP_PRESSURE_PERCENT + "% of a learned cap",
                    Source.Restored));
            return;
        }
        Optional<Integer> metaspace = atLeastBefore(METASPACE_PEAK_KIB, kib(seen.metaspacePeakBytes()));
        Optional<Integer> codeCache = atLeastBefore(CODE_CACHE_PEAK_KIB, kib(seen.codeCachePeakBytes()));
        Optional<Integer> threads = atLeastBefore(LIVE_THREADS, positive(seen.liveThreads()));
        if (metaspace.isEmpty() || codeCache.isEmpty() || threads.isEmpty()) {
            facts.add(new Fact(JVM_CAPS, "the model's until a pod reports", Source.Default));
            return;
        }
        learned.put(METASPACE_PEAK_KIB, metaspace.get());
        learned.put(CODE_CACHE_PEAK_KIB, codeCache.get());
        learned.put(LIVE_THREADS, threads.get());
        // The headroom's figure comes later (from pods that ran the settle time); until then the model's headroom.
        Optional<Integer> headroom = atLeastBefore(
                HEADROOM_PEAK_KIB,
                Optional.ofNullable(seen.headroomPeakBytes())
                        .filter(bytes -> bytes > 0)
                        .map(bytes -> steppedKiB(bytes, HEADROOM_PEAK_STEP_MIB)));
        headroom.ifPresent(kib -> learned.put(HEADROOM_PEAK_KIB, kib));
        builder.observedJvm(new ObservedJvm(
                metaspace.get() * 1024L,
                codeCache.get() * 1024L,
                threads.get(),
                headroom.map(kib -> kib * 1024L).orElse(0L)));
        facts.add(new Fact(
                JVM_CAPS,
                String.format(
                        Locale.ROOT,
                        "learned from peaks: metaspace %s, code cache %s, %d threads, %s",
                        ByteSize.format(metaspace.get() * 1024L),
                        ByteSize.format(codeCache.get() * 1024L),
                        threads.get(),
                        headroom.map(kib -> ByteSize.format(kib * 1024L) + " held beyond the bounded parts")
                                .orElse("the model's headroom until a pod has run the settle time")),
                Source.Observed));
    }

    /** A byte figure in whole KiB, rounded up, for the annotation's int values. */
    private static Optional<Integer> kib(Long bytes) {
        return positive(bytes == null ? null : (bytes + 1023) / 1024);
    }

    public List<Fact> facts() {
        return List.copyOf(facts);
    }

    /** The facts still on a provisional default, by name; empty once every fact is declared or observed. */
    public List<String> provisional() {
        return facts.stream()
                .filter(f -> f.source() == Source.Default)
                .map(Fact::name)
                .toList();
    }

    /** The learned values, as the published ConfigMap's annotation keeps them ({@link LearnedAnnotation}). */
    public String annotation() {
        return LearnedAnnotation.format(learned);
    }

    private int pick(String name, Optional<Integer> declared, Optional<Integer> observed, int fallback) {
        if (declared.isPresent()) {
            return declared(name, declared.get());
        }
        return atLeastBefore(name, observed)
                .map(value -> observed(name, value))
                .orElseGet(() -> byDefault(name, fallback));
    }

    /** The larger of what is seen now and what the published plan had learned. */
    private Optional<Integer> atLeastBefore(String name, Optional<Integer> seen) {
        Optional<Integer> earlier = Optional.ofNullable(before.get(name));
        return seen.map(value -> earlier.map(e -> Math.max(e, value)).orElse(value))
                .or(() -> earlier);
    }

    private int declared(String name, int value) {
        return add(name, value, Source.Declared);
    }

    private int observed(String name, int value) {
        learned.put(name, value);
        return add(name, value, Source.Observed);
    }

    private int byDefault(String name, int value) {
        return add(name, value, Source.Default);
    }

    private int add(String name, int value, Source source) {
        facts.add(new Fact(name, Integer.toString(value), source));
        return value;
    }

    private static String describe(StoreCounts counts) {
        return String.format(
                Locale.ROOT,
                "%d key-value, %d window, %d session",
                counts.keyValue(),
                counts.window(),
                counts.session());
    }

    /** A figure the pods reported above zero, as an int (a count beyond int is no pod's). */
    private static Optional<Integer> positive(Long value) {
        return value == null || value <= 0 ? Optional.empty() : Optional.of((int) Math.min(value, Integer.MAX_VALUE));
    }

    private static long nonNegative(Long value) {
        return value == null ? 0 : Math.max(0, value);
    }

    private static int orZero(Integer value) {
        return value == null ? 0 : value;
    }
}
