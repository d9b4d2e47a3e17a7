package io.streamsmemory.agent.rocksdb;

/**
 * Whether Kafka Streams (as loaded next to a given StreamsConfig class) and the agent's setter see the same
 * RocksDBConfigSetter and RocksDB classes. Not so when a fat-jar launcher loads Kafka Streams in a child class loader
 * that the agent (on the system class path) cannot see.
 */
public final class SetterVisibility {
    private static final ClassValue<Boolean> CACHE = new ClassValue<>() {
        @Override
        protected Boolean computeValue(Class<?> streamsConfigClass) {
            return check(streamsConfigClass.getClassLoader());
        }
    };

    private SetterVisibility() {}

    public static boolean usable(Class<?> streamsConfigClass) {
        return CACHE.get(streamsConfigClass);
    }

    private static boolean check(ClassLoader kafkaLoader) {
        ClassLoader agentLoader = SetterVisibility.class.getClassLoader();
        for (String name : new String[] {"org.apache.kafka.streams.state.RocksDBConfigSetter", "org.rocksdb.Options"}) {
            try {
                Class<?> kafkaSide = Class.forName(name, false, kafkaLoader);
                Class<?> agentSide = Class.forName(name, false, agentLoader);
                if (kafkaSide != agentSide) {
                    return false;
                }
            } catch (ClassNotFoundException | LinkageError e) {
                return false;
            }
        }
        return true;
    }
}
