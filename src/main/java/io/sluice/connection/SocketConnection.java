package io.sluice.connection;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import javax.net.ssl.SSLSocket;

import io.sluice.common.Deadline;
import io.sluice.common.Endpoint;
import io.sluice.common.Threads;
import io.sluice.errors.ConnectionFailedException;
import io.sluice.errors.IncompatibleServerException;
import io.sluice.errors.ProtocolException;
import io.sluice.errors.StreamingInterruptedException;
import io.sluice.wire.FrameCodec;
import io.sluice.wire.Hello;
import io.sluice.wire.InvalidWireCommandException;
import io.sluice.wire.KeepAlive;
import io.sluice.wire.Reply;
import io.sluice.wire.WireCommand;
import io.sluice.wire.WireCommandType;
import io.sluice.wire.WireOutput;
import io.sluice.wire.WireProtocol;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A connection over a connected {@link Socket} (plain or TLS). Three virtual threads serve it:
 * <ul>
 *   <li>the <b>reader</b> (a platform thread instead if {@link ConnectionConfig#platformReaders}) decodes frames
 *       (checking each header before it allocates the payload) and routes every reply to its flow's queue, never
 *       blocking on a flow. On a plain-TCP connection with {@link ConnectionConfig#callerReads} (the default) it
 *       waits in a selector over the socket's non-blocking channel, and a platform thread awaiting a reply may
 *       {@link #lead read beside it} until the reply comes ({@link LedReader}); otherwise it blocks in the socket's
 *       read;</li>
 *   <li>the <b>writer</b> takes queued commands, encodes everything that has queued meanwhile into one buffer and
 *       writes it with one socket write — so senders never hold a lock while doing I/O. A sender that finds the
 *       connection idle may instead {@link #tryClaim claim} the socket and write one small block itself, sparing
 *       the writer's wake-up; what is queued meanwhile waits for that write;</li>
 *   <li>the <b>keep-alive</b> check: a connection that received nothing for an interval sends a KeepAlive, and one
 *       that still received nothing by the next check is declared dead.</li>
 * </ul>
 * When the connection ends for any reason, every open flow is woken at once with the reason.
 */
final class SocketConnection implements Connection {
    private static final Logger LOG = LoggerFactory.getLogger(SocketConnection.class);
    /** Pre-encoded buffers above this size are written directly instead of being copied into the batch. */
    private static final int DIRECT_WRITE_THRESHOLD = 64 * 1024;
    /** The writer's batch buffer shrinks back after a burst made it bigger than this. */
    private static final int MAX_RETAINED_BUFFER = 4 * 1024 * 1024;
    /** The largest direct write a sender may claim: one that always fits in the socket's send buffer at once. */
    private static final int MAX_CLAIM_BYTES = 16 * 1024;

    private final Socket socket;
    private final Endpoint endpoint;
    private final ConnectionConfig config;
    private final ConcurrentHashMap<Integer, Flow> flows = new ConcurrentHashMap<>();
    private final BlockingQueue<Outbound> outbound;
    private final CompletableFuture<Hello> serverHello = new CompletableFuture<>();
    private final AtomicReference<Delivery.Dropped> ended = new AtomicReference<>();
    private final InputStream in;
    private final OutputStream out;
    /** Reads a non-blocking channel, awaiting callers too; null when the socket is read as a stream. */
    private final LedReader led;
    private volatile long lastReceivedNanos = System.nanoTime();
    private volatile int negotiatedVersion = WireProtocol.WIRE_VERSION;
    private Thread keepAliveThread;
    /**
     * Who may write to the socket: the low bit is set while a sender holds a {@link Claim}; the rest counts, in
     * steps of two, the items queued for the writer thread and not yet written. A claim is taken only from zero.
     */
    private final AtomicLong writeState = new AtomicLong();
    /** The writer thread, once started; a claim's end unparks it when it waits for the claim. */
    private volatile Thread writerThread;
    private volatile boolean writerWaiting;
    /** The buffer of direct writes; used only by the holder of the claim. */
    private final WireOutput claimBuffer = new WireOutput(4 * 1024);
    private final Claim claim = this::writeClaimed;

    private SocketConnection(Socket socket, Endpoint endpoint, ConnectionConfig config) throws IOException {
        this.socket = socket;
        this.endpoint = endpoint;
        this.config = config;
        this.outbound = new ArrayBlockingQueue<>(config.writeQueueCapacity());
        SocketChannel channel = socket.getChannel();
        if (config.callerReads() && channel != null && !(socket instanceof SSLSocket)) {
            this.led = new LedReader(channel, new LedSink());
            this.in = null;
            this.out = new ChannelOutput(channel);
        } else {
            this.led = null;
            this.in = new BufferedInputStream(socket.getInputStream(), 64 * 1024);
            this.out = socket.getOutputStream();
        }
    }

    /** What the {@link LedReader} reports to. */
    private final class LedSink implements LedReader.Sink {
        @Override
        public void received() {
            lastReceivedNanos = System.nanoTime();
        }

        @Override
        public void route(WireCommand command) {
            SocketConnection.this.route(command);
        }

        @Override
        public void readFailed(Exception e) {
            readEnded(e);
        }

        @Override
        public boolean isOpen() {
            return SocketConnection.this.isOpen();
        }
    }

    /**
     * Starts the connection's threads on a connected socket and exchanges Hello.
     *
     * @throws ConnectionFailedException if the server does not answer Hello in time or the connection drops
     * @throws IncompatibleServerException if the versions do not overlap
     */
    static SocketConnection open(Socket socket, Endpoint endpoint, ConnectionConfig config, Deadline deadline) {
        SocketConnection c;
        try {
            c = new SocketConnection(socket, endpoint, config);
        } catch (IOException e) {
            closeQuietly(socket);
            throw new ConnectionFailedException("cannot use the socket to segment store " + endpoint + ": " + e.getMessage(), e);
        }
        Runnable readLoop = c.led != null ? c.led::readLoop : c::readLoop;
        if (config.platformReaders()) {
            Threads.startPlatform("sluice-reader-" + endpoint, readLoop);
        } else {
            Threads.startVirtual("sluice-reader-" + endpoint, readLoop);
        }
        c.writerThread = Threads.startVirtual("sluice-writer-" + endpoint, c::writeLoop);
        try {
            c.send(Hello.current());
            c.awaitHello(deadline);
        } catch (RuntimeException e) {
            // an opener interrupted before its Hello was queued left the socket open and its reader waiting for ever
            c.close();
            throw e;
        }
        c.keepAliveThread = Threads.startVirtual("sluice-keepalive-" + endpoint, c::keepAliveLoop);
        return c;
    }

    private void awaitHello(Deadline deadline) {
        Hello hello;
        try {
            hello = serverHello.get(Math.max(0, deadline.remainingNanos()), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            fail("the segment store did not answer Hello in time");
            throw new ConnectionFailedException("segment store " + endpoint + " did not answer Hello before the deadline");
        } catch (InterruptedException e) {
            fail("interrupted while opening");
            Thread.currentThread().interrupt();
            throw new StreamingInterruptedException("interrupted while connecting to " + endpoint, e);
        } catch (ExecutionException e) {
            throw ended.get() != null ? ended.get().toException()
                    : new ConnectionFailedException("connection to " + endpoint + " failed", e.getCause());
        }
        if (hello.lowVersion() > WireProtocol.WIRE_VERSION || hello.highVersion() < WireProtocol.OLDEST_COMPATIBLE_VERSION) {
            IncompatibleServerException e = new IncompatibleServerException("segment store " + endpoint
                    + " speaks wire versions " + hello.lowVersion() + ".." + hello.highVersion() + ", this client "
                    + WireProtocol.OLDEST_COMPATIBLE_VERSION + ".." + WireProtocol.WIRE_VERSION);
            end("incompatible protocol versions", e);
            throw e;
        }
        negotiatedVersion = Math.min(WireProtocol.WIRE_VERSION, hello.highVersion());
    }

    @Override
    public Endpoint endpoint() {
        return endpoint;
    }

    @Override
    public int negotiatedVersion() {
        return negotiatedVersion;
    }

    @Override
    public Flow openFlow() {
        requireOpen();
        Flow flow = new Flow(this);
        flows.put(flow.id(), flow);
        Delivery.Dropped gone = ended.get();
        if (gone != null) {
            // ended between the check and the registration: make sure this flow hears about it
            flows.remove(flow.id());
            flow.drop(gone);
        }
        return flow;
    }

    void unregister(Flow flow) {
        flows.remove(flow.id(), flow);
    }

    @Override
    public int flowCount() {
        return flows.size();
    }

    @Override
    public void send(WireCommand command) {
        enqueue(new Outbound.Command(command));
    }

    @Override
    public void sendNow(WireCommand command) {
        if (writeState.get() != 0) {
            send(command); // busy: the writer thread batches it with the rest
            return;
        }
        byte[] frame = FrameCodec.encode(command);
        Claim direct = tryClaim(frame.length);
        if (direct == null) {
            enqueue(new Outbound.Encoded(ByteBuffer.wrap(frame)));
            return;
        }
        direct.write(out -> out.writeBytes(frame, 0, frame.length));
    }

    @Override
    public void sendFrames(ByteBuffer frames) {
        enqueue(new Outbound.Encoded(frames.slice()));
    }

    @Override
    public void sendFrames(java.util.function.Consumer<WireOutput> frames) {
        enqueue(new Outbound.Frames(frames));
    }

    @Override
    public boolean lead(CompletableFuture<?> done, Deadline deadline) {
        return led != null && led.lead(done, deadline);
    }

    @Override
    public boolean callersMayRead() {
        return led != null;
    }

    @Override
    public Claim tryClaim(int bytes) {
        if (bytes > MAX_CLAIM_BYTES || ended.get() != null || !writeState.compareAndSet(0, 1)) {
            return null;
        }
        return claim;
    }

    /** Writes a claim's frames and ends the claim, waking the writer thread if it waits for it. */
    private void writeClaimed(java.util.function.Consumer<WireOutput> frames) {
        try {
            claimBuffer.clear();
            frames.accept(claimBuffer);
            out.write(claimBuffer.array(), 0, claimBuffer.position());
            out.flush();
        } catch (IOException e) {
            end(ended.get() != null ? "closed" : "write failed: " + e.getMessage(), e);
        } catch (RuntimeException e) {
            end("direct write failed: " + e, e);
        } finally {
            writeState.decrementAndGet();
            if (writerWaiting) {
                LockSupport.unpark(writerThread);
            }
        }
    }

    private void enqueue(Outbound item) {
        requireOpen();
        boolean queued;
        writeState.addAndGet(2);
        try {
            queued = outbound.offer(item, config.sendTimeout().toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            writeState.addAndGet(-2);
            Thread.currentThread().interrupt();
            throw new StreamingInterruptedException("interrupted while sending to " + endpoint, e);
        }
        if (!queued) {
            writeState.addAndGet(-2);
            fail("the write queue stayed full for " + config.sendTimeout().toMillis() + " ms");
            requireOpen();
        }
        // if the connection ends from here on, the command may or may not have been written: waiting flows learn
        // of the end either way
    }

    private void requireOpen() {
        Delivery.Dropped gone = ended.get();
        if (gone != null) {
            throw gone.toException();
        }
    }

    @Override
    public boolean isOpen() {
        return ended.get() == null;
    }

    @Override
    public void fail(String reason) {
        end(reason, null);
    }

    @Override
    public void close() {
        if (ended.get() == null) {
            LOG.debug("closing connection to {}", endpoint);
        }
        end("connection to " + endpoint + " was closed", null);
    }

    /** Ends the connection once: closes the socket, wakes every flow, stops the threads. */
    private void end(String reason, Throwable cause) {
        Delivery.Dropped why = new Delivery.Dropped(reason.contains(endpoint.toString()) ? reason
                : "connection to segment store " + endpoint + " ended: " + reason, cause);
        if (!ended.compareAndSet(null, why)) {
            return;
        }
        if (cause != null || !reason.endsWith("was closed")) {
            LOG.info("{}", why.reason(), cause instanceof ProtocolException ? cause : null);
        }
        closeQuietly(socket);
        serverHello.completeExceptionally(why.toException());
        for (Flow f : flows.values()) {
            f.drop(why);
        }
        flows.clear();
        outbound.clear();
        outbound.offer(Outbound.Close.SIGNAL);
        Thread writer = writerThread;
        if (writer != null) {
            LockSupport.unpark(writer);
        }
        Thread ka = keepAliveThread;
        if (ka != null) {
            ka.interrupt();
        }
        if (led != null) {
            try {
                out.close(); // the channel's write selector too: the socket's descriptor closes with its last selector
            } catch (IOException e) {
                LOG.debug("error closing the channel's output", e);
            }
            led.wakeAll();
        }
    }

    private void readLoop() {
        DataInputStream data = new DataInputStream(in);
        try {
            while (true) {
                int type = data.readInt();
                int length = data.readInt();
                WireCommandType t = FrameCodec.checkHeader(type, length);
                byte[] payload = new byte[length];
                data.readFully(payload);
                lastReceivedNanos = System.nanoTime();
                WireCommand command = FrameCodec.decodePayload(t, ByteBuffer.wrap(payload));
                route(command);
            }
        } catch (IOException | RuntimeException e) {
            readEnded(e);
        }
    }

    /** Ends the connection after reading failed with {@code e}, naming why. */
    private void readEnded(Exception e) {
        switch (e) {
            case EOFException eof -> end("the segment store closed the connection", null);
            case IOException io -> end(ended.get() != null ? "closed" : "read failed: " + io.getMessage(), io);
            case InvalidWireCommandException bad -> end("malformed frame from the segment store: " + bad.getMessage(),
                    new ProtocolException("malformed frame from segment store " + endpoint + ": " + bad.getMessage(), bad));
            case ProtocolException p -> end(p.getMessage(), p);
            case java.nio.channels.ClosedSelectorException closed -> end("closed", null);
            default -> end("reader failed: " + e, e);
        }
    }

    private void route(WireCommand command) {
        switch (command) {
            case Hello h -> {
                if (!serverHello.complete(h)) {
                    LOG.debug("{} sent another Hello {}", endpoint, h);
                }
            }
            case KeepAlive k -> {
                // lastReceivedNanos is already updated: that is all a KeepAlive is for
            }
            case Reply reply -> {
                Flow flow = flows.get(Flow.flowIdOf(reply.requestId()));
                if (flow != null) {
                    flow.deliver(reply);
                } else {
                    LOG.debug("dropping reply for no open flow from {}: {}", endpoint, reply);
                }
            }
            default -> throw new ProtocolException("segment store " + endpoint + " sent a request: " + command.type());
        }
    }

    private void writeLoop() {
        WireOutput buf = batchBuffer();
        List<Outbound> batch = new ArrayList<>();
        try {
            while (true) {
                batch.add(outbound.take());
                outbound.drainTo(batch, 1023);
                awaitNoClaim();
                buf.clear();
                long written = 0;
                for (Outbound item : batch) {
                    if (buf.position() >= DIRECT_WRITE_THRESHOLD) {
                        flush(buf); // so the buffer holds at most about one large frame, and is kept
                    }
                    switch (item) {
                        case Outbound.Close close -> {
                            return;
                        }
                        case Outbound.Encoded e when e.frames().remaining() > DIRECT_WRITE_THRESHOLD
                                && e.frames().hasArray() -> {
                            ByteBuffer b = e.frames();
                            flush(buf);
                            out.write(b.array(), b.arrayOffset() + b.position(), b.remaining());
                        }
                        case Outbound.Encoded e -> buf.writeBytes(e.frames());
                        case Outbound.Frames f -> f.encoder().accept(buf);
                        case Outbound.Command c -> FrameCodec.encode(c.command(), buf);
                    }
                    written += 2;
                }
                batch.clear();
                flush(buf);
                out.flush();
                writeState.addAndGet(-written);
                if (buf.array().length > MAX_RETAINED_BUFFER) {
                    buf = batchBuffer();
                }
            }
        } catch (InterruptedException e) {
            end("writer interrupted", e);
        } catch (IOException e) {
            end(ended.get() != null ? "closed" : "write failed: " + e.getMessage(), e);
        } catch (UncheckedIOException e) { // from a payload written straight to the socket
            end(ended.get() != null ? "closed" : "write failed: " + e.getCause().getMessage(), e.getCause());
        } catch (RuntimeException e) {
            end("writer failed: " + e, e);
        }
    }

    /**
     * @return a batch buffer for the writer thread: large raw payloads (byte stream writes) go from the caller's
     *     copy straight to the socket instead of through it
     */
    private WireOutput batchBuffer() {
        WireOutput buf = new WireOutput(64 * 1024);
        buf.spillLargePayloadsTo((bytes, offset, length) -> {
            try {
                out.write(bytes, offset, length);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        return buf;
    }

    /**
     * The writer thread waits for an open claim to be written (no new one can start while items are queued). A claim
     * is one small write that fits the socket's buffer, so this wait is short; the end of the connection ends it too.
     */
    private void awaitNoClaim() {
        while ((writeState.get() & 1) != 0 && ended.get() == null) {
            writerWaiting = true;
            if ((writeState.get() & 1) != 0) {
                LockSupport.park(this);
            }
            writerWaiting = false;
        }
    }

    /**
     * What the writer thread takes from the queue: a command it encodes, frames encoded already, an encoder that
     * writes frames straight into the batch buffer (a segment writer's append block), or the end of the connection.
     */
    private sealed interface Outbound {
        /** A command, encoded by the writer thread. */
        record Command(WireCommand command) implements Outbound { }

        /** Whole frames, encoded by the sender; written as they are (straight to the socket when large). */
        record Encoded(ByteBuffer frames) implements Outbound { }

        /** Frames the writer thread encodes into its batch buffer by calling the sender's encoder. */
        record Frames(java.util.function.Consumer<WireOutput> encoder) implements Outbound { }

        /** The connection ended: the writer thread stops. */
        enum Close implements Outbound { SIGNAL }
    }

    /** For tests: a caller reads the socket now ({@link #lead}). */
    boolean callerLeads() {
        return led != null && led.callerHolds();
    }

    /** For tests: the writer thread waits for a claim to be written. */
    boolean writerWaitsForClaim() {
        return writerWaiting;
    }

    private void flush(WireOutput buf) throws IOException {
        if (buf.position() > 0) {
            out.write(buf.array(), 0, buf.position());
            buf.clear();
        }
    }

    private void keepAliveLoop() {
        boolean outstanding = false;
        long lastCheck = System.nanoTime();
        try {
            Thread.sleep(config.keepAliveInitialDelay());
            while (isOpen()) {
                // taken before the KeepAlive goes out: a reply that arrives before this thread runs again must count
                long now = System.nanoTime();
                if (lastReceivedNanos - lastCheck > 0) {
                    outstanding = false;
                } else if (outstanding) {
                    fail("no reply to KeepAlive within " + config.keepAliveInterval().toMillis() + " ms: the peer is gone");
                    return;
                } else {
                    send(new KeepAlive());
                    outstanding = true;
                }
                lastCheck = now;
                Thread.sleep(config.keepAliveInterval());
            }
        } catch (InterruptedException e) {
            // the connection ended
        } catch (ConnectionFailedException e) {
            // the connection ended while we were sending
        }
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException e) {
            LOG.debug("error closing socket", e);
        }
    }

    @Override
    public String toString() {
        return "SocketConnection[" + endpoint + ", flows=" + flows.size() + (isOpen() ? "" : ", ended") + "]";
    }
}
