package io.sluice.server;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.Socket;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;

import io.sluice.common.ServerMetrics;
import io.sluice.common.Threads;
import io.sluice.wire.AppendStreamDecoder;
import io.sluice.wire.AuthTokenCheckFailed;
import io.sluice.wire.CreateSegment;
import io.sluice.wire.CreateTableSegment;
import io.sluice.wire.CreateTransientSegment;
import io.sluice.wire.DataAppended;
import io.sluice.wire.DeleteSegment;
import io.sluice.wire.DeleteTableSegment;
import io.sluice.wire.ErrorMessage;
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
import io.sluice.wire.SegmentRead;
import io.sluice.wire.SetupAppend;
import io.sluice.wire.TruncateSegment;
import io.sluice.wire.UpdateSegmentAttribute;
import io.sluice.wire.UpdateSegmentPolicy;
import io.sluice.wire.UpdateTableEntries;
import io.sluice.wire.WireCommand;
import io.sluice.wire.WireCommandType;
import io.sluice.wire.WireInput;
import io.sluice.wire.WireProtocol;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client connection to the embedded segment store: a virtual thread reads and handles requests in order
 * (appends are pipelined: the next request is read while earlier appends become durable); its {@link ReplyWriter}
 * writes the replies (on a second virtual thread, or on the reader's own when nothing waits). A malformed frame or a
 * broken protocol rule closes this connection only, with a logged reason.
 *
 * <p>What a connection may hold of the server's memory is bounded by its {@link ServerLimits}: a frame's buffer grows
 * with the bytes that actually arrived (a header alone allocates nothing large), appends in flight and replies the
 * client has not read yet each stop the reading of further requests past their limit, and before any of its requests
 * carried a valid token a connection may send no frame larger than {@link ServerLimits#maxFrameBeforeAuth()}.
 */
final class ServerConnection implements ReplySink {
    private static final Logger LOG = LoggerFactory.getLogger(ServerConnection.class);
    /** What a frame's buffer starts at before its bytes arrive. */
    private static final int FIRST_BUFFER_BYTES = 64 * 1024;

    private final Socket socket;
    private final String peer;
    private final SegmentStore store;
    private final TokenVerifier tokens;
    private final AppendStreamDecoder appends = new AppendStreamDecoder();
    private final ServerLimits limits;
    private final Semaphore inflight;
    private final ReplyWriter replies;
    /** True once a request of this connection passed the token check (from the start when tokens are not checked). */
    private boolean authenticated;
    /** Last event number acknowledged on this connection, per writer (read and written by reply callbacks). */
    private final ConcurrentHashMap<UUID, Long> lastAcked = new ConcurrentHashMap<>();
    /** Read on the reader thread only: whether the token each append session was set up with has expired. */
    private final java.util.HashMap<WriterOnSegment, BooleanSupplier> sessionExpiries = new java.util.HashMap<>();
    private final Set<String> transients = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final Runnable onClose;
    private final ServerMetrics metrics;

    ServerConnection(Socket socket, SegmentStore store, TokenVerifier tokens, ServerLimits limits, Runnable onClose) {
        this(socket, store, tokens, limits, ServerMetrics.NONE, onClose);
    }

    ServerConnection(Socket socket, SegmentStore store, TokenVerifier tokens, ServerLimits limits,
                     ServerMetrics metrics, Runnable onClose) {
        this.metrics = metrics;
        this.socket = socket;
        this.peer = String.valueOf(socket.getRemoteSocketAddress());
        this.store = store;
        this.tokens = tokens;
        this.limits = limits;
        this.inflight = new Semaphore(limits.maxInflightBytes());
        this.authenticated = tokens == TokenVerifier.ACCEPT_ALL;
        this.onClose = onClose;
        this.replies = new ReplyWriter(socket, peer, limits.maxQueuedReplyBytes(), this::close);
    }

    /** Starts the reader and writer threads. */
    void start() {
        Threads.startVirtual("sluice-ss-reader-" + peer, this::readLoop);
        replies.start();
    }

    @Override
    public void send(Reply reply) {
        if (!closed.get()) {
            if (reply instanceof SegmentRead r) {
                metrics.read(r.data().remaining());
            }
            replies.send(reply);
        }
    }

    private void readLoop() {
        try {
            socket.setTcpNoDelay(true);
            DataInputStream in = new DataInputStream(new BufferedInputStream(socket.getInputStream(), 64 * 1024));
            replies.readerIs(Thread.currentThread());
            while (!closed.get()) {
                replies.writeClaimed(); // the replies to the last request, before this thread may block
                replies.awaitRoom();
                int type = in.readInt();
                int length = in.readInt();
                WireCommandType t = FrameCodec.checkHeader(type, length);
                Partial start = length > limits.maxFrameBeforeAuth() && !authenticated
                        ? authenticateLargeFrame(in, t, length)
                        : new Partial(new byte[firstBufferBytes(in, length)], 0);
                if (start == null) {
                    continue;
                }
                byte[] payload = readPayload(in, start.buf(), start.filled(), length);
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

    /** @return what a frame's buffer starts at: all of it if small, else what has arrived (at least 64 KiB) */
    private static int firstBufferBytes(DataInputStream in, int length) throws IOException {
        return length <= FIRST_BUFFER_BYTES ? length : Math.min(length, Math.max(FIRST_BUFFER_BYTES, in.available()));
    }

    /**
     * Reads the rest of a frame's payload into {@code buf}, which holds {@code filled} bytes of it; the buffer grows
     * (doubling) only as bytes arrive, so a frame costs at most about twice the bytes its sender really sent.
     */
    private static byte[] readPayload(DataInputStream in, byte[] buf, int filled, int length) throws IOException {
        while (filled < length) {
            if (filled == buf.length) {
                buf = java.util.Arrays.copyOf(buf, (int) Math.min(length, 2L * buf.length));
            }
            int n = in.read(buf, filled, buf.length - filled);
            if (n < 0) {
                throw new EOFException("the connection ended inside a frame");
            }
            filled += n;
        }
        return buf;
    }

    /**
     * A frame larger than {@link ServerLimits#maxFrameBeforeAuth()} on a connection none of whose requests has yet
     * carried a valid token: only a table update, removal or read may be that large, and only if the token at its
     * start (after the request id and the segment name) is valid for it.
     *
     * @return a buffer for the payload holding its first {@code filled} bytes (the fields read to check the token),
     *     or {@code null} if the token was refused: the refusal is sent and the rest of the frame skipped
     */
    private Partial authenticateLargeFrame(DataInputStream in, WireCommandType type, int length) throws IOException {
        boolean write = type == WireCommandType.UPDATE_TABLE_ENTRIES || type == WireCommandType.REMOVE_TABLE_KEYS;
        if (!write && type != WireCommandType.READ_TABLE) {
            throw new ProtocolViolation("a " + type + " frame of " + length + " bytes before any request carried a"
                    + " valid delegation token (at most " + limits.maxFrameBeforeAuth() + " bytes)");
        }
        // requestId i64, segment UTF, delegationToken UTF: read field by field, never past the frame
        byte[] head = new byte[Long.BYTES + 2 * (2 + 65535)];
        int at = readWithin(in, head, 0, Long.BYTES + 2, length);
        at = readWithin(in, head, at, unsignedShort(head, at - 2) + 2, length);
        at = readWithin(in, head, at, unsignedShort(head, at - 2), length);
        WireInput fields = new WireInput(ByteBuffer.wrap(head, 0, at), type.name());
        long requestId = fields.readLong("requestId");
        String segment = fields.readUtf("segment");
        String token = fields.readUtf("delegationToken");
        if (!authorized(requestId, token, segment, write)) {
            replies.writeClaimed(); // the refusal goes out before this thread waits for the rest of the frame
            in.skipNBytes(length - at); // refused like any request; the rest of it is never buffered
            return null;
        }
        byte[] buf = java.util.Arrays.copyOf(head, Math.min(length, Math.max(FIRST_BUFFER_BYTES, 2 * at)));
        return new Partial(buf, at);
    }

    /** An append session's key. */
    private record WriterOnSegment(UUID writerId, String segment) {
    }

    /** The start of a payload: a buffer and how many of its bytes are filled. */
    private record Partial(byte[] buf, int filled) {
    }

    private static int unsignedShort(byte[] b, int at) {
        return ((b[at] & 0xff) << 8) | (b[at + 1] & 0xff);
    }

    /** Reads {@code n} bytes into {@code dst} at {@code at}, failing if that would pass the frame's end. */
    private static int readWithin(DataInputStream in, byte[] dst, int at, int n, int frameLength) throws IOException {
        if (at + n > frameLength) {
            throw new ProtocolViolation("a frame of " + frameLength + " bytes is too short for its fields");
        }
        in.readFully(dst, at, n);
        return at + n;
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
        if (request instanceof SetupAppend s && !appends.blockOpen()) {
            if (!authorized(s.requestId(), s.delegationToken(), s.segment(), true)) {
                return; // refused: the writer is not registered, so its appends close the connection
            }
            BooleanSupplier expiry = tokens.expiry(s.delegationToken());
            if (expiry != TokenVerifier.NEVER) {
                sessionExpiries.put(new WriterOnSegment(s.writerId(), s.segment()), expiry);
            } else if (!sessionExpiries.isEmpty()) {
                sessionExpiries.remove(new WriterOnSegment(s.writerId(), s.segment()));
            }
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
            case SetupAppend s -> query(s.requestId(), s.segment(), (c, ctx) -> c.setupAppend(ctx, s)); // authorised above
            case ReadSegment r -> {
                if (r.offset() < 0) {
                    throw new ProtocolViolation("ReadSegment of " + r.segment() + " at negative offset " + r.offset());
                }
                if (authorized(r.requestId(), r.delegationToken(), r.segment(), false)) {
                    query(r.requestId(), r.segment(), (c, ctx) -> c.read(ctx, r, this, this));
                }
            }
            case GetStreamSegmentInfo r -> {
                if (authorized(r.requestId(), r.delegationToken(), r.segmentName(), false)) {
                    query(r.requestId(), r.segmentName(), (c, ctx) -> c.streamSegmentInfo(ctx, r));
                }
            }
            case GetSegmentAttribute r -> {
                if (authorized(r.requestId(), r.delegationToken(), r.segmentName(), false)) {
                    query(r.requestId(), r.segmentName(), (c, ctx) -> c.attribute(ctx, r));
                }
            }
            case GetTableSegmentInfo r -> {
                if (authorized(r.requestId(), r.delegationToken(), r.segmentName(), false)) {
                    query(r.requestId(), r.segmentName(), (c, ctx) -> c.tableSegmentInfo(ctx, r));
                }
            }
            case LocateOffset r -> {
                if (authorized(r.requestId(), r.delegationToken(), r.segment(), false)) {
                    query(r.requestId(), r.segment(), (c, ctx) -> c.locateOffset(ctx, r));
                }
            }
            case ReadTable r -> {
                if (authorized(r.requestId(), r.delegationToken(), r.segment(), false)) {
                    query(r.requestId(), r.segment(), (c, ctx) -> c.readTable(ctx, r));
                }
            }
            case ReadTableKeys r -> {
                if (authorized(r.requestId(), r.delegationToken(), r.segment(), false)) {
                    query(r.requestId(), r.segment(), (c, ctx) -> c.readTableKeys(ctx, r));
                }
            }
            case ReadTableEntries r -> {
                if (authorized(r.requestId(), r.delegationToken(), r.segment(), false)) {
                    query(r.requestId(), r.segment(), (c, ctx) -> c.readTableEntries(ctx, r));
                }
            }
            case ReadTableEntriesDelta r -> {
                if (authorized(r.requestId(), r.delegationToken(), r.segment(), false)) {
                    query(r.requestId(), r.segment(), (c, ctx) -> c.readTableDelta(ctx, r));
                }
            }
            case CreateTransientSegment r -> {
                String name = SegmentContainer.transientName(r.parentSegment(), r.writerId());
                if (!WireText.fits(name)) {
                    send(new ErrorMessage(r.requestId(), r.parentSegment(), "the parent's name is too long for a"
                            + " transient segment name (at most 65535 bytes on the wire)",
                            ErrorMessage.ErrorCode.ILLEGAL_ARGUMENT_EXCEPTION));
                } else if (authorized(r.requestId(), r.delegationToken(), r.parentSegment(), true)) {
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
            case MergeSegments r -> {
                if (authorized(r.requestId(), r.delegationToken(), r.source(), true)) {
                    change(r, r.delegationToken());
                }
            }
            case MergeSegmentsBatch r -> {
                if (allAuthorized(r.requestId(), r.delegationToken(), r.sourceSegmentIds())) {
                    change(r, r.delegationToken());
                }
            }
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

    /**
     * Answers a request from the segment's container. A query that fails answers its request with an error reply
     * (ILLEGAL_ARGUMENT for a bad argument), whether it ran at once or waited behind pending changes; the connection
     * stays open.
     */
    private void query(long requestId, String segment, Query q) {
        SegmentContainer container = store.container(segment);
        container.query(ctx -> {
            try {
                return q.answer(container, ctx);
            } catch (IllegalArgumentException e) {
                return new ErrorMessage(requestId, segment, WireText.abbreviate(e.getMessage()),
                        ErrorMessage.ErrorCode.ILLEGAL_ARGUMENT_EXCEPTION);
            } catch (RuntimeException e) {
                LOG.error("a query of {} from {} failed", WireText.abbreviate(segment), peer, e);
                return new ErrorMessage(requestId, segment, "internal error: " + WireText.abbreviate(e.toString()),
                        ErrorMessage.ErrorCode.UNSPECIFIED);
            }
        }, this);
    }

    /** @return true if the token allows writing every one of {@code segments} (a refusal is sent for the first not) */
    private boolean allAuthorized(long requestId, String token, List<String> segments) {
        for (String segment : segments) {
            if (!authorized(requestId, token, segment, true)) {
                return false;
            }
        }
        return true;
    }

    private boolean authorized(long requestId, String token, String segment, boolean write) {
        AuthTokenCheckFailed.ErrorCode refusal = tokens.check(token, segment, write);
        if (refusal == null) {
            authenticated = true;
            return true;
        }
        send(new AuthTokenCheckFailed(requestId, "the delegation token does not allow " + (write ? "writing " : "reading ")
                + WireText.abbreviate(segment), refusal));
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
        // appends were authorised by their writer's SetupAppend, as on a real segment store; once the token of that
        // SetupAppend has expired, the connection is closed (as Pravega's does): the writer connects again and sets up
        // with a new token, which a revoked user cannot get
        if (!sessionExpiries.isEmpty()) {
            BooleanSupplier expired = sessionExpiries.get(new WriterOnSegment(a.writerId(), a.segment()));
            if (expired != null && expired.getAsBoolean()) {
                LOG.info("closing connection from {}: the delegation token writer {} set up its appends to {} with"
                        + " has expired", peer, a.writerId(), WireText.abbreviate(a.segment()));
                close();
                return;
            }
        }
        int size = a.data().remaining();
        int bytes = Math.min(limits.maxInflightBytes(), size);
        if (!inflight.tryAcquire(bytes)) {
            replies.writeClaimed(); // never wait holding the socket's claim: queued replies wait for it
            inflight.acquire(bytes);
        }
        long expected = a.conditional() ? a.expectedOffset() : ContainerOp.Append.UNCONDITIONAL;
        store.submit(new ContainerOp.Append(System.currentTimeMillis(), a.segment(), a.writerId(), a.eventNumber(),
                a.eventCount(), expected, a.requestId(), a.data())).whenComplete((result, err) -> {
                    inflight.release(bytes);
                    if (err != null) {
                        replyOrClose(null, err);
                    } else {
                        acknowledge(a, size, (SegmentContainer.AppendResult) result);
                    }
                });
    }

    private void acknowledge(AppendStreamDecoder.Append a, int size, SegmentContainer.AppendResult result) {
        switch (result) {
            case SegmentContainer.AppendResult.Appended ok -> {
                metrics.appended(a.eventCount(), size);
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

    private void closeAfterReplies() {
        replies.closeAfterReplies();
    }

    /**
     * Closes the connection: parked reads are dropped and the transient segments it created are deleted. Every step
     * runs even when an earlier one fails.
     */
    void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        try {
            socket.close();
        } catch (IOException | RuntimeException e) {
            LOG.debug("closing socket of {}", peer, e);
        }
        replies.stop();
        try {
            for (SegmentContainer c : store.containers()) {
                c.dropParkedReads(this);
            }
            for (String t : transients) {
                try {
                    store.submit(new DeleteSegment(0, t, ""));
                } catch (RuntimeException e) {
                    LOG.warn("deleting transient segment {} of {} failed", WireText.abbreviate(t), peer, e);
                }
            }
        } catch (RuntimeException e) {
            LOG.warn("cleaning up after {} failed", peer, e);
        } finally {
            onClose.run();
        }
    }
}
