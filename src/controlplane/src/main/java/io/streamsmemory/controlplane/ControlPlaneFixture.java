package io.streamsmemory.controlplane;

/**
 * What every class on a shared control plane uses and none should install again (an operator installed by its chart,
 * say): installed once, right after the control plane starts and before any class's footprint is taken, so it stays
 * for the whole test JVM. Named by {@link EnableLocalControlPlane#fixture()}; implementations have a no-argument
 * constructor.
 */
public interface ControlPlaneFixture {

    /** Installs the fixture; an exception stops the control plane and fails the class that asked for it. */
    void install(LocalControlPlane controlPlane) throws Exception;

    /** No fixture: the default. */
    final class None implements ControlPlaneFixture {
        @Override
        public void install(LocalControlPlane controlPlane) {}
    }
}
