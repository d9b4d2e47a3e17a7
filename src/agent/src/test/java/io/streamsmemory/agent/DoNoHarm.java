package io.streamsmemory.agent;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The issue's do-no-harm accounting: a test that proves one of its cases writes one line to
 * {@code target/do-no-harm/<TestClass>.<method>.tsv}, tab-separated {@code case<N>}, the test's name,
 * {@code started=<true|false>} (the application JVM came up and processed records) and {@code settings_lost=<n>}
 * (application settings the agent changed although it should not have, as the test checked them). Call it after the
 * test's assertions, with values the test measured; the root build aggregates the files.
 */
public final class DoNoHarm {
    private DoNoHarm() {}

    public static void record(int issueCase, Class<?> testClass, String method, boolean started, int settingsLost) {
        Path dir = Path.of(System.getProperty("streamsmemory.buildDir", "target"), "do-no-harm");
        String name = testClass.getSimpleName() + "." + method;
        String line =
                "case" + issueCase + "\t" + name + "\tstarted=" + started + "\tsettings_lost=" + settingsLost + "\n";
        try {
            Files.createDirectories(dir);
            Files.writeString(dir.resolve(name.replaceAll("[^A-Za-z0-9._-]", "_") + ".tsv"), line);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
