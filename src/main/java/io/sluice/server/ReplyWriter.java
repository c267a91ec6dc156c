package io.sluice.server;

import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

import io.sluice.common.Threads;
import io.sluice.wire.FrameCodec;
import io.sluice.wire.KeepAlive;
import io.sluice.wire.Reply;
import io.sluice.wire.SegmentRead;
import io.sluice.wire.TableEntries;
import io.sluice.wire.TableEntriesDeltaRead;
import io.sluice.wire.TableEntriesRead;
import io.sluice.wire.TableKey;
import io.sluice.wire.TableKeysRead;
import io.sluice.wire.TableRead;
import io.sluice.wire.WireOutput;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The reply side of one {@link ServerConnection}: replies go out in the order they are sent, written by a virtual
 * thread of their own, which batches whatever has queued into one socket write.
 *
 * <p>A reply the connection's reader thread produces while handling a request (an in-memory append's
 * acknowledgement, a read answered at once) skips that thread when nothing is queued: the reader claims the socket,
 * encodes the reply into a buffer of its own and writes it once the request is handled ({@link #writeClaimed}),
 * sparing the writer thread's wake-up, which an awaited write would wait for. Replies sent while the claim is held
 * queue behind it, and the writer thread waits for the claim's write before writing them, so the order stays the
 * order of sending. The claimed write happens outside any lock and completion chain; if the client does not read,
 * it holds up only this connection's reader, which stops reading its requests (the backpressure a full reply queue
 * applies anyway).
 *
 * <p>Replies queued and not yet written are counted ({@link #replyBytes}); past
 * {@link ServerLimits#maxQueuedReplyBytes()} the reader waits for room before it reads the next request
 * ({@link #awaitRoom}).
 */
final class ReplyWriter {
    private static final Logger LOG = LoggerFactory.getLogger(ReplyWriter.class);
    private static final Reply CLOSE = new KeepAlive();
    /** Bytes of replies encoded into one socket write at most (a bigger single reply is written alone). */
    private static final int WRITE_BATCH_BYTES = 1024 * 1024;
    /** What a reply counts for in the queue besides its data: the frame header and its fixed fields. */
    private static final int REPLY_OVERHEAD = 64;
    /** The most bytes the reader thread writes itself after one request: small enough for the socket's buffer. */
    private static final int MAX_CLAIMED_BYTES = 16 * 1024;

    private final Socket socket;
    private final String peer;
    private final long maxQueuedBytes;
    /** Closes the connection (idempotent): after a failed write, an unencodable reply or {@link #closeAfterReplies}. */
    private final Runnable closeConnection;
    private final LinkedBlockingQueue<Reply> queue = new LinkedBlockingQueue<>();
    /** Bytes of replies queued but not yet written to the socket (see {@link #replyBytes}). */
    private final AtomicLong queuedBytes = new AtomicLong();
    /**
     * Who may write to the socket: the low bit is set while the reader thread holds the claim; the rest counts, in
     * steps of two, the replies queued for the writer thread and not yet written. The claim is taken only from zero.
     */
    private final AtomicLong writeState = new AtomicLong();
    /** The replies the reader thread claimed the socket for; used only by the reader thread. */
    private final WireOutput claimed = new WireOutput(4 * 1024);
    private final ReentrantLock roomLock = new ReentrantLock();
    private final Condition room = roomLock.newCondition();
    private volatile boolean readerWaitsForRoom;
    private volatile boolean stopped;
    /** The connection's reader thread: the only one that may claim the socket. */
    private volatile Thread reader;
    private volatile Thread writer;
    private volatile boolean writerWaiting;

    ReplyWriter(Socket socket, String peer, long maxQueuedBytes, Runnable closeConnection) {
        this.socket = socket;
        this.peer = peer;
        this.maxQueuedBytes = maxQueuedBytes;
        this.closeConnection = closeConnection;
    }

    /** Starts the writer thread. */
    void start() {
        writer = Threads.startVirtual("sluice-ss-writer-" + peer, this::writeLoop);
    }

    /** Called by the connection's reader thread when it starts: its replies may be written by itself. */
    void readerIs(Thread thread) {
        reader = thread;
    }

    /** Sends a reply after everything sent before it; does nothing once the connection is closed. Never blocks. */
    void send(Reply reply) {
        if (stopped) {
            return;
        }
        int bytes = replyBytes(reply);
        if (Thread.currentThread() == reader && claim(bytes)) {
            if (encode(reply, claimed)) {
                return;
            }
            closeConnection.run();
            return;
        }
        queuedBytes.addAndGet(bytes);
        writeState.addAndGet(2);
        queue.add(reply);
    }

    /**
     * Holds or takes the claim for {@code bytes} more bytes of the reader's replies: only while nothing is queued, or
     * a reply queued by another thread meanwhile would be written after a later one of the reader's.
     */
    private boolean claim(int bytes) {
        if (claimed.position() + bytes > MAX_CLAIMED_BYTES) {
            return false;
        }
        return writeState.get() == 1 || writeState.compareAndSet(0, 1);
    }

    /**
     * Called by the reader thread after each request, and before it may block: writes the replies it claimed the
     * socket for, if any, and ends the claim.
     */
    void writeClaimed() {
        if ((writeState.get() & 1) == 0) {
            return;
        }
        try {
            if (claimed.position() > 0 && !stopped) {
                OutputStream out = socket.getOutputStream();
                out.write(claimed.array(), 0, claimed.position());
                out.flush();
            }
        } catch (IOException e) {
            LOG.debug("writing to {} failed: {}", peer, e.toString());
            closeConnection.run();
        } finally {
            claimed.clear();
            writeState.decrementAndGet();
            if (writerWaiting) {
                LockSupport.unpark(writer);
            }
        }
    }

    /** The writer thread closes the connection once every reply sent before this call is written. */
    void closeAfterReplies() {
        queue.add(CLOSE);
    }

    /** The connection is closed: replies not yet written are dropped, the threads waiting here stop. */
    void stop() {
        stopped = true;
        queue.clear();
        queue.add(CLOSE);
        Thread w = writer;
        if (w != null) {
            LockSupport.unpark(w);
        }
        roomLock.lock();
        try {
            room.signalAll(); // a reader waiting for room sees the close
        } finally {
            roomLock.unlock();
        }
    }

    /** Backpressure: waits while the client has more unread replies queued than the limit allows. */
    void awaitRoom() throws InterruptedException {
        if (queuedBytes.get() <= maxQueuedBytes) {
            return;
        }
        roomLock.lock();
        try {
            readerWaitsForRoom = true;
            while (queuedBytes.get() > maxQueuedBytes && !stopped) {
                room.await(1, TimeUnit.SECONDS);
            }
        } finally {
            readerWaitsForRoom = false;
            roomLock.unlock();
        }
    }

    private void written(long bytes) {
        long left = queuedBytes.addAndGet(-bytes);
        if (readerWaitsForRoom && left <= maxQueuedBytes) {
            roomLock.lock();
            try {
                room.signalAll();
            } finally {
                roomLock.unlock();
            }
        }
    }

    /** @return what a reply counts for against {@link ServerLimits#maxQueuedReplyBytes()}: its data plus a little */
    static int replyBytes(Reply reply) {
        return REPLY_OVERHEAD + switch (reply) {
            case SegmentRead r -> r.data().remaining();
            case TableRead r -> entryBytes(r.entries());
            case TableEntriesRead r -> entryBytes(r.entries()) + r.continuationToken().remaining();
            case TableEntriesDeltaRead r -> entryBytes(r.entries());
            case TableKeysRead r -> {
                int n = r.continuationToken().remaining();
                for (TableKey k : r.keys()) {
                    n += k.data().remaining() + Long.BYTES + Integer.BYTES;
                }
                yield n;
            }
            default -> 0;
        };
    }

    private static int entryBytes(TableEntries entries) {
        int n = 0;
        for (io.sluice.wire.TableEntry e : entries.entries()) {
            n += e.key().data().remaining() + e.value().data().remaining() + 2 * (Long.BYTES + Integer.BYTES);
        }
        return n;
    }

    private void writeLoop() {
        WireOutput buf = new WireOutput(64 * 1024);
        try {
            OutputStream out = socket.getOutputStream();
            while (true) {
                Reply next = queue.take();
                awaitNoClaim();
                if (stopped) {
                    return;
                }
                buf.clear();
                long bytes = 0;
                long replies = 0;
                boolean closeAfter = false;
                while (next != null) {
                    if (next == CLOSE) {
                        closeAfter = true;
                        break;
                    }
                    bytes += replyBytes(next);
                    replies++;
                    if (!encode(next, buf)) {
                        closeAfter = true;
                        break;
                    }
                    next = buf.position() < WRITE_BATCH_BYTES ? queue.poll() : null;
                }
                out.write(buf.array(), 0, buf.position());
                out.flush();
                writeState.addAndGet(-2 * replies);
                written(bytes);
                if (closeAfter) {
                    return;
                }
                if (buf.array().length > 4 * WRITE_BATCH_BYTES) {
                    buf = new WireOutput(64 * 1024);
                }
            }
        } catch (IOException e) {
            LOG.debug("writing to {} failed: {}", peer, e.toString());
        } catch (InterruptedException e) {
            LOG.debug("writer of {} interrupted", peer);
        } finally {
            closeConnection.run();
        }
    }

    /**
     * The writer thread waits for the reader's claimed write (no new claim can start while replies are queued). The
     * reader ends its claim after the request it handles, so this wait is short; closing the connection ends it too.
     */
    private void awaitNoClaim() {
        while ((writeState.get() & 1) != 0 && !stopped) {
            writerWaiting = true;
            if ((writeState.get() & 1) != 0 && !stopped) {
                LockSupport.park(this);
            }
            writerWaiting = false;
        }
    }

    /** For tests: the writer thread waits for the reader's claimed write. */
    boolean writerWaitsForClaim() {
        return writerWaiting;
    }

    /**
     * Encodes one reply after what {@code buf} holds.
     *
     * @return false if the reply cannot be put on the wire (a string over 65535 bytes): nothing of it is in
     *     {@code buf}, and the connection must close, since its request will never be answered
     */
    private boolean encode(Reply reply, WireOutput buf) {
        int mark = buf.position();
        try {
            FrameCodec.encode(reply, buf);
            return true;
        } catch (IllegalArgumentException e) {
            buf.reset(mark);
            LOG.warn("closing connection from {}: its {} reply cannot be encoded: {}", peer, reply.type(),
                    e.getMessage());
            return false;
        }
    }
}
