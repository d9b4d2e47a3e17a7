package io.streamsmemory.operator.reconcile.decide;

import java.util.List;

/**
 * Keeps a condition message short whatever the number of workloads: a message lists the first few findings and
 * counts the rest ("...; and 2995 more"), and no message exceeds {@link #MAX_CHARS}. The policy is one object
 * (etcd holds it to 1.5 MiB) and {@code kubectl describe} shows every message whole; every workload's own detail
 * stays in its ConfigMap and its Events.
 */
public final class BoundedMessages {
    /** Findings a message lists; the others are counted. */
    static final int MAX_LISTED = 5;
    /** One listed finding is cut here, so the listed ones and the message's own words stay under MAX_CHARS. */
    static final int MAX_FINDING_CHARS = 500;
    /** The longest condition message (Kubernetes' own metav1.Condition allows 32768; a screenful is enough). */
    static final int MAX_CHARS = 4096;

    private static final String CUT = "...";

    private BoundedMessages() {}

    /** The first {@link #MAX_LISTED} findings joined with "; ", then "and N more" when there are others. */
    static String join(List<String> findings) {
        StringBuilder message = new StringBuilder();
        findings.stream()
                .limit(MAX_LISTED)
                .forEach(finding ->
                        message.append(message.isEmpty() ? "" : "; ").append(cut(finding, MAX_FINDING_CHARS)));
        if (findings.size() > MAX_LISTED) {
            message.append("; and ").append(findings.size() - MAX_LISTED).append(" more");
        }
        return message.toString();
    }

    /** {@code message} cut to {@link #MAX_CHARS}. */
    static String cap(String message) {
        return cut(message, MAX_CHARS);
    }

    private static String cut(String text, int max) {
        return text == null || text.length() <= max ? text : text.substring(0, max - CUT.length()) + CUT;
    }
}
