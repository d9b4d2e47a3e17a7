package io.streamsmemory.agent.hook;

import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * The in-memory stores and suppress processors of this JVM, as {@link HeapStateTransformer}'s constructors report
 * them; weakly held, so a task's closed stores leave with the task. The report reads them ({@code HeapStateFigures}).
 */
public final class HeapStateObjects {
    private static final List<WeakReference<Object>> CONSTRUCTED = new ArrayList<>();
    /** Collected references are dropped when the list reaches this size, which then doubles. */
    private static int pruneAt = 64;

    private HeapStateObjects() {}

    /** Called by the patched constructors; never throws into them. */
    public static void constructed(Object object) {
        try {
            synchronized (CONSTRUCTED) {
                if (CONSTRUCTED.size() >= pruneAt) {
                    CONSTRUCTED.removeIf(reference -> reference.get() == null);
                    pruneAt = Math.max(64, CONSTRUCTED.size() * 2);
                }
                CONSTRUCTED.add(new WeakReference<>(object));
            }
        } catch (Throwable t) {
            // An object not remembered is an object not reported; the application's constructor goes on.
        }
    }

    /** The objects not yet collected, oldest first. */
    public static List<Object> live() {
        List<Object> live = new ArrayList<>();
        synchronized (CONSTRUCTED) {
            for (Iterator<WeakReference<Object>> it = CONSTRUCTED.iterator(); it.hasNext(); ) {
                Object object = it.next().get();
                if (object == null) {
                    it.remove();
                } else {
                    live.add(object);
                }
            }
        }
        return live;
    }

    /** For tests: forgets everything. */
    public static void reset() {
        synchronized (CONSTRUCTED) {
            CONSTRUCTED.clear();
            pruneAt = 64;
        }
    }
}
