package io.streamsmemory.operator;

import io.streamsmemory.controlplane.EnableLocalControlPlane;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * A long in-process class on a control plane of its own, run beside the others: no other class meets its operator,
 * its webhooks or its objects, so it need not wait its turn in the main thread. These classes take turns on their lock
 * (a third lane beside the main thread and the real node's, junit-platform.properties); each starts and stops its own
 * control plane (a few seconds, against the minutes its tests take). A class that needs more parts names them in its
 * own {@code @EnableLocalControlPlane(ownControlPlane = true, ...)}, which JUnit finds before this one's (the fault
 * suite).
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@EnableLocalControlPlane(ownControlPlane = true)
@Execution(ExecutionMode.CONCURRENT)
@ResourceLock("own-control-plane")
public @interface OnAControlPlaneOfItsOwn {}
