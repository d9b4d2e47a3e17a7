package io.streamsmemory.agent.rocksdb;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URL;
import java.net.URLClassLoader;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Test;
import org.rocksdb.Options;

/**
 * Kafka Streams as a fat-jar launcher loads it (Spring Boot's JarLauncher, Quarkus's runner): in a child class loader,
 * child-first for Kafka and RocksJava, whose classes the agent's own setter cannot implement. The agent defines its
 * setter in that loader, under Kafka's package, implementing that loader's RocksDBConfigSetter; its other classes
 * stay the agent's.
 */
class AppLoaderSetterTest {
    @Test
    void aLauncherLoadedKafkaStreamsGetsTheSetterDefinedInItsOwnClassLoader() throws Exception {
        try (ChildFirst launcher =
                new ChildFirst(location(StreamsConfig.class), location(Consumer.class), location(Options.class))) {
            Class<?> streamsConfig = launcher.loadClass(StreamsConfig.class.getName());
            assertThat(streamsConfig).isNotSameAs(StreamsConfig.class);
            assertThat(SetterVisibility.usable(streamsConfig)).isFalse();

            Class<?> setter = AppLoaderSetter.setterFor(launcher);

            assertThat(setter.getName())
                    .isEqualTo("org.apache.kafka.streams.state.StreamsMemoryBoundedRocksDBConfigSetter");
            assertThat(setter.getClassLoader()).isSameAs(launcher);
            assertThat(launcher.loadClass("org.apache.kafka.streams.state.RocksDBConfigSetter"))
                    .isAssignableFrom(setter);
            assertThat(setter.getDeclaredConstructor().newInstance()).isNotNull();
            // Its copies of the shared cache and the flush listener are defined beside it; the figures the report
            // reads stay the agent's own.
            assertThat(launcher.loadClass("org.apache.kafka.streams.state.StreamsMemorySharedRocksDb")
                            .getClassLoader())
                    .isSameAs(launcher);
            assertThat(launcher.loadClass(RocksDbStats.class.getName())).isSameAs(RocksDbStats.class);
            // Defined once per loader.
            assertThat(AppLoaderSetter.setterFor(launcher)).isSameAs(setter);
        }
    }

    private static URL location(Class<?> type) {
        return type.getProtectionDomain().getCodeSource().getLocation();
    }

    /** Kafka and RocksJava from its own jars first, as a fat-jar launcher loads its nested jars; the rest from its parent. */
    private static final class ChildFirst extends URLClassLoader {
        ChildFirst(URL... jars) {
            super(jars, ChildFirst.class.getClassLoader());
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            if (!name.startsWith("org.apache.kafka.") && !name.startsWith("org.rocksdb.")) {
                return super.loadClass(name, resolve);
            }
            synchronized (getClassLoadingLock(name)) {
                Class<?> type = findLoadedClass(name);
                return type != null ? type : findClass(name);
            }
        }
    }
}
