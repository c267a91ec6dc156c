package io.sluice.stream;

import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.UUID;

/**
 * The configuration of a reader group: which streams it reads from where to where, how often readers refresh the
 * group state, automatic checkpoints and consumption-based retention. Every field of the controller's
 * {@code ReaderGroupConfiguration} message is here; the defaults are the Java client's. Immutable value; build one
 * with {@link #builder()}.
 *
 * <pre>{@code
 * ReaderGroupConfig config = ReaderGroupConfig.builder()
 *         .stream(ScopedStream.of("examples", "orders"))
 *         .disableAutomaticCheckpoints()
 *         .build();
 * }</pre>
 *
 * @param groupRefreshTimeMillis how often readers re-read the group state; default {@value #DEFAULT_REFRESH_MILLIS}
 * @param automaticCheckpointIntervalMillis interval of automatic checkpoints; default
 *     {@value #DEFAULT_CHECKPOINT_MILLIS}; negative (e.g. -1) disables them
 * @param startingStreamCuts each stream the group reads and where to start ({@link StreamCut#UNBOUNDED}: the head)
 * @param endingStreamCuts where to stop, for some of those streams ({@link StreamCut#UNBOUNDED}: never)
 * @param maxOutstandingCheckpointRequest how many checkpoints may be in progress at once; default
 *     {@value #DEFAULT_MAX_OUTSTANDING_CHECKPOINTS}
 * @param retentionType whether and how the group's position holds back the streams' retention
 * @param generation the configuration's generation, assigned by the controller; {@value #DEFAULT_GENERATION} before
 * @param readerGroupId the group's id, assigned by the controller; {@link #DEFAULT_READER_GROUP_ID} before
 * @param rolloverSizeBytes chunk size of the group's state stream in long-term storage; 0 for the server's default
 */
public record ReaderGroupConfig(long groupRefreshTimeMillis, long automaticCheckpointIntervalMillis,
                                SortedMap<ScopedStream, StreamCut> startingStreamCuts,
                                SortedMap<ScopedStream, StreamCut> endingStreamCuts,
                                int maxOutstandingCheckpointRequest, StreamDataRetention retentionType,
                                long generation, UUID readerGroupId, long rolloverSizeBytes) {

    /** Default reader refresh interval in milliseconds. */
    public static final long DEFAULT_REFRESH_MILLIS = 3000;
    /** Default automatic checkpoint interval in milliseconds. */
    public static final long DEFAULT_CHECKPOINT_MILLIS = 30000;
    /** Default limit of checkpoints in progress. */
    public static final int DEFAULT_MAX_OUTSTANDING_CHECKPOINTS = 3;
    /** Generation of a configuration the controller has not seen yet. */
    public static final long DEFAULT_GENERATION = -1;
    /** Id of a group the controller has not created yet. */
    public static final UUID DEFAULT_READER_GROUP_ID = new UUID(0, 0);

    /**
     * Whether a reader group's position holds back stream retention (consumption-based retention). The order is
     * part of the controller API: the ordinal travels as {@code retentionType}.
     */
    public enum StreamDataRetention {
        /** The group's position does not affect retention. */
        NONE,
        /** The application reports the position up to which data may be released. */
        MANUAL_RELEASE_AT_USER_STREAMCUT,
        /** Data up to the last completed checkpoint may be released. */
        AUTOMATIC_RELEASE_AT_LAST_CHECKPOINT
    }

    /**
     * @throws IllegalArgumentException if there is no stream, a cut belongs to another stream, an ending cut has no
     *     starting cut or lies before it, or a number is out of range
     */
    public ReaderGroupConfig {
        Objects.requireNonNull(startingStreamCuts, "startingStreamCuts");
        Objects.requireNonNull(endingStreamCuts, "endingStreamCuts");
        Objects.requireNonNull(retentionType, "retentionType");
        Objects.requireNonNull(readerGroupId, "readerGroupId");
        if (startingStreamCuts.isEmpty()) {
            throw new IllegalArgumentException("a reader group must read at least one stream");
        }
        startingStreamCuts = copyCuts("starting", startingStreamCuts);
        endingStreamCuts = copyCuts("ending", endingStreamCuts);
        for (Map.Entry<ScopedStream, StreamCut> e : endingStreamCuts.entrySet()) {
            StreamCut start = startingStreamCuts.get(e.getKey());
            if (start == null) {
                throw new IllegalArgumentException("reader group has an ending stream cut for " + e.getKey()
                        + " but does not read that stream");
            }
            checkStartBeforeEnd(e.getKey(), start, e.getValue());
        }
        if (groupRefreshTimeMillis < 0) {
            throw new IllegalArgumentException("groupRefreshTimeMillis must not be negative: "
                    + groupRefreshTimeMillis);
        }
        if (maxOutstandingCheckpointRequest <= 0) {
            throw new IllegalArgumentException("maxOutstandingCheckpointRequest must be positive: "
                    + maxOutstandingCheckpointRequest);
        }
        if (rolloverSizeBytes < 0) {
            throw new IllegalArgumentException("rolloverSizeBytes must not be negative: " + rolloverSizeBytes);
        }
    }

    /** @return a builder with the Java client's defaults and no streams yet */
    public static Builder builder() {
        return new Builder();
    }

    /** @return a builder starting from this configuration */
    public Builder toBuilder() {
        Builder b = new Builder().groupRefreshTimeMillis(groupRefreshTimeMillis)
                .automaticCheckpointIntervalMillis(automaticCheckpointIntervalMillis)
                .maxOutstandingCheckpointRequest(maxOutstandingCheckpointRequest).retentionType(retentionType)
                .generation(generation).readerGroupId(readerGroupId).rolloverSizeBytes(rolloverSizeBytes);
        b.starting.putAll(startingStreamCuts);
        b.ending.putAll(endingStreamCuts);
        return b;
    }

    /**
     * @param id the id the controller assigned
     * @param newGeneration the generation the controller assigned
     * @return this configuration with another identity
     */
    public ReaderGroupConfig withIdentity(UUID id, long newGeneration) {
        return new ReaderGroupConfig(groupRefreshTimeMillis, automaticCheckpointIntervalMillis, startingStreamCuts,
                endingStreamCuts, maxOutstandingCheckpointRequest, retentionType, newGeneration, id, rolloverSizeBytes);
    }

    /** @return true if automatic checkpoints are enabled */
    public boolean automaticCheckpoints() {
        return automaticCheckpointIntervalMillis >= 0;
    }

    private static SortedMap<ScopedStream, StreamCut> copyCuts(String which, Map<ScopedStream, StreamCut> cuts) {
        TreeMap<ScopedStream, StreamCut> copy = new TreeMap<>();
        cuts.forEach((stream, cut) -> {
            Objects.requireNonNull(stream, "stream");
            Objects.requireNonNull(cut, () -> which + " stream cut of " + stream);
            if (!cut.isFor(stream)) {
                throw new IllegalArgumentException(which + " stream cut " + cut + " does not belong to stream "
                        + stream);
            }
            copy.put(stream, cut);
        });
        return Collections.unmodifiableSortedMap(copy);
    }

    private static void checkStartBeforeEnd(ScopedStream stream, StreamCut start, StreamCut end) {
        start.positions().forEach((segment, startOffset) -> {
            Long endOffset = end.positions().get(segment);
            if (endOffset != null && endOffset < startOffset) {
                throw new IllegalArgumentException("reader group ending stream cut of " + stream + " lies before its "
                        + "starting cut: segment " + segment + " starts at " + startOffset + " but ends at "
                        + endOffset);
            }
        });
    }

    /** Builds a {@link ReaderGroupConfig}. Not thread-safe. */
    public static final class Builder {
        private long groupRefreshTimeMillis = DEFAULT_REFRESH_MILLIS;
        private long automaticCheckpointIntervalMillis = DEFAULT_CHECKPOINT_MILLIS;
        private final TreeMap<ScopedStream, StreamCut> starting = new TreeMap<>();
        private final TreeMap<ScopedStream, StreamCut> ending = new TreeMap<>();
        private int maxOutstandingCheckpointRequest = DEFAULT_MAX_OUTSTANDING_CHECKPOINTS;
        private StreamDataRetention retentionType = StreamDataRetention.NONE;
        private long generation = DEFAULT_GENERATION;
        private UUID readerGroupId = DEFAULT_READER_GROUP_ID;
        private long rolloverSizeBytes;

        private Builder() {
        }

        /**
         * Reads {@code stream} from its head, without end.
         *
         * @param stream the stream
         * @return this builder
         */
        public Builder stream(ScopedStream stream) {
            return stream(stream, StreamCut.UNBOUNDED, StreamCut.UNBOUNDED);
        }

        /**
         * @param scopedName the stream as {@code scope/stream}
         * @return this builder
         */
        public Builder stream(String scopedName) {
            return stream(ScopedStream.parse(scopedName));
        }

        /**
         * @param stream the stream
         * @param start where to start
         * @return this builder
         */
        public Builder stream(ScopedStream stream, StreamCut start) {
            return stream(stream, start, StreamCut.UNBOUNDED);
        }

        /**
         * @param stream the stream
         * @param start where to start
         * @param end where to stop
         * @return this builder
         */
        public Builder stream(ScopedStream stream, StreamCut start, StreamCut end) {
            Objects.requireNonNull(stream, "stream");
            starting.put(stream, Objects.requireNonNull(start, "start"));
            ending.put(stream, Objects.requireNonNull(end, "end"));
            return this;
        }

        /**
         * @param cuts the streams to read and where to start, replacing those set before
         * @return this builder
         */
        public Builder startingStreamCuts(Map<ScopedStream, StreamCut> cuts) {
            Objects.requireNonNull(cuts, "cuts");
            starting.clear();
            starting.putAll(cuts);
            return this;
        }

        /**
         * @param cuts where to stop, replacing the ending cuts set before
         * @return this builder
         */
        public Builder endingStreamCuts(Map<ScopedStream, StreamCut> cuts) {
            Objects.requireNonNull(cuts, "cuts");
            ending.clear();
            ending.putAll(cuts);
            return this;
        }

        /**
         * @param millis how often readers re-read the group state
         * @return this builder
         */
        public Builder groupRefreshTimeMillis(long millis) {
            if (millis < 0) {
                throw new IllegalArgumentException("groupRefreshTimeMillis must not be negative: " + millis);
            }
            this.groupRefreshTimeMillis = millis;
            return this;
        }

        /**
         * @param millis interval of automatic checkpoints; negative disables them
         * @return this builder
         */
        public Builder automaticCheckpointIntervalMillis(long millis) {
            this.automaticCheckpointIntervalMillis = millis;
            return this;
        }

        /** @return this builder, with automatic checkpoints disabled (interval -1) */
        public Builder disableAutomaticCheckpoints() {
            return automaticCheckpointIntervalMillis(-1);
        }

        /**
         * @param max checkpoints that may be in progress at once
         * @return this builder
         */
        public Builder maxOutstandingCheckpointRequest(int max) {
            if (max <= 0) {
                throw new IllegalArgumentException("maxOutstandingCheckpointRequest must be positive: " + max);
            }
            this.maxOutstandingCheckpointRequest = max;
            return this;
        }

        /**
         * @param type consumption-based retention
         * @return this builder
         */
        public Builder retentionType(StreamDataRetention type) {
            this.retentionType = Objects.requireNonNull(type, "type");
            return this;
        }

        /**
         * @param generation normally assigned by the controller
         * @return this builder
         */
        public Builder generation(long generation) {
            this.generation = generation;
            return this;
        }

        /**
         * @param id normally assigned by the controller
         * @return this builder
         */
        public Builder readerGroupId(UUID id) {
            this.readerGroupId = Objects.requireNonNull(id, "id");
            return this;
        }

        /**
         * @param bytes chunk size of the state stream, 0 for the server's default
         * @return this builder
         */
        public Builder rolloverSizeBytes(long bytes) {
            if (bytes < 0) {
                throw new IllegalArgumentException("rolloverSizeBytes must not be negative: " + bytes);
            }
            this.rolloverSizeBytes = bytes;
            return this;
        }

        /**
         * @return the configuration
         * @throws IllegalArgumentException if the configuration is inconsistent (see the record's constructor)
         */
        public ReaderGroupConfig build() {
            return new ReaderGroupConfig(groupRefreshTimeMillis, automaticCheckpointIntervalMillis, starting, ending,
                    maxOutstandingCheckpointRequest, retentionType, generation, readerGroupId, rolloverSizeBytes);
        }
    }
}
