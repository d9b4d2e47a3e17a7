package io.streamsmemory.engine;

/**
 * State stores per task, by kind. A key-value store is one RocksDB instance per task; window and
 * session stores are segmented and keep {@link MemoryModel#SEGMENTS_PER_SEGMENTED_STORE} live
 * RocksDB instances each.
 */
public record StoreCounts(int keyValue, int window, int session) {
    public static final StoreCounts NONE = new StoreCounts(0, 0, 0);

    public int total() {
        return keyValue + window + session;
    }

    /** RocksDB instances one task opens for these stores. */
    public long rocksDbInstancesPerTask() {
        return keyValue + (long) MemoryModel.SEGMENTS_PER_SEGMENTED_STORE * (window + session);
    }
}
