package io.streamsmemory.operator.workload;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * Fits the names of users' objects into the shorter names and label values the operator derives from them.
 * What does not fit keeps a readable prefix and gets a short hash of the whole, so it stays unique and valid
 * instead of being refused by the API server.
 */
final class KubernetesNames {
    /** A label value: at most 63 characters, alphanumeric at both ends. */
    static final int MAX_LABEL_VALUE = 63;
    /** An object name (DNS subdomain): at most 253 characters. */
    static final int MAX_NAME = 253;
    /** Hex characters of SHA-256 kept: 40 bits, enough to keep a namespace's names apart. */
    private static final int HASH_CHARS = 10;

    private KubernetesNames() {}

    /** {@code value} itself when it is a valid label value, else a prefix of it, '-' and a hash of it. */
    static String labelValue(String value) {
        if (value.length() <= MAX_LABEL_VALUE) {
            return value;
        }
        return fitted(value, "", MAX_LABEL_VALUE);
    }

    /** {@code name + suffix} when it is short enough for an object name, else a prefix of name, a hash and suffix. */
    static String withSuffix(String name, String suffix) {
        if (name.length() + suffix.length() <= MAX_NAME) {
            return name + suffix;
        }
        return fitted(name, suffix, MAX_NAME);
    }

    private static String fitted(String value, String suffix, int max) {
        String prefix = value.substring(0, max - suffix.length() - HASH_CHARS - 1);
        // The prefix must end like a name part does (alphanumeric), never with '-', '.' or '_'.
        prefix = prefix.replaceAll("[^A-Za-z0-9]+$", "");
        return prefix + "-" + hash(value) + suffix;
    }

    private static String hash(String value) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(value.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest).substring(0, HASH_CHARS);
        } catch (NoSuchAlgorithmException impossible) {
            throw new IllegalStateException("every JVM has SHA-256", impossible);
        }
    }
}
