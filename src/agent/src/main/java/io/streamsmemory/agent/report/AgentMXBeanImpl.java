package io.streamsmemory.agent.report;

import io.streamsmemory.agent.allocation.AgentAllocation;
import io.streamsmemory.agent.allocation.JvmLimits;
import io.streamsmemory.agent.hook.StreamsInstances;
import io.streamsmemory.agent.log.AgentLog;
import io.streamsmemory.agent.rocksdb.RocksDbStats;
import io.streamsmemory.agent.state.AgentState;
import io.streamsmemory.protocol.RocksDbSettings;
import java.lang.management.ManagementFactory;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.LongSupplier;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/** The agent's MBean, {@value AgentState#MBEAN_NAME}: registered once the agent first has work to do. */
public final class AgentMXBeanImpl implements StreamsMemoryAgentMXBean {
    private static final Object LOCK = new Object();
    private static volatile boolean registered;

    /**
     * Registers the MBean, once per JVM, when the agent first has work to do: the first StreamsConfig merged or the
     * first RocksDB store bounded (not in premain: the management beans are not touched before the application's own
     * start). Checks the JVM's limits against the allocation's first.
     */
    public static void register() {
        if (registered) {
            return;
        }
        synchronized (LOCK) {
            if (registered) {
                return;
            }
            registered = true;
            AgentState.checkJvmLimits();
            try {
                MBeanServer server = ManagementFactory.getPlatformMBeanServer();
                ObjectName name = new ObjectName(AgentState.MBEAN_NAME);
                if (!server.isRegistered(name)) {
                    server.registerMBean(new AgentMXBeanImpl(), name);
                }
            } catch (Throwable t) {
                AgentLog.warnOnce("mbean", "could not register the MBean " + AgentState.MBEAN_NAME + ": " + t);
            }
        }
    }

    /** For tests only: register again at the next merge. */
    public static void resetForTests() {
        registered = false;
    }

    @Override
    public String getStatus() {
        return AgentState.status();
    }

    @Override
    public String getMode() {
        return AgentState.mode();
    }

    @Override
    public String getAgentVersion() {
        return AgentState.agentVersion();
    }

    @Override
    public String getAllocationHash() {
        AgentAllocation allocation = AgentState.allocation();
        return allocation == null ? "" : allocation.hash();
    }

    @Override
    public String getAllocationSource() {
        AgentAllocation allocation = AgentState.allocation();
        return allocation == null ? "" : allocation.source();
    }

    @Override
    public long getMemoryBytes() {
        AgentAllocation allocation = AgentState.allocation();
        return allocation == null ? -1 : allocation.memoryBytes();
    }

    @Override
    public String getKafkaStreamsVersion() {
        return AgentState.kafkaStreamsVersion();
    }

    @Override
    public Map<String, String> getAllocatedStreamsConfig() {
        Map<String, String> out = new LinkedHashMap<>();
        AgentAllocation allocation = AgentState.allocation();
        if (allocation != null) {
            allocation.streamsConfig().forEach((key, value) -> out.put(key, Long.toString(value)));
        }
        return out;
    }

    @Override
    public Map<String, String> getAppliedChanges() {
        return AgentState.applied();
    }

    @Override
    public Map<String, String> getSkippedKeys() {
        return AgentState.skipped();
    }

    @Override
    public long getStreamsConfigsMerged() {
        return AgentState.merges();
    }

    @Override
    public long getRecordCacheBytes() {
        AgentAllocation allocation = AgentState.allocation();
        return allocation == null ? -1 : allocation.recordCacheBytes();
    }

    @Override
    public String getRecordCacheSource() {
        return AgentState.recordCache().source().label();
    }

    @Override
    public String getRecordCacheReason() {
        return AgentState.recordCache().reason();
    }

    private static RocksDbSettings rocks() {
        AgentAllocation allocation = AgentState.allocation();
        return allocation == null ? null : allocation.rocksDb();
    }

    @Override
    public long getBlockCacheCapacityBytes() {
        return RocksDbStats.capacity;
    }

    @Override
    public long getBlockCacheUsageBytes() {
        return safe(RocksDbStats.usage);
    }

    @Override
    public long getBlockCachePinnedUsageBytes() {
        return safe(RocksDbStats.pinnedUsage);
    }

    private static long safe(LongSupplier supplier) {
        try {
            return supplier.getAsLong();
        } catch (Throwable t) {
            return -1;
        }
    }

    @Override
    public long getWriteBufferManagerBytes() {
        RocksDbSettings rocks = rocks();
        return rocks == null ? -1 : rocks.writeBufferManagerBytes();
    }

    @Override
    public long getWriteBufferSizeBytes() {
        RocksDbSettings rocks = rocks();
        return rocks == null ? -1 : rocks.writeBufferSizeBytes();
    }

    @Override
    public int getMaxWriteBufferNumber() {
        RocksDbSettings rocks = rocks();
        return rocks == null ? -1 : rocks.maxWriteBufferNumber();
    }

    @Override
    public int getRocksDbFlushThreads() {
        return (int) safe(RocksDbStats.flushThreads);
    }

    @Override
    public int getRocksDbInstances() {
        return RocksDbStats.OPEN.get();
    }

    @Override
    public long getRocksDbInstancesOpened() {
        return RocksDbStats.OPENED.get();
    }

    @Override
    public String getChainedConfigSetters() {
        return String.join(",", RocksDbStats.CHAINED_SETTERS);
    }

    @Override
    public String getKeptApplicationRocksDbOptions() {
        return String.join(",", RocksDbStats.KEPT_APPLICATION_OPTIONS);
    }

    @Override
    public int getStreamThreads() {
        Set<ObjectName> names = query("kafka.streams:type=stream-thread-metrics,*");
        Set<String> threads = new HashSet<>();
        for (ObjectName name : names) {
            String thread = name.getKeyProperty("thread-id");
            if (thread != null) {
                threads.add(thread);
            }
        }
        return threads.isEmpty() ? -1 : threads.size();
    }

    @Override
    public int getTasks() {
        Set<String> tasks = new HashSet<>();
        for (ObjectName name : query("kafka.streams:type=stream-task-metrics,*")) {
            String task = name.getKeyProperty("task-id");
            if (task != null) {
                tasks.add(task);
            }
        }
        return tasks.isEmpty() ? -1 : tasks.size();
    }

    private static Set<ObjectName> query(String pattern) {
        try {
            return ManagementFactory.getPlatformMBeanServer().queryNames(new ObjectName(pattern), null);
        } catch (Exception e) {
            return Set.of();
        }
    }

    @Override
    public int getStreamsInstances() {
        return StreamsInstances.live();
    }

    @Override
    public int getPlannedStreamsInstances() {
        AgentAllocation allocation = AgentState.allocation();
        return allocation == null ? -1 : allocation.instancesPerPod();
    }

    @Override
    public long getPlannedHeapBytes() {
        return limit(JvmLimits.HEAP, true);
    }

    @Override
    public long getEffectiveHeapBytes() {
        return limit(JvmLimits.HEAP, false);
    }

    @Override
    public long getPlannedMaxMetaspaceBytes() {
        return limit(JvmLimits.METASPACE, true);
    }

    @Override
    public long getEffectiveMaxMetaspaceBytes() {
        return limit(JvmLimits.METASPACE, false);
    }

    @Override
    public long getPlannedMaxDirectMemoryBytes() {
        return limit(JvmLimits.DIRECT, true);
    }

    @Override
    public long getEffectiveMaxDirectMemoryBytes() {
        return limit(JvmLimits.DIRECT, false);
    }

    @Override
    public Map<String, String> getJvmLimitMismatches() {
        JvmLimits limits = AgentState.jvmLimits();
        return limits == null ? Map.of() : new LinkedHashMap<>(limits.mismatches());
    }

    private static long limit(String name, boolean planned) {
        JvmLimits limits = AgentState.jvmLimits();
        if (limits == null) {
            return -1;
        }
        return planned ? limits.planned(name) : limits.effective(name);
    }

    @Override
    public long getLoadedClasses() {
        return safe(JvmMemory::loadedClasses);
    }

    @Override
    public long getPlannedLoadedClasses() {
        AgentAllocation allocation = AgentState.allocation();
        return allocation == null ? -1 : allocation.plannedLoadedClasses();
    }

    @Override
    public long getMetaspaceUsedBytes() {
        return safe(JvmMemory::metaspaceUsedBytes);
    }

    @Override
    public long getDirectUsedBytes() {
        return safe(JvmMemory::directUsedBytes);
    }

    @Override
    public long getDirectMaxBytes() {
        return safe(JvmMemory::directMaxBytes);
    }

    @Override
    public long getRssBytes() {
        return ProcStatus.read(ProcStatus.SELF).getOrDefault("rssBytes", -1L);
    }
}
