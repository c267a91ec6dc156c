package io.sluice.server.controller;

import java.util.UUID;
import java.util.regex.Pattern;

/**
 * Pravega's naming rules and name formats, as the controller needs them (NameUtils in Pravega). Pure functions.
 */
final class Names {
    /** Prefix of a reader group's state stream. */
    static final String RG_STREAM_PREFIX = "_RG";
    /** Prefix of a stream's watermark stream. */
    static final String MARK_STREAM_PREFIX = "_MARK";
    /** Suffix that turns a key-value table name into the "stream" part of its segment names. */
    static final String KVTABLE_SUFFIX = "_kvtable";
    /** Longest scope or internal stream name. */
    static final int MAX_NAME_LENGTH = 255;
    /** Longest user-given name (reader groups, key-value tables): 255 minus room for a 5-character prefix. */
    static final int MAX_USER_NAME_LENGTH = MAX_NAME_LENGTH - 5;

    private static final Pattern USER_NAME = Pattern.compile("[\\p{Alnum}.\\-]+");
    private static final Pattern NAME_WITH_INTERNAL_PREFIX = Pattern.compile("_?[\\p{Alnum}.\\-]+");
    private static final String EPOCH_DELIMITER = ".#epoch.";
    private static final String TRANSACTION_DELIMITER = "#transaction.";

    private Names() {
    }

    /**
     * The rule the controller applies to scope and stream names (Pravega's {@code validateStreamName}): letters,
     * digits, '.' and '-', optionally after one leading '_' (internal names), at most 255 characters.
     */
    static boolean isValidStreamOrScopeName(String name) {
        return name != null && name.length() <= MAX_NAME_LENGTH && NAME_WITH_INTERNAL_PREFIX.matcher(name).matches();
    }

    /**
     * The rule for names users give reader groups and key-value tables: letters, digits, '.' and '-', at most 250
     * characters.
     */
    static boolean isValidUserName(String name) {
        return name != null && name.length() <= MAX_USER_NAME_LENGTH && USER_NAME.matcher(name).matches();
    }

    /** @return {@code (epoch << 32) | number} */
    static long segmentId(int number, int epoch) {
        return ((long) epoch << 32) | (number & 0xFFFFFFFFL);
    }

    /** @return the low 32 bits of a segment id */
    static int segmentNumber(long segmentId) {
        return (int) segmentId;
    }

    /** @return the high 32 bits of a segment id */
    static int epoch(long segmentId) {
        return (int) (segmentId >> 32);
    }

    /** @return {@code scope/stream/number.#epoch.epoch} */
    static String segmentName(String scope, String stream, long segmentId) {
        return scope + "/" + stream + "/" + segmentNumber(segmentId) + EPOCH_DELIMITER + epoch(segmentId);
    }

    /**
     * A transaction segment's name: the parent's name with the transaction's epoch in place of the parent's epoch
     * (so every transaction segment of a segment number merges the same way), then {@code #transaction.} and the
     * transaction id as 32 hex digits.
     */
    static String txnSegmentName(String scope, String stream, int segmentNumber, UUID txnId) {
        int txnEpoch = txnEpoch(txnId);
        return segmentName(scope, stream, segmentId(segmentNumber, txnEpoch)) + TRANSACTION_DELIMITER
                + String.format("%016x%016x", txnId.getMostSignificantBits(), txnId.getLeastSignificantBits());
    }

    /** @return the epoch a transaction was created in: the high 32 bits of its most significant half */
    static int txnEpoch(UUID txnId) {
        return (int) (txnId.getMostSignificantBits() >> 32);
    }

    /** @return a key-value table segment's name, {@code scope/kvt_kvtable/number.#epoch.epoch} */
    static String kvtSegmentName(String scope, String kvt, long segmentId) {
        return segmentName(scope, kvt + KVTABLE_SUFFIX, segmentId);
    }

    /** @return the name of a reader group's state stream */
    static String readerGroupStream(String readerGroup) {
        return RG_STREAM_PREFIX + readerGroup;
    }

    /** @return the name of a stream's watermark stream */
    static String markStream(String stream) {
        return MARK_STREAM_PREFIX + stream;
    }

    /** @return {@code scope/name} */
    static String scoped(String scope, String name) {
        return scope + "/" + name;
    }
}
