package io.streamsmemory.agent.hook;

import io.streamsmemory.agent.log.AgentLog;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;

/**
 * Inserts, at the start of the StreamsConfig constructor that every other one (and every subclass) ends in,
 * {@code props = Hook.merge(props, StreamsConfig.class);}, where {@code Hook} is the class the agent's wiring gives
 * (its {@code StreamsConfigHook}). The inserted code runs before the
 * {@code super(...)} call, touches only the argument, and has no branches, so the class's stack map frames stay
 * valid as they are. Nothing else of the class changes.
 */
public final class StreamsConfigTransformer extends HookTransformer {
    public static final String TARGET = "org/apache/kafka/streams/StreamsConfig";
    static final String MAIN_CONSTRUCTOR = "(Ljava/util/Map;Z)V";
    static final String PUBLIC_CONSTRUCTOR = "(Ljava/util/Map;)V";
    private static final String HOOK_DESCRIPTOR = "(Ljava/util/Map;Ljava/lang/Class;)Ljava/util/Map;";

    private final String hook;

    /**
     * @param hook the class the patched constructor calls: public, with a public static
     *             {@code Map merge(Map props, Class streamsConfigClass)} that never throws
     */
    public StreamsConfigTransformer(Class<?> hook) {
        super(TARGET, hook, "the application runs on its own memory settings");
        this.hook = Type.getInternalName(hook);
    }

    @Override
    void hookInvisible() {
        AgentLog.warnOnce(
                "hook-invisible",
                "StreamsConfig is loaded by a class loader that cannot see the agent, so "
                        + "configs are not merged; use library mode (StreamsMemory.apply)");
    }

    @Override
    byte[] patch(byte[] classfile) {
        return patchStreamsConfig(classfile, hook);
    }

    /** The patched class, calling {@code hook} (an internal name); null when it has no constructor to patch. */
    static byte[] patchStreamsConfig(byte[] classfile, String hook) {
        ClassReader reader = new ClassReader(classfile);
        boolean[] hasMain = {false};
        reader.accept(
                new ClassVisitor(Opcodes.ASM9) {
                    @Override
                    public MethodVisitor visitMethod(
                            int access, String name, String descriptor, String signature, String[] exceptions) {
                        if ("<init>".equals(name) && MAIN_CONSTRUCTOR.equals(descriptor)) {
                            hasMain[0] = true;
                        }
                        return null;
                    }
                },
                ClassReader.SKIP_CODE);
        String target = hasMain[0] ? MAIN_CONSTRUCTOR : PUBLIC_CONSTRUCTOR;
        String owner = reader.getClassName();
        return rewriteConstructors(
                reader,
                (descriptor, visitor) -> !target.equals(descriptor)
                        ? null
                        : new MethodVisitor(Opcodes.ASM9, visitor) {
                            @Override
                            public void visitCode() {
                                super.visitCode();
                                super.visitVarInsn(Opcodes.ALOAD, 1);
                                super.visitLdcInsn(Type.getObjectType(owner));
                                super.visitMethodInsn(Opcodes.INVOKESTATIC, hook, "merge", HOOK_DESCRIPTOR, false);
                                super.visitVarInsn(Opcodes.ASTORE, 1);
                            }
                        });
    }
}
