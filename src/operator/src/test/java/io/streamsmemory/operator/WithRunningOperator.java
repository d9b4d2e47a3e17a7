package io.streamsmemory.operator;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Installs the CRD and starts the operator's reconciler ({@link RunningOperator#start(io.fabric8.kubernetes.client.
 * KubernetesClient)}) against the test class's local control plane, and stops it after all its tests; a field of type
 * {@link RunningOperator}, if the class has one, receives it. Put it after {@code @EnableLocalControlPlane} (whose client it uses) on a
 * class with {@code @TestInstance(PER_CLASS)}.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@ExtendWith(RunningOperatorExtension.class)
public @interface WithRunningOperator {}
