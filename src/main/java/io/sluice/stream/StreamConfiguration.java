package io.sluice.stream;

import java.time.Duration;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.Objects;
import java.util.Set;

/**
 * The configuration of a stream: scaling, retention, tags, watermark aggregation and segment rollover size.
 * Immutable value; build one with {@link #builder()}.
 *
 * <pre>{@code
 * StreamConfiguration config = StreamConfiguration.builder()
 *         .scalingPolicy(ScalingPolicy.fixed(4))
 *         .retentionPolicy(RetentionPolicy.byTime(Duration.ofDays(7)))
 *         .tag("orders")
 *         .build();
 * }</pre>
 *
 * @param scalingPolicy how many segments, and automatic scaling; default {@code ScalingPolicy.fixed(1)}
 * @param retentionPolicy how much data to keep; default {@link RetentionPolicy#NONE}
 * @param tags labels for {@code listStreams(scope, tag)}; fewer than {@value #MAX_TAGS} tags, each shorter than
 *     {@value #MAX_TAG_LENGTH} characters (Pravega's limits); insertion order kept, duplicates dropped
 * @param timestampAggregationTimeout how long the controller waits for writers' times before it computes a
 *     watermark without them; {@link Duration#ZERO} for the controller's default. Millisecond precision on the wire
 * @param rolloverSizeBytes the segments' chunk size in long-term storage; 0 for the server's default
 */
public record StreamConfiguration(ScalingPolicy scalingPolicy, RetentionPolicy retentionPolicy, Set<String> tags,
                                  Duration timestampAggregationTimeout, long rolloverSizeBytes) {

    /** Pravega rejects this many tags or more. */
    public static final int MAX_TAGS = 128;
    /** Pravega rejects tags this long or longer. */
    public static final int MAX_TAG_LENGTH = 256;

    /**
     * @throws IllegalArgumentException if a limit is broken or a value is negative
     */
    public StreamConfiguration {
        Objects.requireNonNull(scalingPolicy, "scalingPolicy");
        Objects.requireNonNull(retentionPolicy, "retentionPolicy");
        Objects.requireNonNull(tags, "tags");
        Objects.requireNonNull(timestampAggregationTimeout, "timestampAggregationTimeout");
        tags = copyTags(tags);
        if (timestampAggregationTimeout.isNegative()) {
            throw new IllegalArgumentException("timestampAggregationTimeout must not be negative: "
                    + timestampAggregationTimeout);
        }
        if (rolloverSizeBytes < 0) {
            throw new IllegalArgumentException("rolloverSizeBytes must not be negative: " + rolloverSizeBytes);
        }
    }

    /** @return a builder with the defaults: one fixed segment, no retention, no tags */
    public static Builder builder() {
        return new Builder();
    }

    /** @return a builder starting from this configuration */
    public Builder toBuilder() {
        return new Builder().scalingPolicy(scalingPolicy).retentionPolicy(retentionPolicy).tags(tags)
                .timestampAggregationTimeout(timestampAggregationTimeout).rolloverSizeBytes(rolloverSizeBytes);
    }

    private static Set<String> copyTags(Collection<String> tags) {
        LinkedHashSet<String> copy = new LinkedHashSet<>();
        for (String tag : tags) {
            Objects.requireNonNull(tag, "tag");
            if (tag.length() >= MAX_TAG_LENGTH) {
                throw new IllegalArgumentException("stream tag '" + tag.substring(0, 20) + "...' is " + tag.length()
                        + " characters long; tags must be shorter than " + MAX_TAG_LENGTH);
            }
            copy.add(tag);
        }
        if (copy.size() >= MAX_TAGS) {
            throw new IllegalArgumentException("a stream can carry at most " + (MAX_TAGS - 1) + " tags, not "
                    + copy.size());
        }
        return Collections.unmodifiableSequencedSet(copy);
    }

    /** Builds a {@link StreamConfiguration}. Not thread-safe. */
    public static final class Builder {
        private ScalingPolicy scalingPolicy = ScalingPolicy.fixed(1);
        private RetentionPolicy retentionPolicy = RetentionPolicy.NONE;
        private final Set<String> tags = new LinkedHashSet<>();
        private Duration timestampAggregationTimeout = Duration.ZERO;
        private long rolloverSizeBytes;

        private Builder() {
        }

        /**
         * @param policy the scaling policy
         * @return this builder
         */
        public Builder scalingPolicy(ScalingPolicy policy) {
            this.scalingPolicy = Objects.requireNonNull(policy, "policy");
            return this;
        }

        /**
         * @param policy the retention policy ({@link RetentionPolicy#NONE} for none)
         * @return this builder
         */
        public Builder retentionPolicy(RetentionPolicy policy) {
            this.retentionPolicy = Objects.requireNonNull(policy, "policy");
            return this;
        }

        /**
         * @param tag a tag to add
         * @return this builder
         */
        public Builder tag(String tag) {
            tags.add(Objects.requireNonNull(tag, "tag"));
            return this;
        }

        /**
         * @param tags the tags, replacing any added before
         * @return this builder
         */
        public Builder tags(Collection<String> tags) {
            Objects.requireNonNull(tags, "tags");
            this.tags.clear();
            tags.forEach(this::tag);
            return this;
        }

        /**
         * @param timeout the watermark aggregation timeout
         * @return this builder
         */
        public Builder timestampAggregationTimeout(Duration timeout) {
            Objects.requireNonNull(timeout, "timeout");
            if (timeout.isNegative()) {
                throw new IllegalArgumentException("timestampAggregationTimeout must not be negative: " + timeout);
            }
            this.timestampAggregationTimeout = timeout;
            return this;
        }

        /**
         * @param bytes the rollover size, 0 for the server's default
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
         * @throws IllegalArgumentException if a limit is broken
         */
        public StreamConfiguration build() {
            return new StreamConfiguration(scalingPolicy, retentionPolicy, tags, timestampAggregationTimeout,
                    rolloverSizeBytes);
        }
    }
}
