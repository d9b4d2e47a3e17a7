package io.streamsmemory.operator;

import io.streamsmemory.controlplane.EnableLocalControlPlane;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.Set;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceAccessMode;
import org.junit.jupiter.api.parallel.ResourceLock;
import org.junit.jupiter.api.parallel.ResourceLocksProvider;
import org.junit.platform.commons.support.AnnotationSupport;

/**
 * An in-process class on a control plane of its own, run beside the others: no other class meets its operator, its
 * webhooks or its objects, so it need not wait its turn in the main thread. The classes of one {@link #lane()} take
 * turns on its lock; the lanes run beside each other, the main thread and the real node's (junit-platform.properties).
 * Each class starts and stops its own control plane (a few seconds, against the minute or more its tests take).
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@EnableLocalControlPlane(ownControlPlane = true)
@Execution(ExecutionMode.CONCURRENT)
@ResourceLock(providers = OnAControlPlaneOfItsOwn.Lane.class)
public @interface OnAControlPlaneOfItsOwn {

    /**
     * The lane: {@code long} for the class that takes minutes ({@code MemoryObserverTest}'s live Kafka Streams JVMs),
     * {@code short} for those that take one or two each, so that no lane takes much longer than the main thread's.
     */
    String lane() default "short";

    /** The lock of the class's lane. */
    final class Lane implements ResourceLocksProvider {
        @Override
        public Set<Lock> provideForClass(Class<?> testClass) {
            String lane = AnnotationSupport.findAnnotation(testClass, OnAControlPlaneOfItsOwn.class)
                    .map(OnAControlPlaneOfItsOwn::lane)
                    .orElse("short");
            return Set.of(new Lock("own-control-plane-" + lane, ResourceAccessMode.READ_WRITE));
        }
    }
}
