package io.streamsmemory.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import org.junit.jupiter.api.Test;

/**
 * Case 1 of issue 9, in the bytes of the shaded agent jar itself: a Java 8 JVM can load the entry point (class file
 * 52) and nothing else of the agent before the version check (the entry point names no other class of the jar except
 * as a string); everything else runs on Java 11 (class files up to 55, shaded Jackson and ASM included).
 */
class AgentEntryBytecodeTest {
    private static final String ENTRY = "io/streamsmemory/agent/StreamsMemoryAgent";
    private static final int JAVA_8 = 52;
    private static final int JAVA_11 = 55;

    @Test
    void theEntryPointIsJava8AndEverythingElseJava11() throws Exception {
        try (JarFile jar = new JarFile(System.getProperty("streamsmemory.agentJar"))) {
            assertThat(jar.getManifest().getMainAttributes().getValue("Premain-Class"))
                    .isEqualTo(ENTRY.replace('/', '.'));
            assertThat(jar.getManifest().getMainAttributes().getValue("Agent-Class"))
                    .isEqualTo(ENTRY.replace('/', '.'));
            Map<String, Integer> tooNew = new LinkedHashMap<>();
            int classes = 0;
            for (JarEntry entry : Collections.list(jar.entries())) {
                String name = entry.getName();
                if (!name.endsWith(".class") || name.startsWith("META-INF/versions/")) {
                    continue;
                }
                classes++;
                int major = ClassFile.read(jar.getInputStream(entry)).major;
                if (major > JAVA_11) {
                    tooNew.put(name, major);
                }
            }
            assertThat(classes)
                    .as("classes in the jar, shaded Jackson and ASM included")
                    .isGreaterThan(500);
            assertThat(tooNew).as("classes newer than Java 11").isEmpty();
            assertThat(ClassFile.read(jar.getInputStream(jar.getEntry(ENTRY + ".class"))).major)
                    .isEqualTo(JAVA_8);
        }
    }

    @Test
    void theEntryPointReferencesNoOtherAgentClass() throws Exception {
        try (JarFile jar = new JarFile(System.getProperty("streamsmemory.agentJar"))) {
            ClassFile entry = ClassFile.read(jar.getInputStream(jar.getEntry(ENTRY + ".class")));
            // Every class it names is the JDK's or its own: loading it loads nothing compiled above Java 8.
            assertThat(entry.classes)
                    .allSatisfy(name -> assertThat(name.startsWith("java/") || name.equals(ENTRY))
                            .as(name)
                            .isTrue());
            // The agent proper is reached by name, through reflection, after the check.
            assertThat(entry.strings).contains("io.streamsmemory.agent.AgentMain");
        }
    }

    @Test
    void theVersionCheckReadsJavaSpecificationVersions() {
        assertThat(StreamsMemoryAgent.featureVersion("1.8")).isEqualTo(8);
        assertThat(StreamsMemoryAgent.featureVersion("9")).isEqualTo(9);
        assertThat(StreamsMemoryAgent.featureVersion("11")).isEqualTo(11);
        assertThat(StreamsMemoryAgent.featureVersion("25")).isEqualTo(25);
        assertThat(StreamsMemoryAgent.featureVersion(System.getProperty("java.specification.version")))
                .isGreaterThanOrEqualTo(StreamsMemoryAgent.MINIMUM_JAVA);
        // Unreadable: the agent proper is tried, and any failure to load it is still caught.
        assertThat(StreamsMemoryAgent.featureVersion("garbled")).isEqualTo(Integer.MAX_VALUE);
        assertThat(StreamsMemoryAgent.featureVersion(null)).isEqualTo(Integer.MAX_VALUE);
    }

    /** The major version and the constant pool's class names and strings of one class file (JVMS 4.1, 4.4). */
    private static final class ClassFile {
        int major;
        final List<String> classes = new ArrayList<>();
        final List<String> strings = new ArrayList<>();

        static ClassFile read(InputStream stream) throws IOException {
            try (DataInputStream in = new DataInputStream(stream)) {
                ClassFile file = new ClassFile();
                if (in.readInt() != 0xCAFEBABE) {
                    throw new IOException("not a class file");
                }
                in.readUnsignedShort(); // minor
                file.major = in.readUnsignedShort();
                int count = in.readUnsignedShort();
                String[] utf8 = new String[count];
                List<int[]> classRefs = new ArrayList<>();
                List<int[]> stringRefs = new ArrayList<>();
                for (int i = 1; i < count; i++) {
                    int tag = in.readUnsignedByte();
                    switch (tag) {
                        case 1 -> utf8[i] = in.readUTF();
                        case 7 -> classRefs.add(new int[] {in.readUnsignedShort()});
                        case 8 -> stringRefs.add(new int[] {in.readUnsignedShort()});
                        case 16, 19, 20 -> in.readUnsignedShort();
                        case 15 -> in.skipBytes(3);
                        case 3, 4, 9, 10, 11, 12, 17, 18 -> in.skipBytes(4);
                        case 5, 6 -> {
                            in.skipBytes(8);
                            i++; // longs and doubles take two slots
                        }
                        default -> throw new IOException("unknown constant pool tag " + tag);
                    }
                }
                classRefs.forEach(ref -> file.classes.add(utf8[ref[0]]));
                stringRefs.forEach(ref -> file.strings.add(utf8[ref[0]]));
                return file;
            }
        }
    }
}
