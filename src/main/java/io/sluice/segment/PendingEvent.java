package io.sluice.segment;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.sluice.common.Deadline;
import io.sluice.connection.Connection;
import io.sluice.wire.AppendEncoder;
import io.sluice.wire.EventFrames;
import io.sluice.wire.WireProtocol;

/**
 * Events waiting to be durable: one event, or several that must be appended atomically (a batch for one routing
 * key). The payloads are not copied; the caller must not change them. The future completes when the server
 * acknowledged them, or fails with the reason they never will be. A segment writer encodes it as one
 * {@link AppendEncoder.EventGroup} of its block.
 */
public final class PendingEvent implements AppendEncoder.EventGroup {
    /** Largest event payload Pravega accepts: 8 MiB. */
    public static final int MAX_EVENT_SIZE = 8 * 1024 * 1024;
    /**
     * Largest atomic batch, framing (8 bytes per event) included: 16,777,191 bytes, what one {@code AppendBlock}
     * frame can carry. A Pravega segment store closes the connection on a frame longer than 16 MiB - 1 bytes,
     * header included ({@code LengthFieldBasedFrameDecoder(0xFFFFFF, 4, 4)}), and a batch travels in one frame to be
     * appended atomically. (Pravega 0.13's Java writer admits batches up to 2 × (8 MiB + 8) bytes.)
     */
    public static final int MAX_BATCH_SIZE = WireProtocol.MAX_WIRECOMMAND_SIZE - AppendEncoder.APPEND_BLOCK_OVERHEAD;

    private final String routingKey;
    private final List<ByteBuffer> payloads;
    private final int framedSize;
    private final boolean headerless;
    private final Completion future = new Completion();
    /** Told when the future completes, if set; written before the event is handed to a segment writer. */
    private Settlement settlement;
    /** What the write holds of its writer's budget until it settles; set by the writer that admits it. */
    private int charged;
    /** Assigned by the segment writer that sends it; guarded by that writer's lock. */
    long eventNumber;
    /** The connection the segment writer last sent it on, or null before that. */
    private volatile Connection sentOn;

    /**
     * @param routingKey the key that chose the segment, or {@code null}
     * @param payloads one or more event payloads (not copied)
     * @throws IllegalArgumentException if there is no payload, one is larger than {@link #MAX_EVENT_SIZE}, or all
     *     together exceed {@link #MAX_BATCH_SIZE}
     */
    public PendingEvent(String routingKey, List<ByteBuffer> payloads) {
        if (payloads.isEmpty()) {
            throw new IllegalArgumentException("a write needs at least one event");
        }
        long framed = 0;
        for (ByteBuffer p : payloads) {
            if (p.remaining() > MAX_EVENT_SIZE) {
                throw new IllegalArgumentException("event of " + p.remaining() + " bytes exceeds the maximum event size of "
                        + MAX_EVENT_SIZE + " bytes");
            }
            framed += EventFrames.framedSize(p.remaining());
        }
        if (framed > MAX_BATCH_SIZE) {
            throw new IllegalArgumentException("atomic batch of " + framed + " bytes exceeds the maximum of "
                    + MAX_BATCH_SIZE + " bytes");
        }
        this.routingKey = routingKey;
        this.payloads = List.copyOf(payloads);
        this.framedSize = (int) framed;
        this.headerless = false;
    }

    private PendingEvent(ByteBuffer data) {
        this.routingKey = null;
        this.payloads = List.of(data);
        this.framedSize = data.remaining();
        this.headerless = true;
    }

    /**
     * A write of raw bytes, appended as they are without an event header (a byte stream's data): one event number,
     * one atomic append.
     *
     * @param data the bytes, from position to limit (not copied)
     * @throws IllegalArgumentException if there are none, or more than {@link #MAX_EVENT_SIZE}
     */
    public static PendingEvent raw(ByteBuffer data) {
        if (!data.hasRemaining() || data.remaining() > MAX_EVENT_SIZE) {
            throw new IllegalArgumentException("a raw append takes 1 to " + MAX_EVENT_SIZE + " bytes, not "
                    + data.remaining());
        }
        return new PendingEvent(data);
    }

    /** @return a pending write of one event */
    public static PendingEvent of(String routingKey, ByteBuffer payload) {
        return new PendingEvent(routingKey, List.of(payload));
    }

    /** @return the routing key, or {@code null} */
    public String routingKey() {
        return routingKey;
    }

    /** @return the payloads (not copies) */
    @Override
    public List<ByteBuffer> payloads() {
        return payloads;
    }

    /** @return how many events */
    public int count() {
        return payloads.size();
    }

    /** @return bytes on the wire and in the segment, framing included */
    @Override
    public int framedSize() {
        return framedSize;
    }

    @Override
    public boolean headerless() {
        return headerless;
    }

    /** @return completes when durable; fails if the events can never be written */
    public CompletableFuture<Void> future() {
        return future;
    }

    /**
     * Lets the calling thread read the connection this event was last sent on, which its acknowledgement comes on,
     * until the event settles or {@code deadline} passes, where the connection allows it ({@link Connection#lead});
     * returns at once otherwise (not sent yet, settled, or another thread reads that connection). The caller then
     * waits for {@link #future()} as usual: a resend after a reconnect is acknowledged on another connection.
     */
    public void leadUntilSettled(Deadline deadline) {
        Connection c = sentOn;
        if (c != null && !future.isDone()) {
            c.lead(future, deadline);
        }
    }

    void sentOn(Connection connection) {
        sentOn = connection;
    }

    /** Records what the write holds of its writer's budget until it settles (given back by its settlement). */
    public void charge(int bytes) {
        charged = bytes;
    }

    /** @return what {@link #charge} recorded, 0 if nothing */
    public int charged() {
        return charged;
    }

    /**
     * Sets who is told when this write settles, in place of a dependent stage on {@link #future()}: the writer's
     * bookkeeping (room for more bytes, the writes a flush waits for) without two allocations and two atomic
     * updates per event. Call before the event is handed to a segment writer, at most once.
     */
    public void onSettled(Settlement s) {
        if (settlement != null) {
            throw new IllegalStateException("the settlement of a pending event is set already");
        }
        settlement = java.util.Objects.requireNonNull(s, "settlement");
    }

    /**
     * Completes every write of {@code events} as durable and tells their settlements, once for each run of events
     * that share one ({@link Settlement#succeeded}), so a block's acknowledgement costs its writer's bookkeeping a
     * few atomic updates rather than a few per event. Writes completed before (failed) are left as they are.
     */
    public static void succeedAll(List<PendingEvent> events) {
        Settlement run = null;
        int count = 0;
        long bytes = 0;
        for (PendingEvent e : events) {
            if (!e.future.completeUntold()) {
                continue;
            }
            Settlement s = e.settlement;
            if (s != run) {
                if (run != null) {
                    run.succeeded(count, bytes);
                }
                run = s;
                count = 0;
                bytes = 0;
            }
            count++;
            bytes += e.charged;
        }
        if (run != null) {
            run.succeeded(count, bytes);
        }
    }

    /** Told once when a pending write settles: acknowledged, or failed for good. */
    public interface Settlement {
        /**
         * One write settled. Runs on the thread that completed it (a connection's reader, for acknowledgements):
         * quick, no blocking.
         *
         * @param event the write
         * @param failure why it failed, or null once it is durable
         */
        void settled(PendingEvent event, Throwable failure);

        /**
         * Several writes of this settlement became durable at once ({@link #succeedAll}). Quick, no blocking.
         *
         * @param writes how many
         * @param bytes what they were {@link #charge charged} in all
         */
        void succeeded(int writes, long bytes);
    }

    /** The write's future: tells the settlement, once, after completing. */
    private final class Completion extends CompletableFuture<Void> {
        /** Completes without telling the settlement: the caller tells it ({@link #succeedAll}). */
        boolean completeUntold() {
            return super.complete(null);
        }

        @Override
        public boolean complete(Void value) {
            boolean done = super.complete(value);
            if (done && settlement != null) {
                settlement.settled(PendingEvent.this, null);
            }
            return done;
        }

        @Override
        public boolean completeExceptionally(Throwable failure) {
            boolean done = super.completeExceptionally(failure);
            if (done && settlement != null) {
                settlement.settled(PendingEvent.this, failure);
            }
            return done;
        }
    }
}
