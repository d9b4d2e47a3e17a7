package io.streamsmemory.examples;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Loads classes generated in memory at start, and keeps them, so the JVM holds the metaspace of an application much
 * larger than this one (a Spring Boot service loads 20,000 to 30,000 classes): what {@code -XX:MaxMetaspaceSize} has
 * to hold. Each class has {@link #METHODS} small static methods, about 4.5 KiB of metaspace, near an application
 * class's average. Started by {@code EXTRA_CLASSES}; 0 loads none. A cap too small for them stops the JVM here with
 * {@code OutOfMemoryError: Metaspace}, before Kafka Streams starts, as a framework's start would.
 */
final class ExtraClasses extends ClassLoader {
    private static final Logger LOG = LoggerFactory.getLogger(ExtraClasses.class);
    static final int METHODS = 24;
    /** Kept for the life of the JVM: a class stays loaded while its loader is reachable. */
    private static ExtraClasses loaded;

    private ExtraClasses() {
        super(ExtraClasses.class.getClassLoader());
    }

    static void load(int count) {
        if (count <= 0) {
            return;
        }
        ExtraClasses loader = new ExtraClasses();
        for (int i = 0; i < count; i++) {
            String name = "io/streamsmemory/examples/generated/Extra" + i;
            byte[] bytes = classFile(name);
            loader.defineClass(name.replace('/', '.'), bytes, 0, bytes.length);
        }
        loaded = loader;
        LOG.info("loaded {} extra classes (EXTRA_CLASSES)", count);
    }

    /**
     * A class file (Java 8, version 52) of a public class extending Object with {@link #METHODS} methods
     * {@code public static int mK() { return K; }}; no constructor, as it is never instantiated or initialised.
     */
    static byte[] classFile(String name) {
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            DataOutputStream out = new DataOutputStream(bytes);
            out.writeInt(0xCAFEBABE);
            out.writeShort(0);
            out.writeShort(52);
            // Constant pool: 1 this name, 2 this class, 3 Object's name, 4 Object, 5 "()I", 6 "Code", 7.. method names.
            out.writeShort(7 + METHODS);
            utf8(out, name);
            classRef(out, 1);
            utf8(out, "java/lang/Object");
            classRef(out, 3);
            utf8(out, "()I");
            utf8(out, "Code");
            for (int m = 0; m < METHODS; m++) {
                utf8(out, "m" + m);
            }
            out.writeShort(0x0021); // public, super
            out.writeShort(2);
            out.writeShort(4);
            out.writeShort(0); // interfaces
            out.writeShort(0); // fields
            out.writeShort(METHODS);
            for (int m = 0; m < METHODS; m++) {
                out.writeShort(0x0009); // public static
                out.writeShort(7 + m);
                out.writeShort(5);
                out.writeShort(1); // one attribute: Code
                out.writeShort(6);
                out.writeInt(16); // max_stack, max_locals, code_length, code (4), exception table, attributes
                out.writeShort(1);
                out.writeShort(0);
                out.writeInt(4);
                out.writeByte(0x11); // sipush m
                out.writeShort(m);
                out.writeByte(0xAC); // ireturn
                out.writeShort(0);
                out.writeShort(0);
            }
            out.writeShort(0); // class attributes
            return bytes.toByteArray();
        } catch (IOException e) {
            throw new IllegalStateException("writing to memory", e);
        }
    }

    private static void utf8(DataOutputStream out, String text) throws IOException {
        out.writeByte(1);
        byte[] utf8 = text.getBytes(StandardCharsets.UTF_8);
        out.writeShort(utf8.length);
        out.write(utf8);
    }

    private static void classRef(DataOutputStream out, int nameIndex) throws IOException {
        out.writeByte(7);
        out.writeShort(nameIndex);
    }
}
