package io.sluice.stream;

import java.util.Objects;

/**
 * One segment of a stream: scope, stream and the 64-bit segment id, which holds the epoch that created the
 * segment in its high 32 bits and the segment number in its low 32 bits (docs/controller.md §2). Immutable value,
 * ordered by scope, stream, then id.
 *
 * <p>The stream part is not checked against the stream naming rule because segments of key-value tables live in
 * streams named {@code <table>_kvtable}; it must only be non-empty and free of {@code '/'}.
 *
 * @param scope the scope
 * @param stream the stream (or {@code <table>_kvtable} for key-value table segments)
 * @param segmentId {@code (epoch << 32) | number}
 */
public record Segment(String scope, String stream, long segmentId) implements Comparable<Segment> {

    private static final String EPOCH_DELIMITER = ".#epoch.";
    private static final String TRANSACTION_DELIMITER = "#transaction.";
    private static final int TRANSACTION_ID_LENGTH = 32;

    /**
     * @throws IllegalArgumentException if scope or stream is empty or contains {@code '/'}, or the segment number or
     *     epoch is negative
     */
    public Segment {
        checkPart("scope", scope);
        checkPart("stream", stream);
        if ((int) segmentId < 0 || (int) (segmentId >> 32) < 0) {
            throw new IllegalArgumentException("segment id " + segmentId + " has a negative segment number ("
                    + (int) segmentId + ") or epoch (" + (int) (segmentId >> 32) + ")");
        }
    }

    /**
     * @param stream the stream
     * @param number the segment number, from 0
     * @param epoch the epoch that created the segment, from 0
     * @return the segment
     */
    public static Segment of(ScopedStream stream, int number, int epoch) {
        return new Segment(stream.scope(), stream.name(), segmentId(number, epoch));
    }

    /**
     * @param stream the stream
     * @param segmentId the 64-bit segment id
     * @return the segment
     */
    public static Segment of(ScopedStream stream, long segmentId) {
        return new Segment(stream.scope(), stream.name(), segmentId);
    }

    /**
     * @param number the segment number, from 0
     * @param epoch the epoch, from 0
     * @return {@code (epoch << 32) | number}
     * @throws IllegalArgumentException if either is negative
     */
    public static long segmentId(int number, int epoch) {
        if (number < 0 || epoch < 0) {
            throw new IllegalArgumentException("segment number and epoch must not be negative: number " + number
                    + ", epoch " + epoch);
        }
        return ((long) epoch << 32) | (number & 0xFFFFFFFFL);
    }

    /**
     * Parses a qualified segment name: {@code scope/stream/N.#epoch.E}, or the legacy {@code scope/stream/N} (epoch
     * 0). A transaction suffix ({@code #transaction.} and 32 hex digits) is stripped first, so a transaction segment
     * parses as its parent segment.
     *
     * @param qualifiedName the name
     * @return the segment
     * @throws IllegalArgumentException naming what is wrong with {@code qualifiedName}
     */
    public static Segment parse(String qualifiedName) {
        Objects.requireNonNull(qualifiedName, "qualifiedName");
        String name = qualifiedName;
        int txn = name.lastIndexOf(TRANSACTION_DELIMITER);
        if (txn >= 0 && txn + TRANSACTION_DELIMITER.length() + TRANSACTION_ID_LENGTH <= name.length()) {
            name = name.substring(0, txn);
        }
        String[] parts = name.split("/", -1);
        if (parts.length != 3) {
            throw new IllegalArgumentException("'" + qualifiedName + "' is not a qualified segment name: expected "
                    + "scope/stream/number.#epoch.epoch or scope/stream/number");
        }
        String id = parts[2];
        int delimiter = id.indexOf(EPOCH_DELIMITER);
        String number = delimiter < 0 ? id : id.substring(0, delimiter);
        String epoch = delimiter < 0 ? "0" : id.substring(delimiter + EPOCH_DELIMITER.length());
        return new Segment(parts[0], parts[1], segmentId(parseInt(qualifiedName, "segment number", number),
                parseInt(qualifiedName, "epoch", epoch)));
    }

    /** @return the segment number (low 32 bits of the id) */
    public int number() {
        return (int) segmentId;
    }

    /** @return the epoch that created this segment (high 32 bits of the id) */
    public int epoch() {
        return (int) (segmentId >> 32);
    }

    /** @return {@code scope/stream/number.#epoch.epoch}, the name the segment store knows */
    public String qualifiedName() {
        return scope + "/" + stream + "/" + number() + EPOCH_DELIMITER + epoch();
    }

    /**
     * @return the stream this segment belongs to
     * @throws IllegalArgumentException if the stream part is not a valid stream name (key-value table segments)
     */
    public ScopedStream scopedStream() {
        return new ScopedStream(scope, stream);
    }

    /**
     * @param other another segment
     * @return true if both belong to the same scope and stream
     */
    public boolean sameStream(Segment other) {
        return scope.equals(other.scope) && stream.equals(other.stream);
    }

    @Override
    public int compareTo(Segment o) {
        int c = scope.compareTo(o.scope);
        if (c == 0) {
            c = stream.compareTo(o.stream);
        }
        return c != 0 ? c : Long.compare(segmentId, o.segmentId);
    }

    /** @return the qualified name */
    @Override
    public String toString() {
        return qualifiedName();
    }

    private static void checkPart(String what, String value) {
        Objects.requireNonNull(value, what);
        if (value.isEmpty() || value.indexOf('/') >= 0) {
            throw new IllegalArgumentException("segment " + what + " '" + value
                    + "' must be non-empty and free of '/'");
        }
    }

    private static int parseInt(String qualifiedName, String what, String digits) {
        if (digits.isEmpty() || digits.length() > 10 || !digits.chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw new IllegalArgumentException("'" + qualifiedName + "' is not a qualified segment name: " + what
                    + " '" + digits + "' is not a non-negative integer");
        }
        long value = Long.parseLong(digits);
        if (value > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("'" + qualifiedName + "': " + what + " " + digits + " is too large");
        }
        return (int) value;
    }
}
