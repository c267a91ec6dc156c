package io.sluice.table;

/**
 * The configuration of a key-value table, fixed when the table is created: how many partitions (table segments)
 * it has and how long its keys are. A key is {@code primaryKeyLength + secondaryKeyLength} bytes; the partition is
 * chosen by hashing the primary key only. Immutable value; build one with {@link #builder()}.
 *
 * @param partitionCount the number of table segments, at least 1
 * @param primaryKeyLength the primary key's length in bytes, at least 1
 * @param secondaryKeyLength the secondary key's length in bytes, 0 or more
 * @param rolloverSizeBytes the table segments' chunk size in long-term storage; 0 for the server's default
 */
public record KeyValueTableConfiguration(int partitionCount, int primaryKeyLength, int secondaryKeyLength,
                                         long rolloverSizeBytes) {

    /**
     * @throws IllegalArgumentException if a value is out of range (the rules of Pravega's Java client)
     */
    public KeyValueTableConfiguration {
        if (partitionCount <= 0) {
            throw new IllegalArgumentException("partitionCount must be positive: " + partitionCount);
        }
        if (primaryKeyLength <= 0) {
            throw new IllegalArgumentException("primaryKeyLength must be positive: " + primaryKeyLength);
        }
        if (secondaryKeyLength < 0) {
            throw new IllegalArgumentException("secondaryKeyLength must not be negative: " + secondaryKeyLength);
        }
        if (rolloverSizeBytes < 0) {
            throw new IllegalArgumentException("rolloverSizeBytes must not be negative: " + rolloverSizeBytes);
        }
    }

    /** @return a builder; partition count and primary key length must be set */
    public static Builder builder() {
        return new Builder();
    }

    /** @return the length of a whole key (primary + secondary) in bytes */
    public int totalKeyLength() {
        return primaryKeyLength + secondaryKeyLength;
    }

    /** Builds a {@link KeyValueTableConfiguration}. Not thread-safe. */
    public static final class Builder {
        private int partitionCount;
        private int primaryKeyLength;
        private int secondaryKeyLength;
        private long rolloverSizeBytes;

        private Builder() {
        }

        /**
         * @param count the number of partitions
         * @return this builder
         */
        public Builder partitionCount(int count) {
            if (count < 1) {
                throw new IllegalArgumentException("partitionCount must be at least 1: " + count);
            }
            this.partitionCount = count;
            return this;
        }

        /**
         * @param bytes the primary key length
         * @return this builder
         */
        public Builder primaryKeyLength(int bytes) {
            if (bytes < 1) {
                throw new IllegalArgumentException("primaryKeyLength must be at least 1: " + bytes);
            }
            this.primaryKeyLength = bytes;
            return this;
        }

        /**
         * @param bytes the secondary key length
         * @return this builder
         */
        public Builder secondaryKeyLength(int bytes) {
            if (bytes < 0) {
                throw new IllegalArgumentException("secondaryKeyLength must not be negative: " + bytes);
            }
            this.secondaryKeyLength = bytes;
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
         * @throws IllegalArgumentException if a value is out of range
         */
        public KeyValueTableConfiguration build() {
            return new KeyValueTableConfiguration(partitionCount, primaryKeyLength, secondaryKeyLength,
                    rolloverSizeBytes);
        }
    }
}
