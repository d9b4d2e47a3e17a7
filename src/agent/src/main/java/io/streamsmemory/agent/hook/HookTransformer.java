package io.streamsmemory.agent.hook;

import io.streamsmemory.agent.log.AgentLog;
import java.lang.instrument.ClassFileTransformer;
import java.security.ProtectionDomain;
import java.util.HashSet;
import java.util.Set;
import java.util.function.BiFunction;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;

/**
 * What the agent's transformers share: patch one Kafka Streams class, only when its class loader can call the
 * agent's hook, and turn every problem into one warning (the class then loads unchanged). Subclasses say how.
 */
abstract class HookTransformer implements ClassFileTransformer {
    private final String target;
    private final Class<?> hook;
    private final String consequence;

    /**
     * @param target      the internal name of the class to patch
     * @param hook        the agent class the patched code calls
     * @param consequence what not patching means for the application, ending its warnings
     */
    HookTransformer(String target, Class<?> hook, String consequence) {
        this.target = target;
        this.hook = hook;
        this.consequence = consequence;
    }

    /** The patched class, or null when it has nothing to patch in this Kafka Streams version. */
    abstract byte[] patch(byte[] classfile);

    /** Called once when the class's loader cannot see the hook; by default says nothing. */
    void hookInvisible() {}

    @Override
    public final byte[] transform(
            ClassLoader loader,
            String className,
            Class<?> classBeingRedefined,
            ProtectionDomain protectionDomain,
            byte[] classfileBuffer) {
        if (!target.equals(className)) {
            return null;
        }
        String simpleName = target.substring(target.lastIndexOf('/') + 1);
        try {
            if (!visibleFrom(loader, hook)) {
                hookInvisible();
                return null;
            }
            byte[] patched = patch(classfileBuffer);
            if (patched == null) {
                AgentLog.warnOnce(
                        "no-constructor:" + target,
                        simpleName + " has no constructor the agent can patch " + "in this Kafka Streams version; "
                                + consequence);
            }
            return patched;
        } catch (Throwable t) {
            AgentLog.warnOnce(
                    "transform-failure:" + target,
                    "could not instrument " + simpleName + " (" + t + "); " + consequence);
            return null;
        }
    }

    /** Whether code loaded by {@code loader} can call {@code hook} (the agent's own copy of it). */
    static boolean visibleFrom(ClassLoader loader, Class<?> hook) {
        if (loader == null) {
            return false;
        }
        try {
            return Class.forName(hook.getName(), false, loader) == hook;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    /**
     * The class with each constructor that does not call another constructor of the same class ({@code this(...)})
     * rewritten through the visitor {@code wrap} returns for it (given its descriptor; null leaves it as it is): every
     * object passes through exactly one such constructor, the one to hook. Null when it wrapped none.
     */
    static byte[] rewriteEntryConstructors(byte[] classfile, BiFunction<String, MethodVisitor, MethodVisitor> wrap) {
        ClassReader reader = new ClassReader(classfile);
        Set<String> delegating = delegatingConstructors(reader);
        return rewriteConstructors(
                reader,
                (descriptor, visitor) -> delegating.contains(descriptor) ? null : wrap.apply(descriptor, visitor));
    }

    /** The descriptors of the constructors that call another constructor of the same class. */
    private static Set<String> delegatingConstructors(ClassReader reader) {
        String owner = reader.getClassName();
        Set<String> delegating = new HashSet<>();
        reader.accept(
                new ClassVisitor(Opcodes.ASM9) {
                    @Override
                    public MethodVisitor visitMethod(
                            int access, String name, String descriptor, String signature, String[] exceptions) {
                        if (!"<init>".equals(name)) {
                            return null;
                        }
                        return new MethodVisitor(Opcodes.ASM9) {
                            @Override
                            public void visitMethodInsn(
                                    int opcode,
                                    String insnOwner,
                                    String insnName,
                                    String insnDescriptor,
                                    boolean isInterface) {
                                if (opcode == Opcodes.INVOKESPECIAL
                                        && owner.equals(insnOwner)
                                        && "<init>".equals(insnName)) {
                                    delegating.add(descriptor);
                                }
                            }
                        };
                    }
                },
                ClassReader.SKIP_FRAMES);
        return delegating;
    }

    /**
     * The class with each constructor that {@code wrap} (given its descriptor and visitor) returns a visitor for
     * rewritten through it; null when it wrapped none. Everything else is copied as it is.
     */
    static byte[] rewriteConstructors(ClassReader reader, BiFunction<String, MethodVisitor, MethodVisitor> wrap) {
        boolean[] patched = {false};
        ClassWriter writer = new ClassWriter(reader, ClassWriter.COMPUTE_MAXS);
        reader.accept(
                new ClassVisitor(Opcodes.ASM9, writer) {
                    @Override
                    public MethodVisitor visitMethod(
                            int access, String name, String descriptor, String signature, String[] exceptions) {
                        MethodVisitor visitor = super.visitMethod(access, name, descriptor, signature, exceptions);
                        MethodVisitor wrapped = "<init>".equals(name) ? wrap.apply(descriptor, visitor) : null;
                        if (wrapped == null) {
                            return visitor;
                        }
                        patched[0] = true;
                        return wrapped;
                    }
                },
                0);
        return patched[0] ? writer.toByteArray() : null;
    }

    /** Calls {@code <hook>.constructed(this)} before each return of the constructor it visits. */
    static class ReportsConstructed extends MethodVisitor {
        private final String hook;

        ReportsConstructed(MethodVisitor visitor, String hook) {
            super(Opcodes.ASM9, visitor);
            this.hook = hook;
        }

        @Override
        public void visitInsn(int opcode) {
            if (opcode == Opcodes.RETURN) {
                super.visitVarInsn(Opcodes.ALOAD, 0);
                super.visitMethodInsn(Opcodes.INVOKESTATIC, hook, "constructed", "(Ljava/lang/Object;)V", false);
            }
            super.visitInsn(opcode);
        }
    }
}
