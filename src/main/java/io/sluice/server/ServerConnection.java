package io.sluice.server;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;

import io.sluice.common.Threads;
import io.sluice.wire.AppendStreamDecoder;
import io.sluice.wire.AuthTokenCheckFailed;
import io.sluice.wire.CreateSegment;
import io.sluice.wire.CreateTableSegment;
import io.sluice.wire.CreateTransientSegment;
import io.sluice.wire.DataAppended;
import io.sluice.wire.DeleteSegment;
import io.sluice.wire.DeleteTableSegment;
import io.sluice.wire.FrameCodec;
import io.sluice.wire.GetSegmentAttribute;
import io.sluice.wire.GetStreamSegmentInfo;
import io.sluice.wire.GetTableSegmentInfo;
import io.sluice.wire.Hello;
import io.sluice.wire.InvalidWireCommandException;
import io.sluice.wire.KeepAlive;
import io.sluice.wire.LocateOffset;
import io.sluice.wire.MergeSegments;
import io.sluice.wire.MergeSegmentsBatch;
import io.sluice.wire.ReadSegment;
import io.sluice.wire.ReadTable;
import io.sluice.wire.ReadTableEntries;
import io.sluice.wire.ReadTableEntriesDelta;
import io.sluice.wire.ReadTableKeys;
import io.sluice.wire.RemoveTableKeys;
import io.sluice.wire.Reply;
import io.sluice.wire.Request;
import io.sluice.wire.SealSegment;
import io.sluice.wire.SegmentCreated;
import io.sluice.wire.SetupAppend;
import io.sluice.wire.TruncateSegment;
import io.sluice.wire.UpdateSegmentAttribute;
import io.sluice.wire.UpdateSegmentPolicy;
import io.sluice.wire.UpdateTableEntries;
import io.sluice.wire.WireCommand;
import io.sluice.wire.WireCommandType;
import io.sluice.wire.WireOutput;
import io.sluice.wire.WireProtocol;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client connection to the embedded segment store: a virtual thread reads and handles requests in order
 * (appends are pipelined: the next request is read while earlier appends become durable), a second one writes
 * replies. A malformed frame or a broken protocol rule closes this connection only, with a logged reason.
 */
final class ServerConnection implements ReplySink {
    private static final Logger LOG = LoggerFactory.getLogger(ServerConnection.class);
    /** Append bytes in flight (not yet durable) before the connection stops reading: backpressure. */
    static final int MAX_INFLIGHT_BYTES = 64 * 1024 * 1024;
    private static final Reply CLOSE = new KeepAlive();

    private final Socket socket;
    private final String peer;
    private final SegmentStore store;
    private final TokenVerifier tokens;
    private final AppendStreamDecoder appends = new AppendStreamDecoder();
    private final LinkedBlockingQueue<Reply> outbound = new LinkedBlockingQueue<>();
    private final Semaphore inflight = new Semaphore(MAX_INFLIGHT_BYTES);
    /** Last event number acknowledged on this connection, per writer (read and written by reply callbacks). */
    private final ConcurrentHashMap<UUID, Long> lastAcked = new ConcurrentHashMap<>();
    private final Set<String> transients = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final Runnable onClose;

    ServerConnection(Socket socket, SegmentStore store, TokenVerifier tokens, Runnable onClose) {
        this.socket = socket;
        this.peer = String.valueOf(socket.getRemoteSocketAddress());
        this.store = store;
        this.tokens = tokens;
        this.onClose = onClose;
    }

    /** Starts the reader and writer threads. */
    void start() {
        Threads.startVirtual("sluice-ss-reader-" + peer, this::readLoop);
        Threads.startVirtual("sluice-ss-writer-" + peer, this::writeLoop);
    }

    @Override
    public void send(Reply reply) {
        if (!closed.get()) {
            outbound.add(reply);
        }
    }

    private void readLoop() {
        try {
            socket.setTcpNoDelay(true);
            DataInputStream in = new DataInputStream(new BufferedInputStream(socket.getInputStream(), 64 * 1024));
            while (!closed.get()) {
                int type = in.readInt();
                int length = in.readInt();
                WireCommandType t = FrameCodec.checkHeader(type, length);
                byte[] payload = new byte[length];
                in.readFully(payload);
                handle(FrameCodec.decodePayload(t, ByteBuffer.wrap(payload)));
            }
        } catch (EOFException | SocketException e) {
            LOG.debug("connection from {} ended", peer);
        } catch (InvalidWireCommandException e) {
            LOG.warn("closing connection from {}: {}", peer, e.getMessage());
        } catch (ProtocolViolation e) {
            LOG.warn("closing connection from {}: {}", peer, e.getMessage());
        } catch (IOException e) {
            LOG.debug("connection from {} failed: {}", peer, e.toString());
        } catch (InterruptedException e) {
            LOG.debug("connection from {} interrupted", peer);
        } catch (RuntimeException e) {
            LOG.error("closing connection from {} after an internal error", peer, e);
        } finally {
            close();
        }
    }

    /** A request the protocol does not allow here: the connection is closed (as a real segment store does). */
    private static final class ProtocolViolation extends RuntimeException {
        private static final long serialVersionUID = 1L;

        ProtocolViolation(String message) {
            super(message, null, false, false);
        }
    }

    private void handle(WireCommand command) throws InterruptedException {
        if (!(command instanceof Request request)) {
            throw new ProtocolViolation("a client sent a reply: " + command.type());
        }
        AppendStreamDecoder.Append append = appends.accept(request);
        if (append != null) {
            append(append);
            return;
        }
        switch (request) {
            case Hello h -> {
                send(Hello.current());
                if (h.lowVersion() > WireProtocol.WIRE_VERSION || h.highVersion() < WireProtocol.OLDEST_COMPATIBLE_VERSION) {
                    LOG.warn("closing connection from {}: it speaks wire versions {}..{}", peer, h.lowVersion(), h.highVersion());
                    closeAfterReplies();
                }
            }
            case KeepAlive k -> send(k);
            case SetupAppend s -> {
                if (authorized(s.requestId(), s.delegationToken(), s.segment(), true)) {
                    query(s.segment(), (c, ctx) -> c.setupAppend(ctx, s));
                }
            }
            case ReadSegment r -> {
                if (r.offset() < 0) {
                    throw new ProtocolViolation("ReadSegment of " + r.segment() + " at negative offset " + r.offset());
                }
                if (authorized(r.requestId(), r.delegationToken(), r.segment(), false)) {
                    SegmentContainer container = store.container(r.segment());
                    container.query(ctx -> container.read(ctx, r, this, this), this);
                }
            }
            case GetStreamSegmentInfo r -> {
                if (authorized(r.requestId(), r.delegationToken(), r.segmentName(), false)) {
                    query(r.segmentName(), (c, ctx) -> c.streamSegmentInfo(ctx, r));
                }
            }
            case GetSegmentAttribute r -> {
                if (authorized(r.requestId(), r.delegationToken(), r.segmentName(), false)) {
                    query(r.segmentName(), (c, ctx) -> c.attribute(ctx, r));
                }
            }
            case GetTableSegmentInfo r -> {
                if (authorized(r.requestId(), r.delegationToken(), r.segmentName(), false)) {
                    query(r.segmentName(), (c, ctx) -> c.tableSegmentInfo(ctx, r));
                }
            }
            case LocateOffset r -> {
                if (authorized(r.requestId(), r.delegationToken(), r.segment(), false)) {
                    query(r.segment(), (c, ctx) -> c.locateOffset(ctx, r));
                }
            }
            case ReadTable r -> {
                if (authorized(r.requestId(), r.delegationToken(), r.segment(), false)) {
                    query(r.segment(), (c, ctx) -> c.readTable(ctx, r));
                }
            }
            case ReadTableKeys r -> {
                if (authorized(r.requestId(), r.delegationToken(), r.segment(), false)) {
                    query(r.segment(), (c, ctx) -> c.readTableKeys(ctx, r));
                }
            }
            case ReadTableEntries r -> {
                if (authorized(r.requestId(), r.delegationToken(), r.segment(), false)) {
                    query(r.segment(), (c, ctx) -> c.readTableEntries(ctx, r));
                }
            }
            case ReadTableEntriesDelta r -> {
                if (authorized(r.requestId(), r.delegationToken(), r.segment(), false)) {
                    query(r.segment(), (c, ctx) -> c.readTableDelta(ctx, r));
                }
            }
            case CreateTransientSegment r -> {
                if (authorized(r.requestId(), r.delegationToken(), r.parentSegment(), true)) {
                    String name = SegmentContainer.transientName(r.parentSegment(), r.writerId());
                    transients.add(name);
                    store.submit(new ContainerOp.CreateTransient(System.currentTimeMillis(), name, r.requestId()))
                            .whenComplete((reply, err) -> replyOrClose(reply, err));
                }
            }
            case TruncateSegment r -> {
                if (r.truncationOffset() < 0) {
                    throw new ProtocolViolation("TruncateSegment of " + r.segment() + " at negative offset " + r.truncationOffset());
                }
                change(r, r.delegationToken());
            }
            case CreateSegment r -> {
                if (r.segment().isEmpty()) {
                    throw new ProtocolViolation("CreateSegment with an empty name");
                }
                change(r, r.delegationToken());
            }
            case CreateTableSegment r -> change(r, r.delegationToken());
            case SealSegment r -> change(r, r.delegationToken());
            case DeleteSegment r -> change(r, r.delegationToken());
            case DeleteTableSegment r -> change(r, r.delegationToken());
            case UpdateSegmentPolicy r -> change(r, r.delegationToken());
            case UpdateSegmentAttribute r -> change(r, r.delegationToken());
            case MergeSegments r -> change(r, r.delegationToken());
            case MergeSegmentsBatch r -> change(r, r.delegationToken());
            case UpdateTableEntries r -> change(r, r.delegationToken());
            case RemoveTableKeys r -> change(r, r.delegationToken());
            // consumed by the append decoder above
            case io.sluice.wire.Padding p -> { }
            case io.sluice.wire.AppendBlock b -> { }
            case io.sluice.wire.PartialEvent p -> throw new ProtocolViolation("PARTIAL_EVENT outside an AppendBlock");
            case io.sluice.wire.AppendBlockEnd e -> throw new IllegalStateException("the append decoder returns every AppendBlockEnd");
            case io.sluice.wire.ConditionalAppend e -> throw new IllegalStateException("the append decoder returns every ConditionalAppend");
            case io.sluice.wire.ConditionalBlockEnd e -> throw new IllegalStateException("the append decoder returns every ConditionalBlockEnd");
            case io.sluice.wire.FlushToStorage f -> throw new ProtocolViolation("admin command FLUSH_TO_STORAGE on the data port");
            case io.sluice.wire.ListStorageChunks l -> throw new ProtocolViolation("admin command LIST_STORAGE_CHUNKS on the data port");
        }
    }

    @FunctionalInterface
    private interface Query {
        Object answer(SegmentContainer container, SegmentContainer.QueryContext ctx);
    }

    private void query(String segment, Query q) {
        SegmentContainer container = store.container(segment);
        container.query(ctx -> q.answer(container, ctx), this);
    }

    private boolean authorized(long requestId, String token, String segment, boolean write) {
        AuthTokenCheckFailed.ErrorCode refusal = tokens.check(token, segment, write);
        if (refusal == null) {
            return true;
        }
        send(new AuthTokenCheckFailed(requestId, "the delegation token does not allow " + (write ? "writing " : "reading ")
                + segment, refusal));
        return false;
    }

    private void change(Request r, String token) {
        if (authorized(r.requestId(), token, SegmentStore.segmentOf(r), true)) {
            store.submit(r).whenComplete((reply, err) -> replyOrClose(reply, err));
        }
    }

    private void replyOrClose(Object reply, Throwable err) {
        if (err != null) {
            LOG.error("closing connection from {}: the segment store failed", peer, err);
            close();
        } else {
            if (reply instanceof SegmentCreated c && c.segment().contains("#transient.")) {
                transients.add(c.segment());
            }
            send((Reply) reply);
        }
    }

    private void append(AppendStreamDecoder.Append a) throws InterruptedException {
        // appends were authorised by their writer's SetupAppend, as on a real segment store
        int bytes = Math.min(MAX_INFLIGHT_BYTES, a.data().remaining());
        inflight.acquire(bytes);
        long expected = a.conditional() ? a.expectedOffset() : ContainerOp.Append.UNCONDITIONAL;
        store.submit(new ContainerOp.Append(System.currentTimeMillis(), a.segment(), a.writerId(), a.eventNumber(),
                a.eventCount(), expected, a.requestId(), a.data())).whenComplete((result, err) -> {
                    inflight.release(bytes);
                    if (err != null) {
                        replyOrClose(null, err);
                    } else {
                        acknowledge(a, (SegmentContainer.AppendResult) result);
                    }
                });
    }

    private void acknowledge(AppendStreamDecoder.Append a, SegmentContainer.AppendResult result) {
        switch (result) {
            case SegmentContainer.AppendResult.Appended ok -> {
                lastAcked.put(a.writerId(), ok.ack().eventNumber());
                send(ok.ack());
            }
            case SegmentContainer.AppendResult.Duplicate d -> {
                // already durable: acknowledge again (a real segment store appends it a second time instead), but
                // only if this connection has not acknowledged that far, so acks keep increasing
                long last = lastAcked.getOrDefault(d.writerId(), WireProtocol.NULL_ATTRIBUTE_VALUE);
                if (d.eventNumber() > last) {
                    lastAcked.put(d.writerId(), d.eventNumber());
                    send(new DataAppended(a.requestId(), d.writerId(), d.eventNumber(), last, d.length()));
                }
            }
            case SegmentContainer.AppendResult.Refused r -> send(r.reply());
        }
    }

    private void writeLoop() {
        WireOutput buf = new WireOutput(64 * 1024);
        List<Reply> batch = new ArrayList<>();
        try {
            OutputStream out = socket.getOutputStream();
            while (true) {
                batch.add(outbound.take());
                outbound.drainTo(batch, 1023);
                buf.clear();
                boolean closeAfter = false;
                for (Reply r : batch) {
                    if (r == CLOSE) {
                        closeAfter = true;
                        break;
                    }
                    FrameCodec.encode(r, buf);
                }
                batch.clear();
                out.write(buf.array(), 0, buf.position());
                out.flush();
                if (closeAfter) {
                    close();
                    return;
                }
                if (buf.array().length > 4 * 1024 * 1024) {
                    buf = new WireOutput(64 * 1024);
                }
            }
        } catch (IOException e) {
            LOG.debug("writing to {} failed: {}", peer, e.toString());
        } catch (InterruptedException e) {
            LOG.debug("writer of {} interrupted", peer);
        } finally {
            close();
        }
    }

    private void closeAfterReplies() {
        outbound.add(CLOSE);
    }

    /** Closes the connection: parked reads are dropped and the transient segments it created are deleted. */
    void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        try {
            socket.close();
        } catch (IOException e) {
            LOG.debug("closing socket of {}", peer, e);
        }
        outbound.clear();
        outbound.add(CLOSE);
        for (SegmentContainer c : store.containers()) {
            c.dropParkedReads(this);
        }
        for (String t : transients) {
            store.submit(new DeleteSegment(0, t, ""));
        }
        onClose.run();
    }
}
