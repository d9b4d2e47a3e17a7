package io.streamsmemory.plan;

import io.streamsmemory.engine.AllocationEngine;
import io.streamsmemory.engine.AllocationResult;
import io.streamsmemory.engine.ByteSize;
import io.streamsmemory.engine.KafkaStreamsVersion;
import io.streamsmemory.engine.MemoryModel;
import io.streamsmemory.engine.Overrides;
import io.streamsmemory.engine.ReplicaRange;
import io.streamsmemory.engine.StoreCounts;
import io.streamsmemory.engine.WorkloadFacts;
import io.streamsmemory.engine.json.AllocationJson;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code plan}: the engine's split for one pod, as a table or as the JSON the agent reads.
 * Exit codes: 0 planned, 1 malformed input (names the flag), 2 the input does not fit (the engine's message).
 */
@Command(
        name = "plan",
        mixinStandardHelpOptions = true,
        exitCodeOnInvalidInput = PlanCommand.MALFORMED,
        version = "streams-memory plan 0.1.0",
        description = "Splits a Kafka Streams pod's memory into heap, record cache, client buffers, RocksDB and JVM "
                + "overhead, and shows what Kafka's defaults would use instead.",
        sortOptions = false)
public final class PlanCommand implements Callable<Integer> {
    static final int MALFORMED = 1;
    static final int DOES_NOT_FIT = 2;

    enum Output {
        table,
        json
    }

    @Option(
            names = "--memory",
            required = true,
            converter = MemoryConverter.class,
            description = "Total memory of one pod (Kubernetes quantity: 512Mi, 2Gi, 1G).")
    long memory;

    @Option(
            names = "--threads",
            defaultValue = "1",
            description = "num.stream.threads of each KafkaStreams instance (default: ${DEFAULT-VALUE}).")
    int threads;

    @Option(
            names = "--instances",
            defaultValue = "1",
            description = "KafkaStreams instances in one pod's JVM; the "
                    + "record cache and client buffers are divided among them (default: ${DEFAULT-VALUE}).")
    int instances;

    @Option(names = "--replicas", defaultValue = "1", description = "Pods of the workload (default: ${DEFAULT-VALUE}).")
    int replicas;

    @Option(
            names = "--min-replicas",
            description = "The fewest pods the workload scales to (default: --replicas). "
                    + "With --min-replicas or --max-replicas the RocksDB settings and JVM flags hold for every count of the "
                    + "range, one pod of the fewest restarting included, so scaling inside it needs no restart.")
    Integer minReplicas;

    @Option(names = "--max-replicas", description = "The most pods the workload scales to (default: --replicas).")
    Integer maxReplicas;

    @ArgGroup(exclusive = true, multiplicity = "1")
    TaskCount tasks;

    static final class TaskCount {
        @Option(
                names = "--partitions",
                description = "Input partitions (tasks) of the whole application, spread over the replicas.")
        Integer partitions;

        @Option(names = "--tasks-per-pod", description = "Active tasks of one pod, instead of --partitions.")
        Integer tasksPerPod;
    }

    @Option(
            names = "--stores",
            converter = StoresConverter.class,
            defaultValue = "",
            description = "State stores per task: kv=N,window=N,session=N (default: none).")
    StoreCounts stores;

    @Option(
            names = "--standby-replicas",
            defaultValue = "0",
            description = "num.standby.replicas (default: ${DEFAULT-VALUE}).")
    int standbyReplicas;

    @Option(
            names = "--global-stores",
            defaultValue = "0",
            description = "Stores of global tables (default: ${DEFAULT-VALUE}).")
    int globalStores;

    @Option(
            names = "--record-bytes",
            converter = MemoryConverter.class,
            defaultValue = "1Ki",
            description = "Average in-memory size of one buffered input record (default: ${DEFAULT-VALUE}).")
    long recordBytes;

    @Option(
            names = "--loaded-classes",
            defaultValue = "" + MemoryModel.DEFAULT_LOADED_CLASSES,
            description = "Classes the application loads; sizes -XX:MaxMetaspaceSize. Read it from the running "
                    + "application: jcmd <pid> VM.metaspace, jstat -class <pid>, or the agent's report "
                    + "(default: ${DEFAULT-VALUE}).")
    int loadedClasses;

    @Option(
            names = "--extra-direct-memory",
            converter = MemoryConverter.class,
            defaultValue = "0",
            description = "Direct memory the application's own libraries use besides the Kafka clients (Netty, "
                    + "gRPC, a web server); added to -XX:MaxDirectMemorySize (default: ${DEFAULT-VALUE}).")
    long extraDirectMemory;

    @Option(
            names = "--transactional-state-stores",
            description = "The application sets "
                    + "enable.transactional.statestores=true (KIP-892, Kafka Streams 4.4): its uncommitted writes get a part "
                    + "and statestore.uncommitted.max.bytes a bound.")
    boolean transactionalStateStores;

    @Option(
            names = "--kafka-streams-version",
            defaultValue = KafkaStreamsVersion.DEFAULT,
            description = "Kafka Streams version of the application (default: ${DEFAULT-VALUE}).")
    String kafkaStreamsVersion;

    @Option(
            names = "--heap",
            converter = MemoryConverter.class,
            description = "Fix the JVM heap; RocksDB gets the rest.")
    Long heap;

    @Option(
            names = "--rocksdb-fraction",
            description = "Share of the pool for RocksDB (default: " + MemoryModel.ROCKSDB_FRACTION + ").")
    Double rocksDbFraction;

    @Option(
            names = "--record-cache-fraction",
            description = "Share of the heap's data part for the record cache " + "(default: "
                    + MemoryModel.RECORD_CACHE_FRACTION + ").")
    Double recordCacheFraction;

    @Option(
            names = "--write-buffer-fraction",
            description =
                    "Share of the block cache for memtables (default: 1/" + MemoryModel.WRITE_BUFFER_DIVISOR + ").")
    Double writeBufferFraction;

    @Option(
            names = "--strict-cache-limit",
            description = "Fail RocksDB inserts rather than overshoot the shared cache.")
    Boolean strictCacheLimit;

    @Option(
            names = "--high-priority-pool-ratio",
            description = "Share of the block cache kept for index and " + "filter blocks (default: "
                    + MemoryModel.HIGH_PRIORITY_POOL_RATIO + ").")
    Double highPriorityPoolRatio;

    @Option(
            names = {"-o", "--output"},
            defaultValue = "table",
            description = "table or json (default: ${DEFAULT-VALUE}).")
    Output output;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        if (recordBytes > Integer.MAX_VALUE) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(), "Invalid value for option '--record-bytes': too large");
        }
        WorkloadFacts facts = facts();
        List<String> problems = facts.validate();
        if (!problems.isEmpty()) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(), "Invalid input: " + String.join("; ", problems));
        }
        AllocationResult result = new AllocationEngine().allocate(facts);
        PrintWriter out = spec.commandLine().getOut();
        if (!result.ok()) {
            if (output == Output.json) {
                out.print(AllocationJson.writeErrors(result));
                out.flush();
            }
            spec.commandLine().getErr().println("plan: does not fit: " + result.message());
            return DOES_NOT_FIT;
        }
        out.print(
                output == Output.json
                        ? AllocationJson.write(result.allocation())
                        : PlanTable.render(result.allocation()));
        out.flush();
        return 0;
    }

    WorkloadFacts facts() {
        Overrides overrides = new Overrides(
                heap,
                rocksDbFraction,
                recordCacheFraction,
                strictCacheLimit,
                highPriorityPoolRatio,
                writeBufferFraction);
        WorkloadFacts.Builder builder = WorkloadFacts.builder()
                .memoryBytes(memory)
                .streamThreads(threads)
                .instancesPerPod(instances)
                .replicas(replicas)
                .standbyReplicas(standbyReplicas)
                .stores(stores)
                .globalStores(globalStores)
                .recordBytes((int) recordBytes)
                .loadedClasses(loadedClasses)
                .extraDirectMemoryBytes(extraDirectMemory)
                .transactionalStateStores(transactionalStateStores)
                .kafkaStreamsVersion(kafkaStreamsVersion)
                .overrides(overrides)
                .replicaRange(replicaRange());
        return tasks.partitions != null
                ? builder.partitions(tasks.partitions).build()
                : builder.tasksPerPod(tasks.tasksPerPod).build();
    }

    /** The range the plan holds for; null without either flag, to plan for exactly {@code --replicas}. */
    private ReplicaRange replicaRange() {
        if (minReplicas == null && maxReplicas == null) {
            return null;
        }
        return new ReplicaRange(
                minReplicas != null ? minReplicas : replicas, maxReplicas != null ? maxReplicas : replicas);
    }

    /** Kubernetes quantities for memory flags. */
    static final class MemoryConverter implements CommandLine.ITypeConverter<Long> {
        @Override
        public Long convert(String value) {
            try {
                return ByteSize.parse(value);
            } catch (IllegalArgumentException e) {
                throw new CommandLine.TypeConversionException(e.getMessage());
            }
        }
    }

    /** {@code kv=2,window=1,session=0}; also {@code keyValue=2}. */
    static final class StoresConverter implements CommandLine.ITypeConverter<StoreCounts> {
        @Override
        public StoreCounts convert(String value) {
            int keyValue = 0;
            int window = 0;
            int session = 0;
            if (value.isBlank()) {
                return StoreCounts.NONE;
            }
            for (String entry : value.split(",")) {
                String[] pair = entry.trim().split("=", 2);
                if (pair.length != 2 || !pair[1].trim().matches("\\d{1,6}")) {
                    throw new CommandLine.TypeConversionException(
                            "'" + entry + "' is not kind=count (kinds: kv, window, session)");
                }
                int count = Integer.parseInt(pair[1].trim());
                switch (pair[0].trim()) {
                    case "kv", "keyValue", "key-value" -> keyValue = count;
                    case "window" -> window = count;
                    case "session" -> session = count;
                    default ->
                        throw new CommandLine.TypeConversionException(
                                "unknown store kind '" + pair[0] + "' (kinds: kv, window, session)");
                }
            }
            return new StoreCounts(keyValue, window, session);
        }
    }

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    static CommandLine commandLine() {
        return new CommandLine(new PlanCommand()).setCaseInsensitiveEnumValuesAllowed(true);
    }
}
