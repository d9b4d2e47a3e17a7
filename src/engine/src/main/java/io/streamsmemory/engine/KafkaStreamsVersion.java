package io.streamsmemory.engine;

import io.streamsmemory.protocol.StreamsConfigKeys;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The Kafka Streams version an application runs, as far as it changes config key names. */
public record KafkaStreamsVersion(int major, int minor) implements Comparable<KafkaStreamsVersion> {
    public static final String DEFAULT = "4.4";
    private static final Pattern VERSION = Pattern.compile("^(\\d+)\\.(\\d+)(?:\\.\\d+)?(?:[-.].*)?$");

    /** Returns null when the text is not a version. */
    public static KafkaStreamsVersion parse(String text) {
        if (text == null) {
            return null;
        }
        Matcher matcher = VERSION.matcher(text.trim());
        if (!matcher.matches()) {
            return null;
        }
        return new KafkaStreamsVersion(Integer.parseInt(matcher.group(1)), Integer.parseInt(matcher.group(2)));
    }

    @Override
    public int compareTo(KafkaStreamsVersion other) {
        return major != other.major ? Integer.compare(major, other.major) : Integer.compare(minor, other.minor);
    }

    /** {@code major.minor}, as a policy's spec.streams.kafkaStreamsVersion states it. */
    @Override
    public String toString() {
        return major + "." + minor;
    }

    /** KIP-892: {@code enable.transactional.statestores} and {@code statestore.uncommitted.max.bytes} from 4.4. */
    public boolean hasTransactionalStateStores() {
        return major > 4 || (major == 4 && minor >= 4);
    }

    /** KIP-770 renamed {@code cache.max.bytes.buffering} to {@code statestore.cache.max.bytes} in 3.4. */
    public String recordCacheKey() {
        boolean renamed = major > 3 || (major == 3 && minor >= 4);
        return renamed ? StreamsConfigKeys.STATESTORE_CACHE_MAX_BYTES : StreamsConfigKeys.CACHE_MAX_BYTES_BUFFERING;
    }
}
