package io.sluice.bytestream;

import java.io.OutputStream;
import java.nio.ByteBuffer;

/**
 * Writes raw bytes to a byte stream: a stream with exactly one segment, whose bytes carry no event framing. Made by
 * {@code SluiceClient.newByteStreamWriter(scope, stream)}.
 *
 * <p>Each {@code write} of up to 8 MiB is appended atomically: a reader never sees part of it without the rest.
 * A larger write is cut into atomic pieces of 8 MiB. Writes smaller than {@link #BUFFER_BYTES} are gathered in a
 * buffer of that size, as Pravega's Java client does, and go out when it fills, at the next larger write, or at
 * {@link #flush()}; larger ones go out at once. Writes are pipelined (many appends in flight, acknowledged in order)
 * and exactly once across reconnects. {@link #flush()} returns once everything written before it is durable.
 * Backpressure: the writer holds at most {@code WriterConfig.maxOutstandingBytes()} unacknowledged bytes;
 * a write beyond that blocks, up to the configured backpressure timeout.
 *
 * <p>Errors are unchecked {@link io.sluice.errors.SluiceException}s, as everywhere in Sluice: a sealed stream gives
 * {@link io.sluice.errors.SegmentSealedException}, a closed writer {@link io.sluice.errors.WriterClosedException}.
 * After a failure every later call fails the same way. Thread-safe.
 */
public abstract class ByteStreamWriter extends OutputStream {
    /** Writes smaller than this are gathered into one append of this size: 4 KiB, as in Pravega's Java client. */
    public static final int BUFFER_BYTES = 4096;
    /** The largest atomic write: 8 MiB, Pravega's largest event. Larger writes are cut into pieces of this size. */
    public static final int MAX_ATOMIC_BYTES = 8 * 1024 * 1024;

    /** For subclasses. */
    protected ByteStreamWriter() {
    }

    /** Writes one byte (into the buffer of small writes). */
    @Override
    public abstract void write(int b);

    /** Writes all of {@code b}: {@link #write(byte[], int, int)} from 0. */
    @Override
    public void write(byte[] b) {
        write(b, 0, b.length);
    }

    /** Writes {@code len} bytes of {@code b} from {@code off}, atomically if {@code len} is at most 8 MiB; copied. */
    @Override
    public abstract void write(byte[] b, int off, int len);

    /**
     * Writes the bytes from {@code src}'s position to its limit, atomically if there are at most
     * {@link #MAX_ATOMIC_BYTES}; the position moves to the limit. The bytes are copied.
     */
    public abstract void write(ByteBuffer src);

    /**
     * Blocks until every byte written before the call is durable.
     *
     * @throws io.sluice.errors.SluiceException if some could not be written
     */
    @Override
    public abstract void flush();

    /** Flushes, then releases the writer's resources. Idempotent. */
    @Override
    public abstract void close();

    /**
     * Flushes, seals the stream's segment (no one can append to it again; readers get −1 at its end) and closes.
     *
     * @throws io.sluice.errors.SluiceException if the flush or the seal failed
     */
    public abstract void closeAndSeal();

    /**
     * Removes the stream's bytes before {@code offset}; reading them afterwards fails. Does not flush.
     *
     * @param offset the new head; at most {@link #tailOffset()}
     * @throws io.sluice.errors.SluiceException if the segment store refused (e.g. an offset past the tail)
     */
    public abstract void truncateDataBefore(long offset);

    /** @return the offset of the first byte that can still be read (0 unless truncated); asks the segment store */
    public abstract long headOffset();

    /** @return the offset just past the last durable byte; asks the segment store (unflushed bytes do not count) */
    public abstract long tailOffset();
}
