package io.sluice.bytestream;

import java.io.InputStream;

/**
 * Reads the raw bytes of a byte stream (a stream of exactly one segment) from an offset. Made by
 * {@code SluiceClient.newByteStreamReader(scope, stream)}, which starts at the stream's head (its first byte not
 * truncated away).
 *
 * <p>Data is prefetched on a virtual thread into a buffer of 1 MiB. {@code read} returns what is buffered, blocking
 * only while nothing is: at the tail it waits until a writer appends (or the segment is sealed), and returns −1 at
 * the end of a sealed stream. {@link #available()} counts the buffered bytes without blocking.
 *
 * <p>Errors are unchecked {@link io.sluice.errors.SluiceException}s: reading bytes that were truncated away throws
 * {@link io.sluice.errors.SegmentTruncatedException} naming the stream's head offset (seek there, or past it, to go
 * on). For a single thread at a time, like any {@link InputStream}.
 */
public abstract class ByteStreamReader extends InputStream {

    /** For subclasses. */
    protected ByteStreamReader() {
    }

    /**
     * Reads up to {@code len} bytes, blocking until at least one is here or the stream ends.
     *
     * @return how many bytes were read, at least 1 when {@code len > 0}; −1 at the end of a sealed stream
     * @throws io.sluice.errors.SegmentTruncatedException if the bytes at {@link #offset()} were truncated away
     */
    @Override
    public abstract int read(byte[] b, int off, int len);

    /** Reads into all of {@code b}: {@link #read(byte[], int, int)} from 0. */
    @Override
    public int read(byte[] b) {
        return read(b, 0, b.length);
    }

    /** @return the next byte (0 to 255), blocking like {@link #read(byte[], int, int)}, or −1 at the end */
    @Override
    public abstract int read();

    /** @return bytes buffered that {@code read} returns without blocking */
    @Override
    public abstract int available();

    /** @return the offset of the next byte {@code read} returns */
    public abstract long offset();

    /**
     * Moves to {@code offset}: the next {@code read} returns the byte there. Drops what was buffered.
     *
     * @throws IllegalArgumentException if {@code offset} is negative
     */
    public abstract void seekToOffset(long offset);

    /**
     * Skips up to {@code n} bytes, no further than the current tail.
     *
     * @return how many bytes were skipped
     */
    @Override
    public abstract long skip(long n);

    /** @return the offset of the first byte that can still be read (0 unless truncated); asks the segment store */
    public abstract long headOffset();

    /** @return the offset just past the last byte written; asks the segment store */
    public abstract long tailOffset();

    /** Stops prefetching. Idempotent; reading afterwards fails. */
    @Override
    public abstract void close();
}
