package io.sluice.client;

import java.util.Objects;
import java.util.concurrent.Semaphore;

import io.sluice.auth.AccessOperation;
import io.sluice.bytestream.ByteStreamReader;
import io.sluice.controller.ControllerClient;
import io.sluice.errors.SegmentTruncatedException;
import io.sluice.errors.SluiceException;
import io.sluice.errors.StreamingInterruptedException;
import io.sluice.segment.DelegationTokenProvider;
import io.sluice.segment.SegmentMetadataClient;
import io.sluice.segment.SegmentReader;
import io.sluice.segment.SegmentStores;
import io.sluice.stream.ScopedStream;
import io.sluice.stream.StreamCut;

/**
 * The byte stream reader: a {@link SegmentReader} in byte mode over the stream's one segment, replaced by a new one
 * at each seek. A blocked {@code read} waits on a semaphore the segment reader's listener releases whenever bytes,
 * the end or a failure arrive.
 */
final class ByteStreamReaderImpl extends ByteStreamReader {
    /** Bytes prefetched ahead of the application: 1 MiB, as Pravega's Java client buffers. */
    static final int PREFETCH_BYTES = 1024 * 1024;

    private final ScopedStream stream;
    private final SegmentStores stores;
    private final DelegationTokenProvider tokens;
    private final String segment;
    private final SegmentMetadataClient metadata;
    private final SegmentReader.Config config;
    /** Released when the current reader may have something; drained before each look. */
    private final Semaphore wake = new Semaphore(0);
    private volatile SegmentReader reader;
    private volatile boolean closed;

    ByteStreamReaderImpl(ScopedStream stream, ControllerClient controller, SegmentStores stores) {
        this.stream = Objects.requireNonNull(stream, "stream");
        this.stores = stores;
        this.tokens = DelegationTokenProvider.fromController(controller, stream, AccessOperation.READ);
        StreamCut head = controller.headStreamCut(stream);
        if (head.positions().size() != 1) {
            throw new IllegalArgumentException("stream " + stream + " has " + head.positions().size()
                    + " segments at its head: a byte stream has exactly one (create it with ScalingPolicy.fixed(1))");
        }
        this.segment = head.positions().firstKey().qualifiedName();
        this.metadata = new SegmentMetadataClient(stores.calls(), segment, tokens);
        this.config = new SegmentReader.Config(PREFETCH_BYTES, SegmentReader.Config.DEFAULT.retry());
        this.reader = open(metadata.startOffset());
    }

    private SegmentReader open(long offset) {
        return SegmentReader.bytes(segment, offset, stores, () -> tokens, config, r -> wake.release());
    }

    @Override
    public int read(byte[] b, int off, int len) {
        Objects.checkFromIndexSize(off, len, b.length);
        checkOpen();
        if (len == 0) {
            return 0;
        }
        while (true) {
            wake.drainPermits();
            SegmentReader r = reader;
            int n;
            try {
                n = r.read(b, off, len);
            } catch (SegmentTruncatedException e) {
                throw new SegmentTruncatedException("the bytes of byte stream " + stream + " at offset " + r.position()
                        + " were truncated away: its head is at offset " + headOffset(), e);
            }
            if (n != 0) {
                return n;
            }
            try {
                wake.acquire();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new StreamingInterruptedException("interrupted while reading byte stream " + stream, e);
            }
            checkOpen();
        }
    }

    @Override
    public int read() {
        byte[] one = new byte[1];
        int n = read(one, 0, 1);
        return n < 0 ? -1 : one[0] & 0xFF;
    }

    @Override
    public int available() {
        checkOpen();
        return reader.available();
    }

    @Override
    public long offset() {
        return reader.position();
    }

    @Override
    public void seekToOffset(long offset) {
        if (offset < 0) {
            throw new IllegalArgumentException("cannot seek byte stream " + stream + " to a negative offset: " + offset);
        }
        checkOpen();
        SegmentReader old = reader;
        reader = open(offset);
        old.close();
    }

    @Override
    public long skip(long n) {
        checkOpen();
        if (n <= 0) {
            return 0;
        }
        long at = offset();
        long to = Math.max(at, Math.min(at + n, tailOffset()));
        if (to > at) {
            seekToOffset(to);
        }
        return to - at;
    }

    @Override
    public long headOffset() {
        return metadata.startOffset();
    }

    @Override
    public long tailOffset() {
        return metadata.length();
    }

    private void checkOpen() {
        if (closed) {
            throw new SluiceException("the byte stream reader of " + stream + " is closed");
        }
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            reader.close();
            wake.release();
        }
    }

    @Override
    public String toString() {
        return "ByteStreamReader[" + stream + " at " + offset() + "]";
    }
}
