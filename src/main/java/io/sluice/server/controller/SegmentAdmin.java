package io.sluice.server.controller;

import java.nio.ByteBuffer;
import java.util.Optional;
import java.util.UUID;

/**
 * What the embedded controller asks of the embedded segment store, in-process: the same operations its wire
 * requests offer, minus the wire. Implementations are thread-safe and durable: when a method returns, its effect
 * survives a crash. Names are qualified segment names ({@code scope/stream/3.#epoch.1}).
 */
public interface SegmentAdmin {

    /**
     * Creates a stream segment.
     *
     * @param scaleType 0 = no scaling, 1 = by KB/s, 2 = by events/s (stored as the segment's policy)
     * @param targetRate the scaling target for {@code scaleType}
     * @param rolloverSizeBytes the segment's chunk rollover size, 0 for the default
     * @return false if a segment of that name already exists (nothing changed)
     */
    boolean createSegment(String name, byte scaleType, int targetRate, long rolloverSizeBytes);

    /**
     * Creates a table segment.
     *
     * @param keyLength fixed key length in bytes, or 0 for variable-length keys
     * @return false if a segment of that name already exists (nothing changed)
     */
    boolean createTableSegment(String name, int keyLength);

    /**
     * Seals a segment: it accepts no more appends; readers see its end.
     *
     * @return false if it was already sealed
     * @throws io.sluice.errors.NoSuchSegmentException if it does not exist
     */
    boolean sealSegment(String name);

    /**
     * Deletes a segment (stream or table) and its data.
     *
     * @return false if it did not exist
     */
    boolean deleteSegment(String name);

    /**
     * Truncates a segment: data before {@code offset} is dropped and reads below it answer "truncated".
     *
     * @throws io.sluice.errors.NoSuchSegmentException if it does not exist
     * @throws IllegalArgumentException if {@code offset} is beyond the segment's length
     */
    void truncateSegment(String name, long offset);

    /**
     * Appends all of {@code source}'s data to {@code target} atomically and deletes {@code source} (transaction
     * commit). The source need not be sealed.
     *
     * @return the target's length after the merge
     * @throws io.sluice.errors.NoSuchSegmentException if either does not exist
     * @throws io.sluice.errors.SegmentSealedException if the target is sealed
     */
    long mergeSegments(String target, String source);

    /**
     * Appends one event ({@code [i32 0][i32 n][n bytes]}) to a stream segment if its length is
     * {@code expectedLength} (a conditional append, as a revisioned stream client makes one). Reads {@code payload}
     * from its position to its limit without moving them.
     *
     * @return the segment's length after the append, or -1 if its length was not {@code expectedLength}
     * @throws io.sluice.errors.NoSuchSegmentException if it does not exist
     * @throws io.sluice.errors.SegmentSealedException if it is sealed
     */
    long appendEvent(String name, long expectedLength, ByteBuffer payload);

    /**
     * Reads a stream segment's bytes, without waiting for data.
     *
     * @param offset where to start (at least its start offset)
     * @param maxLength the most bytes to return
     * @return the bytes from {@code offset}, at most {@code maxLength}; empty at its length
     * @throws io.sluice.errors.NoSuchSegmentException if it does not exist
     * @throws IllegalArgumentException if {@code offset} lies before its start or beyond its length
     */
    ByteBuffer read(String name, long offset, int maxLength);

    /**
     * @return the value of a segment attribute, or {@code Long.MIN_VALUE} if it is not set
     * @throws io.sluice.errors.NoSuchSegmentException if the segment does not exist
     */
    long attribute(String name, UUID attribute);

    /**
     * Sets a segment attribute to {@code newValue} if it is {@code expected} ({@code Long.MIN_VALUE}: not set).
     *
     * @return whether it was set
     * @throws io.sluice.errors.NoSuchSegmentException if the segment does not exist
     */
    boolean compareAndSetAttribute(String name, UUID attribute, long expected, long newValue);

    /** @return the segment's current state, or empty if it does not exist */
    Optional<SegmentInfo> segmentInfo(String name);

    /**
     * A segment's state.
     *
     * @param name the qualified name
     * @param startOffset the first readable offset (0 unless truncated)
     * @param length the write offset: bytes ever appended
     * @param sealed whether it accepts appends
     * @param table whether it is a table segment
     * @param lastModifiedMillis wall-clock time of the last change
     */
    record SegmentInfo(String name, long startOffset, long length, boolean sealed, boolean table, long lastModifiedMillis) {
    }
}
