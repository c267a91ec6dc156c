package io.sluice.connection;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

import io.sluice.common.Deadline;
import io.sluice.common.Endpoint;
import io.sluice.wire.WireCommand;

/**
 * One open connection to a segment store, shared by many {@link Flow flows}. Thread-safe: any thread may open
 * flows and send. Sends are queued for the connection's writer thread and return without waiting for the socket;
 * a sender that finds the connection idle may {@link #tryClaim claim} it and write one small block itself.
 */
public interface Connection extends AutoCloseable {

    /** @return the segment store this connection is to */
    Endpoint endpoint();

    /** @return the wire version both sides speak: {@code min(17, server's highVersion)} */
    int negotiatedVersion();

    /**
     * Registers a new flow: replies carrying its id in the high 32 bits of their request id go to its queue.
     *
     * @return the flow; close it when done
     * @throws io.sluice.errors.ConnectionFailedException if the connection is closed
     */
    Flow openFlow();

    /** @return the number of flows open on this connection */
    int flowCount();

    /**
     * Queues a command for the writer thread. Commands from one thread are written in the order they were sent.
     * Blocks only while the write queue is full (up to the configured send timeout).
     *
     * @throws io.sluice.errors.ConnectionFailedException if the connection is closed or the queue stays full
     */
    void send(WireCommand command);

    /**
     * Queues bytes that already hold whole frames (e.g. an append block encoded by a segment writer). The buffer's
     * remaining bytes are written as they are; the caller must not change them afterwards.
     *
     * @throws io.sluice.errors.ConnectionFailedException if the connection is closed or the queue stays full
     */
    void sendFrames(ByteBuffer frames);

    /**
     * Queues a writer of whole frames that runs on the connection's writer thread, straight into the socket buffer
     * (so payload bytes are copied once). The writer must not block; what it reads must stay unchanged until it ran.
     *
     * @throws io.sluice.errors.ConnectionFailedException if the connection is closed or the queue stays full
     */
    void sendFrames(java.util.function.Consumer<io.sluice.wire.WireOutput> frames);

    /**
     * Claims the socket for one direct write from the calling thread, if the connection is idle: nothing queued
     * for the writer thread and no other claim open. Never waits, so it is safe to call while holding a lock; write
     * with the claim after releasing it. While the claim is open, whatever is sent queues behind it: the writer
     * thread writes nothing until the claim is written (or abandoned), so frames sent after the claim was taken go
     * out after its frames.
     *
     * <p>This spares an idle connection the hand-over to its writer thread, which a caller waiting for a reply
     * would wait for.
     *
     * @param bytes the size of the frames to write; only small writes (that cannot wait for room in the socket) are
     *     taken
     * @return the claim, or null if the connection is busy, closed, or {@code bytes} is too large: send as usual
     */
    Claim tryClaim(int bytes);

    /**
     * Sends a command from the calling thread if the connection is idle (as a {@link #tryClaim claim}), else queues
     * it as {@link #send} does: for a caller that waits for the reply, which then spares the hand-over to the
     * connection's writer thread. The caller must hold no lock: this may write to the socket.
     *
     * @throws io.sluice.errors.ConnectionFailedException if the connection is gone
     */
    default void sendNow(WireCommand command) {
        send(command);
    }

    /** An open claim on a connection's socket: write with it exactly once. */
    interface Claim {
        /**
         * Writes the frames to the socket from the calling thread and ends the claim. If the write fails, the
         * connection ends (its flows learn why); nothing is thrown.
         *
         * @param frames writes whole frames; must not block
         */
        void write(java.util.function.Consumer<io.sluice.wire.WireOutput> frames);
    }

    /** @return true until the connection fails or is closed */
    boolean isOpen();

    /**
     * Lets the calling thread read this connection's socket itself until {@code done} completes, so that the reply it
     * awaits wakes it directly instead of through the connection's reader thread (which keeps reading too). Only a
     * connection that reads a non-blocking channel does this, for a platform thread, one at a time; every other case
     * returns false at once and the caller waits for {@code done} as usual. It may return before {@code done} completes (deadline, interrupt, the
     * connection's end): the caller then waits as usual too.
     *
     * @param done completes when what the caller awaits has arrived (completed by whichever thread read it)
     * @param deadline when to stop reading
     * @return whether the caller read the socket
     */
    default boolean lead(CompletableFuture<?> done, Deadline deadline) {
        return false;
    }

    /** @return whether {@link #lead} may let a caller read this connection (false: it always returns false) */
    default boolean callersMayRead() {
        return false;
    }

    /**
     * Fails the connection: closes the socket and wakes every flow with a retriable failure. Idempotent.
     *
     * @param reason why, for the log and for the flows' exceptions
     */
    void fail(String reason);

    /** Closes the connection; flows still open are woken as by {@link #fail}. Idempotent. */
    @Override
    void close();
}
