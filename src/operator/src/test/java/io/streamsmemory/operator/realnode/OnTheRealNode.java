package io.streamsmemory.operator.realnode;

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
 * A test class on the local real node. The real-node classes share one control plane with a real node (one class at a
 * time: the lock), and run beside the operator's other classes rather than after them: their pods do their work on
 * the node (a broker, applications, the operator's own pod) while the in-process classes run in the test JVM's main
 * thread, one after another, and the {@link io.streamsmemory.operator.OnAControlPlaneOfItsOwn} classes in a third lane
 * (JUnit's parallel execution, junit-platform.properties). Holding the lock also keeps each class's own tests in one
 * thread, in their order. The operator's chart is installed once, before the first of them ({@link
 * OperatorChart.Installed}).
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@EnableLocalControlPlane(
        realNode = true,
        registry = true,
        startTimeoutSeconds = 180,
        fixture = OperatorChart.Installed.class)
@Execution(ExecutionMode.CONCURRENT)
@ResourceLock("real-node")
@interface OnTheRealNode {}
