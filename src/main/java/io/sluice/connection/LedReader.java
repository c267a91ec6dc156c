package io.sluice.connection;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

import io.sluice.common.Deadline;
import io.sluice.wire.FrameCodec;
import io.sluice.wire.WireCommand;
import io.sluice.wire.WireCommandType;
import io.sluice.wire.WireProtocol;

/**
 * Reads a connection's non-blocking socket channel, on the connection's reader thread and, while one awaits a reply,
 * on that caller's thread too: each waits in a selector of its own over the channel, so the kernel wakes the caller
 * itself when its reply arrives instead of waking the reader, which would then wake the caller (one thread wake-up
 * less on the awaited path; docs/benchmarks.md, issue 19's eighth round). Whoever wakes first claims the read, reads
 * everything the socket holds and routes every whole frame, replies of other flows too; the other finds the claim
 * taken, parks until it ends, and looks again.
 *
 * <p>Only a platform thread leads: a virtual one waits in a selector through the JDK's poller, as the reader does,
 * and measured slower than being woken by the reader. One caller at a time; others wait for their replies as usual.
 * Frames are checked ({@link FrameCodec#checkHeader}) before their payload is allocated, as the stream reader does.
 * A read failure (the server closed, a malformed frame) is reported to the connection by whichever thread met it.
 * Thread-safe.
 */
final class LedReader {
    /** How the reader reports what it read, and the end of the connection. */
    interface Sink {
        /** Bytes arrived (keep-alive accounting). */
        void received();

        /** Routes one decoded command; never blocks. */
        void route(WireCommand command);

        /** Reading failed: the connection ends with this. */
        void readFailed(Exception e);

        /** @return true while the connection is open */
        boolean isOpen();
    }

    private final SocketChannel channel;
    private final Selector readerSelector;
    private final Selector callerSelector;
    private final Sink sink;
    /** Holds at most a partial header between reads: every whole frame, or the start of a larger one, is taken out. */
    private final ByteBuffer buffer = ByteBuffer.allocateDirect(64 * 1024);
    /** A frame whose payload is still arriving: its type, its payload, and how much of it is filled. */
    private WireCommandType partialType;
    private byte[] partial;
    private int partialFilled;

    /** The read claim: held while a thread reads the channel and takes frames out of {@link #buffer}. */
    private final AtomicBoolean reading = new AtomicBoolean();
    /** Threads parked until the read claim ends (at most the reader and one caller). */
    private volatile Thread readerWaiting;
    private volatile Thread callerWaiting;
    /** True while a caller leads: a second one waits for its reply as usual. */
    private final AtomicBoolean callerLeads = new AtomicBoolean();

    /**
     * @param channel connected; made non-blocking here
     * @throws IOException if a selector cannot be opened or the channel registered
     */
    LedReader(SocketChannel channel, Sink sink) throws IOException {
        this.channel = channel;
        this.sink = sink;
        channel.configureBlocking(false);
        Selector r = Selector.open();
        Selector c = null;
        try {
            c = Selector.open();
            channel.register(r, SelectionKey.OP_READ);
            channel.register(c, SelectionKey.OP_READ);
        } catch (IOException | RuntimeException e) {
            r.close();
            if (c != null) {
                c.close();
            }
            throw e;
        }
        this.readerSelector = r;
        this.callerSelector = c;
    }

    /** The connection's reader thread: reads whatever arrives until the connection ends. */
    void readLoop() {
        try {
            while (sink.isOpen()) {
                readerSelector.select();
                readerSelector.selectedKeys().clear();
                readClaimed(false);
            }
        } catch (IOException | RuntimeException e) {
            sink.readFailed(e);
        } finally {
            closeSelectors();
        }
    }

    /**
     * Reads the socket on the calling thread too until {@code done} completes, the deadline passes, the thread is
     * interrupted or the connection ends. Returns at once for a virtual thread, or when another caller leads.
     *
     * @return whether it led (false: wait for {@code done} as usual)
     */
    boolean lead(CompletableFuture<?> done, Deadline deadline) {
        if (Thread.currentThread().isVirtual() || done.isDone() || !sink.isOpen()
                || !callerLeads.compareAndSet(false, true)) {
            return false;
        }
        try {
            Thread me = Thread.currentThread();
            done.whenComplete((v, e) -> {
                if (Thread.currentThread() != me) {
                    callerSelector.wakeup(); // completed by the reader or elsewhere: stop selecting
                }
            });
            while (!done.isDone() && sink.isOpen() && !Thread.currentThread().isInterrupted()) {
                long left = deadline.remainingNanos();
                if (left <= 0) {
                    break;
                }
                callerSelector.select(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
                callerSelector.selectedKeys().clear();
                readClaimed(true);
            }
        } catch (IOException | RuntimeException e) {
            sink.readFailed(e);
        } finally {
            callerLeads.set(false);
        }
        return true;
    }

    /** @return true while a caller leads */
    boolean callerHolds() {
        return callerLeads.get();
    }

    /** Wakes both selecting threads, so that they see the connection ended. */
    void wakeAll() {
        readerSelector.wakeup();
        callerSelector.wakeup();
        LockSupport.unpark(readerWaiting);
        LockSupport.unpark(callerWaiting);
    }

    /**
     * Reads what the socket holds if no other thread reads it now; otherwise parks until that read ends (the caller
     * of this then selects again, and finds whatever that read left).
     */
    private void readClaimed(boolean caller) throws IOException {
        if (!reading.compareAndSet(false, true)) {
            awaitReadEnd(caller);
            return;
        }
        try {
            readReady();
        } finally {
            reading.set(false);
            LockSupport.unpark(caller ? readerWaiting : callerWaiting);
        }
    }

    private void awaitReadEnd(boolean caller) {
        Thread me = Thread.currentThread();
        if (caller) {
            callerWaiting = me;
        } else {
            readerWaiting = me;
        }
        try {
            while (reading.get() && sink.isOpen() && !me.isInterrupted()) {
                LockSupport.park(this);
            }
        } finally {
            if (caller) {
                callerWaiting = null;
            } else {
                readerWaiting = null;
            }
        }
    }

    /** Reads everything the socket holds now and routes each whole frame. Only under the read claim. */
    private void readReady() throws IOException {
        while (true) {
            int n = channel.read(buffer);
            if (n < 0) {
                throw new EOFException("the segment store closed the connection");
            }
            if (n == 0) {
                return;
            }
            sink.received();
            buffer.flip();
            takeFrames();
            buffer.compact();
        }
    }

    private void takeFrames() {
        while (true) {
            if (partial != null) {
                int take = Math.min(buffer.remaining(), partial.length - partialFilled);
                buffer.get(partial, partialFilled, take);
                partialFilled += take;
                if (partialFilled < partial.length) {
                    return;
                }
                byte[] payload = partial;
                partial = null;
                sink.route(FrameCodec.decodePayload(partialType, ByteBuffer.wrap(payload)));
                continue;
            }
            if (buffer.remaining() < WireProtocol.HEADER_SIZE) {
                return;
            }
            int type = buffer.getInt();
            int length = buffer.getInt();
            WireCommandType t = FrameCodec.checkHeader(type, length);
            byte[] payload = new byte[length];
            int take = Math.min(buffer.remaining(), length);
            buffer.get(payload, 0, take);
            if (take < length) {
                partialType = t;
                partial = payload;
                partialFilled = take;
                return;
            }
            sink.route(FrameCodec.decodePayload(t, ByteBuffer.wrap(payload)));
        }
    }

    private void closeSelectors() {
        for (Selector s : new Selector[] {readerSelector, callerSelector}) {
            try {
                s.close();
            } catch (IOException ignored) {
                // the connection is gone
            }
        }
    }
}
