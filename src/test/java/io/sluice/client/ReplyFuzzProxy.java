package io.sluice.client;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.RecordComponent;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

import io.sluice.common.Endpoint;
import io.sluice.wire.AppendSetup;
import io.sluice.wire.DataAppended;
import io.sluice.wire.FrameCodec;
import io.sluice.wire.Reply;
import io.sluice.wire.SegmentIsSealed;
import io.sluice.wire.SegmentRead;
import io.sluice.wire.StreamSegmentInfo;
import io.sluice.wire.TableRead;
import io.sluice.wire.WireCommand;
import io.sluice.wire.WireCommandType;
import io.sluice.wire.WireProtocol;
import io.sluice.wire.samples.AllSamples;

/**
 * A loopback proxy in front of a real segment store that passes the client's requests through untouched and mutates
 * a share of the store's replies: the client's reply decoding and its reply handling are fuzzed with traffic that is
 * mostly real (so reads, appends and table calls make progress) and sometimes wrong in one of the ways of
 * {@link Fault}. The choice for the k-th reply of the n-th connection depends only on the seed, n and k, so a seed
 * replays the same faults for the same traffic.
 *
 * <p>Faults the client can only notice by waiting (a reply dropped or replaced, a request id spoilt, a connection
 * gone silent, a length that swallows the frames behind it) are followed by the proxy hanging up the connection a
 * little later, as a dead server's connection eventually breaks: the fuzz then exercises the client's recovery
 * instead of its 30 s request timeout — and a read parked at the tail (a long poll, which a segment store may hold
 * for ever) cannot be told from a read whose reply was lost, so without the hang-up a reader would wait for ever.
 *
 * <p>Replies whose fields the client cannot check (the event numbers of {@code DataAppended} and
 * {@code AppendSetup}, the lengths of {@code StreamSegmentInfo}, the event bytes of {@code SegmentRead}) are never
 * bit-flipped: a forged acknowledgement or length is indistinguishable from a real one (a length too long, say,
 * makes a reader long-poll for bytes that never come). For the same reason an acknowledgement or an append setup is
 * never replaced by {@code SegmentIsSealed}.
 *
 * <p>Thread-safe; one virtual thread per direction of each connection.
 */
final class ReplyFuzzProxy implements AutoCloseable {

    /** The ways a reply is spoilt. */
    enum Fault {
        /** A bit of the 8-byte header (type or length) flipped. */
        FLIP_HEADER,
        /** A bit of the payload flipped (outside event bytes and acknowledged event numbers). */
        FLIP_FIELD,
        /** The declared length made shorter than the payload. */
        TRUNCATE_LENGTH,
        /** The declared length made longer than the payload (it swallows what follows). */
        EXTEND_LENGTH,
        /** A length beyond the wire's limit, or negative. */
        HUGE_LENGTH,
        /** The reply carries another request id. */
        WRONG_REQUEST_ID,
        /** The reply names another segment. */
        WRONG_SEGMENT,
        /** A valid reply of another type, with the original's request id, instead of the real one. */
        WRONG_TYPE,
        /** A valid reply nobody asked for, before the real one. */
        UNSOLICITED,
        /** The reply sent twice. */
        DUPLICATE,
        /** The reply held back and sent after the next one. */
        OUT_OF_ORDER,
        /** The reply dropped. */
        DROP,
        /** Part of the reply sent, then the connection closed. */
        CLOSE_MID_FRAME,
        /** Random bytes instead of the reply. */
        RANDOM_BYTES,
        /** Nothing more sent on this connection (until the proxy hangs up). */
        SILENT
    }

    private final ServerSocket server;
    private final Endpoint upstream;
    private final long seed;
    private final double faultRate;
    private final AtomicInteger connectionNumbers = new AtomicInteger();
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final Map<Fault, AtomicLong> injected = new ConcurrentHashMap<>();
    private final AtomicLong replies = new AtomicLong();
    private final AtomicInteger open = new AtomicInteger();
    private final List<Connection> live = new CopyOnWriteArrayList<>();
    /** The faults injected, in order: connection, fault, the reply it spoilt. */
    private final List<String> log = new CopyOnWriteArrayList<>();
    private volatile boolean closed;

    /**
     * Starts listening on a free loopback port.
     *
     * @param upstream the real segment store
     * @param seed the seed of every fault decision
     * @param faultRate the share of replies spoilt, 0 to 1
     */
    ReplyFuzzProxy(Endpoint upstream, long seed, double faultRate) throws IOException {
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        this.upstream = upstream;
        this.seed = seed;
        this.faultRate = faultRate;
        Thread.ofVirtual().name("reply-fuzz-accept").start(this::acceptLoop);
    }

    /** @return where clients connect */
    Endpoint endpoint() {
        return new Endpoint(server.getInetAddress().getHostAddress(), server.getLocalPort());
    }

    /** @return client connections open now (each with its upstream half) */
    int openConnections() {
        return open.get();
    }

    /** @return the connections open now: number and the first requests the client sent on each */
    List<String> openConnectionsDescribed() {
        List<String> out = new ArrayList<>();
        for (Connection c : live) {
            out.add("connection " + c.number + " " + c.requests);
        }
        return out;
    }

    /** @return replies that passed through, spoilt or not */
    long replies() {
        return replies.get();
    }

    /** @return how many times each fault was injected */
    Map<Fault, Long> injected() {
        Map<Fault, Long> out = new EnumMap<>(Fault.class);
        injected.forEach((f, n) -> out.put(f, n.get()));
        return out;
    }

    /** @return the last {@code n} faults injected, oldest first: connection number, fault and the reply spoilt */
    List<String> lastFaults(int n) {
        List<String> all = List.copyOf(log);
        return all.subList(Math.max(0, all.size() - n), all.size());
    }

    /** @return all faults injected */
    long faults() {
        return injected.values().stream().mapToLong(AtomicLong::get).sum();
    }

    private void acceptLoop() {
        try {
            while (!closed) {
                Socket client = server.accept();
                int n = connectionNumbers.incrementAndGet();
                Socket store;
                try {
                    store = new Socket(upstream.host(), upstream.port());
                } catch (IOException e) {
                    client.close();
                    continue;
                }
                sockets.add(client);
                sockets.add(store);
                open.incrementAndGet();
                Connection c = new Connection(n, client, store);
                live.add(c);
                Thread.ofVirtual().name("reply-fuzz-up-" + n).start(c::pumpRequests);
                Thread.ofVirtual().name("reply-fuzz-down-" + n).start(c::pumpReplies);
            }
        } catch (IOException e) {
            // closed
        }
    }

    /** One client connection and its connection to the real store. */
    private final class Connection {
        private final int number;
        private final Socket client;
        private final Socket store;
        private final Random random;
        private final ReentrantLock closeLock = new ReentrantLock();
        private boolean done;
        private byte[] held;
        /** The first requests of the client on this connection, to say which part of it opened the connection. */
        private final List<String> requests = new CopyOnWriteArrayList<>();

        Connection(int number, Socket client, Socket store) {
            this.number = number;
            this.client = client;
            this.store = store;
            this.random = new Random(seed * 1_000_003L + number);
        }

        void pumpRequests() {
            try {
                DataInputStream in = new DataInputStream(client.getInputStream());
                OutputStream out = store.getOutputStream();
                while (true) {
                    int type = in.readInt();
                    int length = in.readInt();
                    byte[] frame = new byte[WireProtocol.HEADER_SIZE + length];
                    ByteBuffer.wrap(frame).putInt(type).putInt(length);
                    in.readFully(frame, WireProtocol.HEADER_SIZE, length);
                    if (requests.size() < 4) {
                        WireCommandType t = WireCommandType.forCode(type);
                        WireCommand c = decode(frame);
                        String what = c == null ? String.valueOf(t) : c.toString();
                        requests.add(what.length() > 160 ? what.substring(0, 160) + "…" : what);
                    }
                    out.write(frame);
                    out.flush();
                }
            } catch (IOException e) {
                // one side closed
            } finally {
                hangUp();
            }
        }

        void pumpReplies() {
            try {
                DataInputStream in = new DataInputStream(store.getInputStream());
                OutputStream out = client.getOutputStream();
                boolean silent = false;
                while (true) {
                    int type = in.readInt();
                    int length = in.readInt();
                    byte[] frame = new byte[WireProtocol.HEADER_SIZE + length];
                    ByteBuffer.wrap(frame).putInt(type).putInt(length);
                    in.readFully(frame, WireProtocol.HEADER_SIZE, length);
                    replies.incrementAndGet();
                    if (silent) {
                        continue;
                    }
                    if (random.nextDouble() >= faultRate) {
                        send(out, frame);
                        continue;
                    }
                    Fault fault = Fault.values()[random.nextInt(Fault.values().length)];
                    injected.computeIfAbsent(fault, f -> new AtomicLong()).incrementAndGet();
                    WireCommand spoilt = decode(frame);
                    log.add("connection " + number + ": " + fault + " of " + (spoilt == null ? "?" : spoilt));
                    silent = spoil(fault, frame, out);
                }
            } catch (IOException e) {
                // one side closed
            } finally {
                hangUp();
            }
        }

        /** Sends {@code frame} spoilt by {@code fault}; returns whether the connection is to go silent. */
        private boolean spoil(Fault fault, byte[] frame, OutputStream out) throws IOException {
            switch (fault) {
                case FLIP_HEADER -> {
                    byte[] f = frame.clone();
                    f[random.nextInt(WireProtocol.HEADER_SIZE)] ^= (byte) (1 << random.nextInt(8));
                    send(out, f);
                    hangUpSoon();
                }
                case FLIP_FIELD -> {
                    int end = flippableEnd(frame);
                    byte[] f = frame.clone();
                    if (end > WireProtocol.HEADER_SIZE) {
                        f[WireProtocol.HEADER_SIZE + random.nextInt(end - WireProtocol.HEADER_SIZE)] ^=
                                (byte) (1 << random.nextInt(8));
                    }
                    send(out, f);
                    if (losesTheReply(frame, f)) {
                        hangUpSoon();
                    }
                }
                case TRUNCATE_LENGTH -> {
                    int length = frame.length - WireProtocol.HEADER_SIZE;
                    send(out, withLength(frame, length == 0 ? 0 : random.nextInt(length)));
                    hangUpSoon();
                }
                case EXTEND_LENGTH -> {
                    int length = frame.length - WireProtocol.HEADER_SIZE;
                    send(out, withLength(frame, length + 1 + random.nextInt(64)));
                    hangUpSoon();
                }
                case HUGE_LENGTH -> {
                    int[] huge = {Integer.MAX_VALUE, WireProtocol.MAX_WIRECOMMAND_SIZE, -1, Integer.MIN_VALUE,
                        WireProtocol.MAX_WIRECOMMAND_SIZE - WireProtocol.HEADER_SIZE};
                    send(out, withLength(frame, huge[random.nextInt(huge.length)]));
                    hangUpSoon();
                }
                case WRONG_REQUEST_ID -> {
                    send(out, edited(frame, "requestId", random.nextBoolean() ? random.nextLong()
                            : random.nextInt(1000)));
                    hangUpSoon();
                }
                case WRONG_SEGMENT -> send(out, edited(frame, "segment",
                        random.nextBoolean() ? "other/stream/0.#epoch.0" : ""));
                case WRONG_TYPE -> {
                    send(out, otherType(frame));
                    hangUpSoon();
                }
                case UNSOLICITED -> {
                    send(out, encodeOrNull(randomReply()));
                    send(out, frame);
                }
                case DUPLICATE -> {
                    send(out, frame);
                    send(out, frame);
                }
                case OUT_OF_ORDER -> {
                    if (held != null) {
                        send(out, held);
                    }
                    held = frame;
                    hangUpSoon();
                }
                case DROP -> hangUpSoon();
                case CLOSE_MID_FRAME -> {
                    out.write(frame, 0, random.nextInt(frame.length));
                    out.flush();
                    hangUp();
                }
                case RANDOM_BYTES -> {
                    byte[] junk = new byte[1 + random.nextInt(64)];
                    random.nextBytes(junk);
                    send(out, junk);
                    hangUpSoon();
                }
                case SILENT -> {
                    hangUpSoon();
                    return true;
                }
            }
            return false;
        }

        /** Sends {@code frame} and, after a held-back one, that one too. */
        private void send(OutputStream out, byte[] frame) throws IOException {
            if (frame != null) {
                out.write(frame);
            }
            if (held != null && frame != held && random.nextBoolean()) {
                out.write(held);
                held = null;
            }
            out.flush();
        }

        /** Closes the connection after 20 to 500 ms, as a dead server's connection breaks in the end. */
        private void hangUpSoon() {
            long delayMillis = 20 + random.nextInt(480);
            Thread.ofVirtual().name("reply-fuzz-hang-up").start(() -> {
                try {
                    Thread.sleep(delayMillis); // a fault's duration, not synchronisation
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                hangUp();
            });
        }

        private void hangUp() {
            closeLock.lock();
            try {
                if (done) {
                    return;
                }
                done = true;
            } finally {
                closeLock.unlock();
            }
            closeQuietly(client);
            closeQuietly(store);
            live.remove(this);
            sockets.remove(client);
            sockets.remove(store);
            open.decrementAndGet();
        }

        private Reply randomReply() {
            List<Reply> all = new ArrayList<>();
            for (WireCommand c : AllSamples.samples(random)) {
                if (c instanceof Reply r) {
                    all.add(r);
                }
            }
            return all.get(random.nextInt(all.size()));
        }

        /** @return a valid reply of another type than {@code frame}'s, with its request id where both have one */
        private byte[] otherType(byte[] frame) {
            WireCommand original = decode(frame);
            for (int attempt = 0; attempt < 20; attempt++) {
                Reply other = randomReply();
                if (original != null && other.type() == original.type()) {
                    continue;
                }
                if ((original instanceof DataAppended || original instanceof AppendSetup)
                        && other instanceof SegmentIsSealed) {
                    // a forged seal makes the writer move events the store holds to the successors: no client can
                    // tell it from a real one
                    continue;
                }
                Object id = original == null ? null : component(original, "requestId");
                WireCommand out = id == null ? other : with(other, "requestId", id);
                byte[] encoded = encodeOrNull(out == null ? other : out);
                if (encoded != null) {
                    return encoded;
                }
            }
            return frame;
        }

        /** @return {@code frame} with its component {@code name} set to {@code value}, or as it was */
        private byte[] edited(byte[] frame, String name, Object value) {
            WireCommand c = decode(frame);
            if (c == null) {
                return frame;
            }
            WireCommand e = with(c, name, value);
            byte[] encoded = e == null ? null : encodeOrNull(e);
            return encoded == null ? frame : encoded;
        }
    }

    /**
     * @return whether the client cannot match {@code flipped} to the request {@code original} answers: it does not
     *     decode, or decodes to another type or request id (a shorter length inside a read, say, moves the request
     *     id into the event bytes) — the reply is then as good as dropped
     */
    private static boolean losesTheReply(byte[] original, byte[] flipped) {
        WireCommand before = decode(original);
        WireCommand after = decode(flipped);
        return before == null || after == null || before.type() != after.type()
                || !Objects.equals(component(before, "requestId"), component(after, "requestId"));
    }

    /**
     * @return the end (exclusive) of the bytes of {@code frame} a bit flip may hit: none of an acknowledgement, an
     *     append setup or a segment's info, only those before the event bytes of a read, all of any other reply
     */
    private static int flippableEnd(byte[] frame) {
        WireCommand c = decode(frame);
        if (c instanceof DataAppended || c instanceof AppendSetup || c instanceof StreamSegmentInfo || c == null) {
            return WireProtocol.HEADER_SIZE;
        }
        if (c instanceof TableRead) {
            // keys, versions and values carry no checksum on the wire (TCP's and TLS's job): a flipped value or
            // version is as valid as the real one to any client, so it is not flipped
            return WireProtocol.HEADER_SIZE;
        }
        if (c instanceof SegmentRead read) {
            // the event bytes and the request id after them are the last fields: flip only before them
            return frame.length - read.data().remaining() - Long.BYTES;
        }
        return frame.length;
    }

    private static byte[] withLength(byte[] frame, int length) {
        byte[] f = frame.clone();
        ByteBuffer.wrap(f).putInt(Integer.BYTES, length);
        return f;
    }

    private static WireCommand decode(byte[] frame) {
        try {
            ByteBuffer b = ByteBuffer.wrap(frame);
            int type = b.getInt();
            int length = b.getInt();
            WireCommandType t = FrameCodec.checkHeader(type, length);
            return FrameCodec.decodePayload(t, b.slice(WireProtocol.HEADER_SIZE, length));
        } catch (RuntimeException e) {
            return null;
        }
    }

    private static byte[] encodeOrNull(WireCommand c) {
        try {
            return FrameCodec.encode(c);
        } catch (RuntimeException e) {
            return null;
        }
    }

    private static Object component(WireCommand c, String name) {
        for (RecordComponent rc : c.getClass().getRecordComponents()) {
            if (rc.getName().equals(name)) {
                try {
                    return rc.getAccessor().invoke(c);
                } catch (IllegalAccessException | InvocationTargetException e) {
                    throw new IllegalStateException("reading " + name + " of " + c.type(), e);
                }
            }
        }
        return null;
    }

    /**
     * @return a copy of {@code c} whose first component called {@code name} (or, for "segment", containing it) is
     *     {@code value}; {@code null} if it has none of that type or its constructor refuses the value
     */
    private static WireCommand with(WireCommand c, String name, Object value) {
        RecordComponent[] components = c.getClass().getRecordComponents();
        Class<?>[] types = new Class<?>[components.length];
        Object[] args = new Object[components.length];
        boolean set = false;
        for (int i = 0; i < components.length; i++) {
            types[i] = components[i].getType();
            String n = components[i].getName().toLowerCase(Locale.ROOT);
            boolean match = n.equals(name.toLowerCase(Locale.ROOT))
                    || (name.equals("segment") && n.contains("segment") && types[i] == String.class);
            boolean fits = value instanceof Long ? types[i] == long.class : types[i].isInstance(value);
            if (!set && match && fits) {
                args[i] = value;
                set = true;
            } else {
                try {
                    args[i] = components[i].getAccessor().invoke(c);
                } catch (IllegalAccessException | InvocationTargetException e) {
                    throw new IllegalStateException("reading " + components[i].getName() + " of " + c.type(), e);
                }
            }
        }
        if (!set) {
            return null;
        }
        try {
            Constructor<?> canonical = c.getClass().getDeclaredConstructor(types);
            return (WireCommand) canonical.newInstance(args);
        } catch (InvocationTargetException e) {
            return null;
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("no canonical constructor of " + c.getClass(), e);
        }
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException e) {
            // already closed
        }
    }

    @Override
    public void close() throws IOException {
        closed = true;
        server.close();
        for (Socket s : sockets) {
            closeQuietly(s);
        }
    }
}
