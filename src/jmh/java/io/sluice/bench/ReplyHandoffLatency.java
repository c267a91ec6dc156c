package io.sluice.bench;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.sluice.wire.AppendEncoder;
import io.sluice.wire.AppendSetup;
import io.sluice.wire.DataAppended;
import io.sluice.wire.FrameCodec;
import io.sluice.wire.Hello;
import io.sluice.wire.SetupAppend;
import io.sluice.wire.WireCommand;
import io.sluice.wire.WireOutput;
import io.sluice.wire.WireProtocol;

/**
 * What each way of getting a reply from the socket to the thread that awaits it costs, measured on the awaited write
 * itself (one event, sent, then {@code DataAppended} awaited before the next), with everything else stripped away.
 * The modes:
 * <ul>
 *   <li>{@code self}: the caller reads its own socket (blocking); no other thread. The floor, as
 *       {@link RawAppendLatency}.</li>
 *   <li>{@code platform-reader}: a platform thread blocks in the socket's read and completes the caller's future;
 *       a reply wakes the reader, then the caller (what a Netty event loop does too).</li>
 *   <li>{@code virtual-reader}: the same reader on a virtual thread (Sluice's connection by default): a reply wakes
 *       the JDK's poller, then a carrier for the reader, then the caller.</li>
 *   <li>{@code leader}: the socket non-blocking with a selector; a platform reader waits in {@code select()} and
 *       hands the selector to a caller that asks for it right after sending, then the kernel wakes the caller
 *       itself when its reply comes; the caller hands the selector back after its reply. The design docs/benchmarks.md
 *       (issue 19, fifth round) describes as "a leader with a selector".</li>
 * </ul>
 * <pre>
 * java -cp target/benchmarks.jar io.sluice.bench.ReplyHandoffLatency HOST PORT SEGMENT MODE [SAMPLES] [WARM_UP]
 * </pre>
 * SEGMENT is a segment's qualified name (a stream made with {@code --segments 1} has {@code scope/stream/0.#epoch.0});
 * the server must not ask for a token. Prints one JSON line: the mode, p50, p90, p99 and mean in microseconds.
 */
public final class ReplyHandoffLatency {
    private static final int EVENT_BYTES = 100;

    private final SocketChannel channel;
    private final UUID writerId = UUID.randomUUID();
    private final ByteBuffer in = ByteBuffer.allocate(64 * 1024);
    private long lastEventNumber;
    /** The event number the caller awaits, and its future; set before the block is sent. */
    private volatile long awaited;
    private volatile CompletableFuture<Long> acked;

    private ReplyHandoffLatency(SocketChannel channel) {
        this.channel = channel;
    }

    /**
     * Runs the probe.
     *
     * @param args HOST PORT SEGMENT MODE [SAMPLES] [WARM_UP]
     * @throws Exception if the connection fails or a reply is not the one expected
     */
    public static void main(String[] args) throws Exception {
        if (args.length < 4) {
            System.err.println("usage: ReplyHandoffLatency HOST PORT SEGMENT self|platform-reader|virtual-reader|leader"
                    + " [SAMPLES] [WARM_UP]");
            System.exit(2);
        }
        String mode = args[3];
        int samples = args.length > 4 ? Integer.parseInt(args[4]) : 20_000;
        int warmUp = args.length > 5 ? Integer.parseInt(args[5]) : 5_000;
        try (SocketChannel channel = SocketChannel.open()) {
            channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
            channel.connect(new InetSocketAddress(args[0], Integer.parseInt(args[1])));
            ReplyHandoffLatency probe = new ReplyHandoffLatency(channel);
            probe.setUp(args[2]);
            long[] micros = switch (mode) {
                case "self" -> probe.self(samples, warmUp);
                case "platform-reader" -> probe.withReader(Thread.ofPlatform().daemon(), samples, warmUp);
                case "virtual-reader" -> probe.withReader(Thread.ofVirtual(), samples, warmUp);
                case "leader" -> probe.leader(samples, warmUp);
                default -> throw new IllegalArgumentException("mode must be self, platform-reader, virtual-reader or"
                        + " leader, not '" + mode + "'");
            };
            Arrays.sort(micros);
            double mean = Arrays.stream(micros).average().orElse(0);
            System.out.printf("{\"mode\":\"%s\",\"samples\":%d,\"p50_us\":%d,\"p90_us\":%d,\"p99_us\":%d,"
                    + "\"mean_us\":%.1f}%n", mode, samples, rank(micros, 0.50), rank(micros, 0.90), rank(micros, 0.99),
                    mean);
        }
    }

    private void setUp(String segment) throws IOException {
        write(ByteBuffer.wrap(FrameCodec.encode(new Hello(WireProtocol.WIRE_VERSION,
                WireProtocol.OLDEST_COMPATIBLE_VERSION))));
        write(ByteBuffer.wrap(FrameCodec.encode(new SetupAppend(1, writerId, segment, ""))));
        while (true) {
            WireCommand reply = readOneBlocking();
            if (reply instanceof AppendSetup setup) {
                lastEventNumber = Math.max(0, setup.lastEventNumber());
                return;
            }
            if (!(reply instanceof Hello)) {
                throw new IOException("setting up the append on " + segment + " got " + reply);
            }
        }
    }

    // ---------------------------------------------------------------- modes

    private long[] self(int samples, int warmUp) throws IOException {
        long[] micros = new long[samples];
        WireOutput block = new WireOutput(EVENT_BYTES + 256);
        for (int i = -warmUp; i < samples; i++) {
            long number = nextBlock(block);
            long t0 = System.nanoTime();
            write(ByteBuffer.wrap(block.array(), 0, block.position()));
            while (!(readOneBlocking() instanceof DataAppended a && a.eventNumber() >= number)) {
                // an older acknowledgement: wait for this one's
            }
            record(micros, i, t0);
        }
        return micros;
    }

    private long[] withReader(Thread.Builder reader, int samples, int warmUp) throws Exception {
        Thread t = reader.name("probe-reader").start(() -> {
            try {
                while (true) {
                    dispatch(readOneBlocking());
                }
            } catch (IOException e) {
                // the probe closed the channel
            }
        });
        try {
            return awaitedWrites(samples, warmUp, null);
        } finally {
            channel.close();
            t.join(5_000);
        }
    }

    private long[] leader(int samples, int warmUp) throws Exception {
        channel.configureBlocking(false);
        Selector selector = Selector.open();
        channel.register(selector, SelectionKey.OP_READ);
        Leadership lead = new Leadership(selector);
        Thread t = Thread.ofPlatform().daemon().name("probe-leader").start(lead::backgroundLoop);
        try {
            return awaitedWrites(samples, warmUp, lead);
        } finally {
            lead.stop();
            t.join(5_000);
            selector.close();
        }
    }

    /** The awaited writes of the reader modes: send, then wait on the future (or lead the selector, given one). */
    private long[] awaitedWrites(int samples, int warmUp, Leadership lead) throws Exception {
        long[] micros = new long[samples];
        WireOutput block = new WireOutput(EVENT_BYTES + 256);
        for (int i = -warmUp; i < samples; i++) {
            long number = nextBlock(block);
            CompletableFuture<Long> f = new CompletableFuture<>();
            awaited = number;
            acked = f;
            long t0 = System.nanoTime();
            write(ByteBuffer.wrap(block.array(), 0, block.position()));
            if (lead != null) {
                lead.awaitLeading(f);
            }
            try {
                f.get(30, TimeUnit.SECONDS);
            } catch (TimeoutException | ExecutionException e) {
                throw new IOException("no acknowledgement of event " + number, e);
            }
            record(micros, i, t0);
        }
        return micros;
    }

    /** Hands the selector between the background reader and a caller; one of them selects at a time. */
    private final class Leadership {
        private final Selector selector;
        private final Semaphore callerLeads = new Semaphore(0);
        private final Semaphore readerLeads = new Semaphore(0);
        private volatile boolean handOver;
        private volatile boolean stopped;

        Leadership(Selector selector) {
            this.selector = selector;
        }

        void backgroundLoop() {
            try {
                while (!stopped) {
                    selector.select();
                    readReady();
                    if (handOver) {
                        handOver = false;
                        callerLeads.release();
                        readerLeads.acquire();
                    }
                }
            } catch (IOException | InterruptedException e) {
                // stopped
            }
        }

        /** Called right after sending: takes the selector and reads until {@code f} completes, then gives it back. */
        void awaitLeading(CompletableFuture<Long> f) throws IOException, InterruptedException {
            handOver = true;
            selector.wakeup();
            callerLeads.acquire();
            try {
                while (!f.isDone()) {
                    selector.select();
                    readReady();
                }
            } finally {
                readerLeads.release();
            }
        }

        private void readReady() throws IOException {
            selector.selectedKeys().clear();
            while (true) {
                int n = channel.read(in);
                if (n < 0) {
                    throw new IOException("the server closed the connection");
                }
                WireCommand c;
                while ((c = nextFrame()) != null) {
                    dispatch(c);
                }
                if (n == 0) {
                    return;
                }
            }
        }

        void stop() {
            stopped = true;
            selector.wakeup();
            readerLeads.release();
        }
    }

    // ---------------------------------------------------------------- plumbing

    private long nextBlock(WireOutput block) {
        long number = ++lastEventNumber;
        block.clear();
        AppendEncoder.writeBlock(block, writerId, List.of(ByteBuffer.allocate(EVENT_BYTES)), number, number + 1);
        return number;
    }

    private void dispatch(WireCommand reply) throws IOException {
        if (reply instanceof DataAppended a) {
            CompletableFuture<Long> f = acked;
            if (f != null && a.eventNumber() >= awaited) {
                f.complete(a.eventNumber());
            }
            return;
        }
        throw new IOException("expected DataAppended, got " + reply);
    }

    private static void record(long[] micros, int i, long t0) {
        if (i >= 0) {
            micros[i] = (System.nanoTime() - t0) / 1000;
        }
    }

    private void write(ByteBuffer b) throws IOException {
        while (b.hasRemaining()) {
            if (channel.write(b) == 0) {
                Thread.onSpinWait(); // a 100-byte block into an idle socket's buffer: never waits in practice
            }
        }
    }

    /** Reads one whole frame in blocking mode (set-up and the blocking modes). */
    private WireCommand readOneBlocking() throws IOException {
        while (true) {
            WireCommand c = nextFrame();
            if (c != null) {
                return c;
            }
            if (channel.read(in) < 0) {
                throw new IOException("the server closed the connection");
            }
        }
    }

    /** @return the next whole frame buffered in {@code in}, or null if none is whole yet */
    private WireCommand nextFrame() {
        in.flip();
        try {
            if (in.remaining() < WireProtocol.HEADER_SIZE) {
                return null;
            }
            int length = in.getInt(in.position() + 4);
            int whole = WireProtocol.HEADER_SIZE + length;
            if (in.remaining() < whole) {
                return null;
            }
            byte[] frame = new byte[whole];
            in.get(frame);
            return FrameCodec.decodeOne(frame);
        } finally {
            in.compact();
        }
    }

    private static long rank(long[] sorted, double p) {
        return sorted[Math.max(0, (int) Math.ceil(p * sorted.length) - 1)];
    }
}
