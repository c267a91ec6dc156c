package io.sluice.segment;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;

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
    private final CompletableFuture<Void> future = new CompletableFuture<>();
    /** Assigned by the segment writer that sends it; guarded by that writer's lock. */
    long eventNumber;

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
}
