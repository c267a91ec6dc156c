package io.sluice.client;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

import io.sluice.auth.AccessOperation;
import io.sluice.bytestream.ByteStreamWriter;
import io.sluice.controller.ControllerClient;
import io.sluice.controller.StreamSegments;
import io.sluice.errors.BackpressureTimeoutException;
import io.sluice.errors.SegmentSealedException;
import io.sluice.errors.SluiceException;
import io.sluice.errors.StreamingInterruptedException;
import io.sluice.errors.WriterClosedException;
import io.sluice.segment.DelegationTokenProvider;
import io.sluice.segment.PendingEvent;
import io.sluice.segment.SegmentMetadataClient;
import io.sluice.segment.SegmentStores;
import io.sluice.segment.SegmentWriter;
import io.sluice.stream.ScopedStream;
import io.sluice.stream.Segment;
import io.sluice.stream.WriterConfig;

/**
 * The byte stream writer: raw appends ({@link PendingEvent#raw}) to the stream's one segment through a
 * {@link SegmentWriter}, which pipelines them and resends what a lost connection left unacknowledged under the same
 * writer id (exactly once). Small writes are gathered in a {@link #BUFFER_BYTES} buffer under a lock; appends are
 * queued under the same lock (queueing does no I/O), so they reach the segment in the order they were written.
 * Room (unacknowledged bytes, buffered ones included) is taken before the lock, so nothing blocks while holding it.
 */
final class ByteStreamWriterImpl extends ByteStreamWriter implements SegmentWriter.Listener {
    private final ScopedStream stream;
    private final WriterConfig config;
    private final String segment;
    private final SegmentWriter writer;
    private final SegmentMetadataClient metadata;
    private final Semaphore room;

    private final ReentrantLock lock = new ReentrantLock();
    /** Guarded by lock: small writes gathered, not yet queued. */
    private byte[] buffer = new byte[BUFFER_BYTES];
    /** Guarded by lock. */
    private int buffered;
    /** Guarded by lock: the future of the append queued last (appends complete in order). */
    private CompletableFuture<Void> last = CompletableFuture.completedFuture(null);
    /** Why the writer cannot go on, once it cannot. */
    private volatile SluiceException failure;
    private volatile boolean closed;

    ByteStreamWriterImpl(ScopedStream stream, WriterConfig config, ControllerClient controller, SegmentStores stores) {
        this.stream = Objects.requireNonNull(stream, "stream");
        this.config = Objects.requireNonNull(config, "config");
        DelegationTokenProvider tokens = DelegationTokenProvider.fromController(controller, stream,
                AccessOperation.READ_WRITE);
        StreamSegments current = controller.currentSegments(stream);
        if (current.ranges().isEmpty()) {
            throw new SegmentSealedException("byte stream " + stream + " is sealed: it takes no more bytes");
        }
        if (current.ranges().size() != 1) {
            throw new IllegalArgumentException("stream " + stream + " has " + current.ranges().size()
                    + " open segments: a byte stream needs exactly one (create it with ScalingPolicy.fixed(1))");
        }
        tokens.offer(current.delegationToken());
        Segment s = current.ranges().get(0).segment();
        this.segment = s.qualifiedName();
        this.room = new Semaphore((int) config.maxOutstandingBytes());
        this.metadata = new SegmentMetadataClient(stores.calls(), segment, tokens);
        this.writer = new SegmentWriter(segment, UUID.randomUUID(), stores, () -> tokens,
                new SegmentWriter.Config(RetryPolicies.toRetry(config.retry()), config.maxBlockBytes(),
                        Duration.ofSeconds(30)), this);
    }

    @Override
    public void write(int b) {
        acquire(1);
        lock.lock();
        try {
            try {
                checkOpen();
            } catch (RuntimeException e) {
                room.release(1);
                throw e;
            }
            // from here the byte's room is the buffer's: given back when its append completes, or fails
            buffer[buffered++] = (byte) b;
            if (buffered == BUFFER_BYTES) {
                queueBuffer();
            }
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void write(byte[] b, int off, int len) {
        Objects.checkFromIndexSize(off, len, b.length);
        write(ByteBuffer.wrap(b, off, len));
    }

    @Override
    public void write(ByteBuffer src) {
        checkOpen();
        if (src.remaining() < BUFFER_BYTES) {
            writeSmall(src);
            return;
        }
        while (src.hasRemaining()) {
            int n = Math.min(src.remaining(), MAX_ATOMIC_BYTES);
            byte[] piece = new byte[n];
            src.get(piece);
            acquire(n);
            lock.lock();
            try {
                try {
                    checkOpen();
                    if (buffered > 0) {
                        queueBuffer();
                    }
                } catch (RuntimeException e) {
                    room.release(n);
                    throw e;
                }
                queue(ByteBuffer.wrap(piece)); // gives the piece's room back when it completes, or fails
            } finally {
                lock.unlock();
            }
        }
    }

    private void writeSmall(ByteBuffer src) {
        int n = src.remaining();
        if (n == 0) {
            return;
        }
        acquire(n);
        lock.lock();
        try {
            try {
                checkOpen();
                if (buffered + n > BUFFER_BYTES) {
                    queueBuffer();
                }
            } catch (RuntimeException e) {
                room.release(n);
                throw e;
            }
            // from here the bytes' room is the buffer's: given back when its append completes, or fails
            src.get(buffer, buffered, n);
            buffered += n;
            if (buffered == BUFFER_BYTES) {
                queueBuffer();
            }
        } finally {
            lock.unlock();
        }
    }

    /** Under the lock: queues what is buffered as one append and starts a new buffer. */
    private void queueBuffer() {
        ByteBuffer data = ByteBuffer.wrap(buffer, 0, buffered);
        buffer = new byte[BUFFER_BYTES];
        buffered = 0;
        queue(data);
    }

    /** Under the lock: queues one append, whose room was taken; its room is given back when it completes. */
    private void queue(ByteBuffer data) {
        PendingEvent append = PendingEvent.raw(data);
        int bytes = append.framedSize();
        append.future().whenComplete((ok, e) -> {
            room.release(bytes);
            if (e != null && failure == null) {
                failure = asSluice(e);
            }
        });
        boolean taken;
        try {
            taken = writer.queue(append);
        } catch (RuntimeException e) { // the writer failed, or was closed under a racing write
            append.future().completeExceptionally(e);
            throw e;
        }
        if (!taken) {
            SegmentSealedException sealed = sealed();
            append.future().completeExceptionally(sealed);
            throw sealed;
        }
        last = append.future();
    }

    private SegmentSealedException sealed() {
        return new SegmentSealedException("byte stream " + stream + " is sealed: it takes no more bytes");
    }

    private void checkOpen() {
        if (closed) {
            throw new WriterClosedException("the byte stream writer of " + stream + " is closed");
        }
        SluiceException f = failure;
        if (f != null) {
            throw f;
        }
    }

    private void acquire(int bytes) {
        try {
            if (!room.tryAcquire(bytes, config.backpressureTimeout().toNanos(), TimeUnit.NANOSECONDS)) {
                throw new BackpressureTimeoutException("the byte stream writer of " + stream + " held "
                        + (config.maxOutstandingBytes() - room.availablePermits()) + " unacknowledged bytes for "
                        + config.backpressureTimeout().toMillis() + " ms: the server is not keeping up");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StreamingInterruptedException("interrupted while waiting for room in the writer of " + stream, e);
        }
    }

    @Override
    public void flush() {
        CompletableFuture<Void> awaited;
        lock.lock();
        try {
            checkOpen();
            if (buffered > 0) {
                queueBuffer();
            }
            awaited = last;
        } finally {
            lock.unlock();
        }
        await(awaited);
    }

    private void await(CompletableFuture<Void> f) {
        try {
            f.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StreamingInterruptedException("interrupted while flushing the byte stream writer of " + stream, e);
        } catch (ExecutionException e) {
            throw asSluice(e.getCause());
        }
    }

    private SluiceException asSluice(Throwable e) {
        Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
        return cause instanceof SluiceException s ? s
                : new SluiceException("writing to byte stream " + stream + " failed", cause);
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        try {
            if (failure == null) {
                flush();
            }
        } finally {
            closed = true;
            writer.close();
        }
    }

    @Override
    public void closeAndSeal() {
        flush();
        closed = true;
        writer.close();
        metadata.seal();
    }

    @Override
    public void truncateDataBefore(long offset) {
        if (offset < 0) {
            throw new IllegalArgumentException("cannot truncate byte stream " + stream + " before a negative offset: "
                    + offset);
        }
        metadata.truncate(offset);
    }

    @Override
    public long headOffset() {
        return metadata.startOffset();
    }

    @Override
    public long tailOffset() {
        return metadata.length();
    }

    /** The segment was sealed (or deleted) behind the writer's back: what is unacknowledged never will be. */
    @Override
    public void segmentEnded(String ended, List<PendingEvent> unacknowledged) {
        SegmentSealedException sealed = sealed();
        failure = sealed;
        unacknowledged.forEach(e -> e.future().completeExceptionally(sealed));
    }

    @Override
    public String toString() {
        return "ByteStreamWriter[" + stream + "]";
    }
}
