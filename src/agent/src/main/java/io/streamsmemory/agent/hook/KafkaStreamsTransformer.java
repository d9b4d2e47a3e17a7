package io.streamsmemory.agent.hook;

import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;

/**
 * Lets {@link StreamsInstances} count KafkaStreams instances. In the KafkaStreams constructor that does not delegate
 * to another one (every instance passes through exactly one; in 2.8 to 4.4 it is
 * {@code KafkaStreams(TopologyMetadata, StreamsConfig, KafkaClientSupplier, Time)}) it inserts, first,
 * {@code config = (StreamsConfig) StreamsInstances.beforeConstruct(config);} (before the super call, touching only
 * the argument, so the frames stay valid) and, before each return, {@code StreamsInstances.constructed(this);}.
 * The record cache and every client are sized from that argument inside this constructor.
 */
public final class KafkaStreamsTransformer extends HookTransformer {
    public static final String TARGET = "org/apache/kafka/streams/KafkaStreams";
    static final String CONFIG_TYPE = "org/apache/kafka/streams/StreamsConfig";
    private static final String HOOK = Type.getInternalName(StreamsInstances.class);

    public KafkaStreamsTransformer() {
        // An invisible hook is StreamsConfigTransformer's warning already: the same loader loads both classes.
        super(TARGET, StreamsInstances.class, "KafkaStreams instances are not counted");
    }

    @Override
    byte[] patch(byte[] classfile) {
        return patchKafkaStreams(classfile);
    }

    /** Returns the patched class, or null when no non-delegating constructor takes a StreamsConfig. */
    static byte[] patchKafkaStreams(byte[] classfile) {
        return rewriteEntryConstructors(classfile, (descriptor, visitor) -> {
            int slot = configSlot(descriptor);
            return slot < 0 ? null : new CountingConstructor(visitor, slot);
        });
    }

    /** The local variable slot of the first StreamsConfig parameter of a constructor, or -1. */
    static int configSlot(String descriptor) {
        int slot = 1;
        for (Type argument : Type.getArgumentTypes(descriptor)) {
            if (argument.getSort() == Type.OBJECT && CONFIG_TYPE.equals(argument.getInternalName())) {
                return slot;
            }
            slot += argument.getSize();
        }
        return -1;
    }

    private static final class CountingConstructor extends ReportsConstructed {
        private final int slot;

        CountingConstructor(MethodVisitor visitor, int slot) {
            super(visitor, HOOK);
            this.slot = slot;
        }

        @Override
        public void visitCode() {
            super.visitCode();
            super.visitVarInsn(Opcodes.ALOAD, slot);
            super.visitMethodInsn(
                    Opcodes.INVOKESTATIC, HOOK, "beforeConstruct", "(Ljava/lang/Object;)Ljava/lang/Object;", false);
            super.visitTypeInsn(Opcodes.CHECKCAST, CONFIG_TYPE);
            super.visitVarInsn(Opcodes.ASTORE, slot);
        }
    }
}
