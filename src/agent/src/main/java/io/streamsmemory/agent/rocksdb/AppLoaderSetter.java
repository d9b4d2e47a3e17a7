package io.streamsmemory.agent.rocksdb;

import io.streamsmemory.agent.log.AgentLog;
import java.io.IOException;
import java.io.InputStream;
import java.lang.invoke.MethodHandles;
import java.util.ArrayDeque;
import java.util.Collections;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.commons.ClassRemapper;
import org.objectweb.asm.commons.SimpleRemapper;

/**
 * The agent's RocksDB setter for a Kafka Streams that a fat-jar launcher loads (Spring Boot's {@code JarLauncher},
 * Quarkus's runner): there Kafka Streams and RocksJava live in a child class loader that the system class path, where
 * the agent's classes are, cannot see, so the agent's own setter cannot implement that loader's
 * {@code RocksDBConfigSetter} ({@link SetterVisibility}). The three classes that touch RocksJava or Kafka's setter
 * interface (the setter, the shared cache, the flush listener, with their nested classes) are copied, renamed into
 * Kafka's own package {@code org.apache.kafka.streams.state} ({@code StreamsMemoryBoundedRocksDBConfigSetter}, ...)
 * and defined in that loader through a private lookup on {@code RocksDBConfigSetter}; every other class they use (the
 * allocation, the log, the figures the report reads in {@link RocksDbStats}) stays the agent's, which the launcher's
 * loader reaches through its parent. Nothing of the application's is changed. Any failure leaves RocksDB on the
 * application's own settings, with one warning, as before.
 */
public final class AppLoaderSetter {
    static final String PACKAGE = "org/apache/kafka/streams/state/";
    /** The copied classes' new names: Kafka's package and this prefix before the agent's simple name. */
    static final String PREFIX = PACKAGE + "StreamsMemory";

    static final String SETTER = "io/streamsmemory/agent/BoundedRocksDBConfigSetter";
    static final List<String> COPIED = List.of(
            SETTER,
            "io/streamsmemory/agent/rocksdb/SharedRocksDb",
            "io/streamsmemory/agent/rocksdb/FlushAndStallListener");

    private static final Map<ClassLoader, Class<?>> DEFINED = Collections.synchronizedMap(new WeakHashMap<>());

    private AppLoaderSetter() {}

    /** The setter defined in {@code kafkaLoader} (once per loader), or null with one warning when it cannot be. */
    public static Class<?> setterFor(ClassLoader kafkaLoader) {
        if (kafkaLoader == null) {
            return null;
        }
        synchronized (DEFINED) {
            Class<?> defined = DEFINED.get(kafkaLoader);
            if (defined == null) {
                try {
                    defined = define(kafkaLoader);
                    DEFINED.put(kafkaLoader, defined);
                } catch (Throwable t) {
                    AgentLog.warnOnce(
                            "app-loader-setter",
                            "Kafka Streams is loaded by a class loader that cannot see the agent's classes (a fat-jar "
                                    + "launcher), and the agent could not define its RocksDB setter there (" + t
                                    + "), so RocksDB is not bounded by the agent (configs still are)");
                    return null;
                }
            }
            return defined;
        }
    }

    private static Class<?> define(ClassLoader kafkaLoader) throws ReflectiveOperationException, IOException {
        Class<?> anchor = Class.forName(PACKAGE.replace('/', '.') + "RocksDBConfigSetter", false, kafkaLoader);
        MethodHandles.Lookup lookup = MethodHandles.privateLookupIn(anchor, MethodHandles.lookup());
        Map<String, byte[]> originals = withNestedClasses();
        Map<String, String> names = new LinkedHashMap<>();
        for (String name : originals.keySet()) {
            names.put(name, renamed(name));
        }
        SimpleRemapper remapper = new SimpleRemapper(names);
        Class<?> setter = null;
        for (Map.Entry<String, byte[]> original : originals.entrySet()) {
            ClassWriter writer = new ClassWriter(0);
            new ClassReader(original.getValue()).accept(new ClassRemapper(writer, remapper), 0);
            Class<?> defined = lookup.defineClass(writer.toByteArray());
            if (original.getKey().equals(SETTER)) {
                setter = defined;
            }
        }
        return setter;
    }

    /** {@code io/streamsmemory/agent/rocksdb/SharedRocksDb$1} to {@code org/apache/kafka/streams/state/StreamsMemorySharedRocksDb$1}. */
    static String renamed(String internalName) {
        return PREFIX + internalName.substring(internalName.lastIndexOf('/') + 1);
    }

    /** The copied classes' bytes, each followed by its nested classes' (found in its InnerClasses attribute). */
    private static Map<String, byte[]> withNestedClasses() throws IOException {
        Map<String, byte[]> classes = new LinkedHashMap<>();
        Deque<String> pending = new ArrayDeque<>(COPIED);
        while (!pending.isEmpty()) {
            String name = pending.removeFirst();
            if (classes.containsKey(name)) {
                continue;
            }
            byte[] bytes = classBytes(name);
            classes.put(name, bytes);
            new ClassReader(bytes)
                    .accept(
                            new ClassVisitor(Opcodes.ASM9) {
                                @Override
                                public void visitInnerClass(
                                        String inner, String outerName, String innerName, int access) {
                                    if (inner.startsWith(name + "$")) {
                                        pending.addLast(inner);
                                    }
                                }
                            },
                            ClassReader.SKIP_CODE);
        }
        return classes;
    }

    private static byte[] classBytes(String internalName) throws IOException {
        try (InputStream in = AppLoaderSetter.class.getClassLoader().getResourceAsStream(internalName + ".class")) {
            if (in == null) {
                throw new IOException("no " + internalName + ".class in the agent's jar");
            }
            return in.readAllBytes();
        }
    }
}
