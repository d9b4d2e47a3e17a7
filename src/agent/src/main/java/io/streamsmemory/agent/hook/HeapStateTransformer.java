package io.streamsmemory.agent.hook;

import java.util.List;
import org.objectweb.asm.Type;

/**
 * Lets {@link HeapStateObjects} find what holds a topology's state on the heap: each in-memory key-value store, and
 * each {@code suppress()} operator's processor, which knows its buffer and the bound it was given (Kafka Streams 2.8 to
 * 4.4 name both classes alike). In each constructor that does not delegate to another one it inserts, before each
 * return, {@code HeapStateObjects.constructed(this);}: the object is only remembered (weakly), never changed.
 */
public final class HeapStateTransformer extends HookTransformer {
    public static final String KEY_VALUE_STORE = "org/apache/kafka/streams/state/internals/InMemoryKeyValueStore";
    public static final String SUPPRESS_PROCESSOR =
            "org/apache/kafka/streams/kstream/internals/suppress/KTableSuppressProcessorSupplier$KTableSuppressProcessor";
    public static final List<String> TARGETS = List.of(KEY_VALUE_STORE, SUPPRESS_PROCESSOR);
    private static final String HOOK = Type.getInternalName(HeapStateObjects.class);

    public HeapStateTransformer(String target) {
        super(target, HeapStateObjects.class, "its in-memory state is left out of the report");
    }

    @Override
    byte[] patch(byte[] classfile) {
        return patchConstructors(classfile);
    }

    /** Returns the class with its non-delegating constructors reporting the new object, or null when it has none. */
    static byte[] patchConstructors(byte[] classfile) {
        return rewriteEntryConstructors(classfile, (descriptor, visitor) -> new ReportsConstructed(visitor, HOOK));
    }
}
