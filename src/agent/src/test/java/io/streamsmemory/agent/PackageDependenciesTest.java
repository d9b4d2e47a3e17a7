package io.streamsmemory.agent;

import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The agent's packages depend on each other one way, top to bottom:
 * <ul>
 *   <li>{@code io.streamsmemory.agent}: what is called from outside the agent's own code (the premain wiring
 *       {@code AgentMain}, library mode's {@code StreamsMemory}, Kafka Streams' {@code BoundedRocksDBConfigSetter},
 *       the patched StreamsConfig's {@code StreamsConfigHook}); their names are contracts;</li>
 *   <li>{@code report/}: the memory report, its HTTP endpoint and the MBean;</li>
 *   <li>{@code hook/}: patching StreamsConfig and KafkaStreams, and counting the instances;</li>
 *   <li>{@code rocksdb/}: the JVM's shared block cache and what RocksDB tells of it;</li>
 *   <li>{@code state/}: the JVM's one allocation and what was done with it;</li>
 *   <li>{@code config/}: merging an allocation into a StreamsConfig's properties (pure);</li>
 *   <li>{@code allocation/}: reading and checking the allocation document, the JVM limits it plans;</li>
 *   <li>{@code log/}: the agent's one output channel.</li>
 * </ul>
 */
class PackageDependenciesTest {
    private static final String BASE = "io.streamsmemory.agent.";
    private static final JavaClasses AGENT = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.streamsmemory.agent");

    @Test
    void eachPackageUsesOnlyTheOnesBelowIt() {
        layeredArchitecture()
                .consideringOnlyDependenciesInAnyPackage("io.streamsmemory.agent..")
                .layer("entry")
                .definedBy("io.streamsmemory.agent")
                .layer("report")
                .definedBy(BASE + "report..")
                .layer("hook")
                .definedBy(BASE + "hook..")
                .layer("rocksdb")
                .definedBy(BASE + "rocksdb..")
                .layer("state")
                .definedBy(BASE + "state..")
                .layer("config")
                .definedBy(BASE + "config..")
                .layer("allocation")
                .definedBy(BASE + "allocation..")
                .layer("log")
                .definedBy(BASE + "log..")
                .whereLayer("entry")
                .mayNotBeAccessedByAnyLayer()
                .whereLayer("report")
                .mayOnlyBeAccessedByLayers("entry")
                .whereLayer("hook")
                .mayOnlyBeAccessedByLayers("entry", "report")
                .whereLayer("rocksdb")
                .mayOnlyBeAccessedByLayers("entry", "report")
                .whereLayer("state")
                .mayOnlyBeAccessedByLayers("entry", "report", "hook", "rocksdb")
                .whereLayer("config")
                .mayOnlyBeAccessedByLayers("entry", "report", "hook", "state")
                .whereLayer("allocation")
                .mayOnlyBeAccessedByLayers("entry", "report", "hook", "rocksdb", "state", "config")
                .whereLayer("log")
                .mayOnlyBeAccessedByLayers("entry", "report", "hook", "rocksdb", "state", "config", "allocation")
                .check(AGENT);
    }

    @Test
    void noPackagesDependOnEachOtherInACycle() {
        slices().matching(BASE + "(*)..").should().beFreeOfCycles().check(AGENT);
    }
}
