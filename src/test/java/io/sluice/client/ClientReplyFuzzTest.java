package io.sluice.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.zip.CRC32C;

import io.sluice.admin.StreamInfo;
import io.sluice.bytestream.ByteStreamReader;
import io.sluice.bytestream.ByteStreamWriter;
import io.sluice.common.Threads;
import io.sluice.errors.SluiceException;
import io.sluice.server.EmbeddedServer;
import io.sluice.stream.EventRead;
import io.sluice.stream.EventStreamReader;
import io.sluice.stream.EventStreamWriter;
import io.sluice.stream.ReaderConfig;
import io.sluice.stream.ReaderGroupConfig;
import io.sluice.stream.RetryPolicy;
import io.sluice.stream.ScalingPolicy;
import io.sluice.stream.ScopedStream;
import io.sluice.stream.Serializers;
import io.sluice.stream.StreamConfiguration;
import io.sluice.stream.WriteHandle;
import io.sluice.stream.WriterConfig;
import io.sluice.table.KeyValueTable;
import io.sluice.table.KeyValueTableConfiguration;
import io.sluice.table.Put;
import io.sluice.table.TableEntry;
import io.sluice.table.TableKey;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Fuzzes the client's side of the wire: the public client (writer, reader, stream manager, key-value table, byte
 * stream reader) works against the embedded server's segment store through a {@link ReplyFuzzProxy}, which spoils a
 * share of the replies (bit flips, wrong lengths, request ids, segment names and types, replies twice, out of order,
 * to nothing, dropped, connections closed mid-frame or gone silent). For every seed a fresh client runs a seeded
 * sequence of operations; the test checks that
 * <ul>
 *   <li>every call returns or throws within its deadline plus a margin (the caller's timeout where it gives one, the
 *       client's own patience otherwise);</li>
 *   <li>a call that fails throws a {@link SluiceException} whose message says what went wrong: no
 *       {@code NullPointerException}, {@code ClassCastException}, {@code IndexOutOfBoundsException} or other
 *       unchecked exception leaks out, and nothing reaches an uncaught-exception handler;</li>
 *   <li>what the application gets is never corrupt: every event read is byte-exact one of those written (each carries
 *       a CRC32C), every table value is one put for its key, every byte-stream read returns the bytes at its offset;
 *   </li>
 *   <li>nothing acknowledged is lost or duplicated: at the end a reader on a direct connection finds every event whose
 *       write completed exactly once, and no event twice;</li>
 *   <li>closing the client leaves no connection and no virtual thread behind.</li>
 * </ul>
 * A fixed list of regression seeds runs first, then new seeds until the time budget is spent
 * ({@code -Dsluice.fuzz.client.seconds}, default 30). {@code -Dsluice.fuzz.client.seed=N} replays one seed;
 * {@code -Dsluice.fuzz.client.rate} sets the share of replies spoilt (default 0.05). Every finding names its seed.
 */
@Timeout(value = 15, unit = TimeUnit.MINUTES)
class ClientReplyFuzzTest {
    /**
     * Seeds that run first, every time: 1-5, and those that found the findings of docs/reliability.md (duplicated
     * events 3150895974 at rate 0.15 and 2363085833 at the default rate, fixed; a table value of another key
     * 3948907976, open) and the two the proxy was narrowed for (3150895978, 3091064329). Timing decides which reply a
     * fault hits, so a seed replays its faults only roughly.
     */
    private static final long[] REGRESSION_SEEDS = {1, 2, 3, 4, 5, 3150895974L, 3150895978L, 3091064329L, 3948907976L,
        2363085833L};
    private static final String SCOPE = "replyfuzz";
    private static final String EVENTS = "events";
    private static final String BYTES = "bytes";
    private static final String TABLE = "table";
    private static final int BYTE_STREAM_LENGTH = 256 * 1024;
    private static final int TABLE_KEYS = 16;
    private static final int OPS_PER_SEED = 24;
    /** Time a call may take beyond its deadline (scheduling on a shared 2-core machine). */
    private static final Duration MARGIN = Duration.ofSeconds(5);
    /**
     * The patience of calls without a caller's timeout: the longest internal wait of the client (a reader-group state
     * update, 60 s) — the fuzz proxy hangs up soon after a fault that loses a reply, so calls rarely come near it.
     */
    private static final Duration OWN_PATIENCE = Duration.ofSeconds(60);
    /** How long the client's connections may take to close after it closed (its connect timeout is 10 s). */
    private static final Duration CONNECTIONS_SETTLE = Duration.ofSeconds(40);
    private static final Duration READ_TIMEOUT = Duration.ofMillis(300);
    private static final Duration WRITE_WAIT = Duration.ofSeconds(2);
    private static final RetryPolicy SHORT_RETRY = RetryPolicy.exponential(Duration.ofMillis(1), 4, 6,
            Duration.ofMillis(200));

    private final List<String> findings = new ArrayList<>();
    /** Every event payload written (acknowledged or not), by its CRC-checked content. */
    private final Set<ByteBuffer> attempted = ConcurrentHashMap.newKeySet();
    /** Every event payload whose write completed successfully. */
    private final Set<ByteBuffer> acknowledged = ConcurrentHashMap.newKeySet();
    private final AtomicLong eventsRead = new AtomicLong();
    private final AtomicLong operations = new AtomicLong();
    private final AtomicLong failedOperations = new AtomicLong();
    private final Map<String, Long> slowest = new ConcurrentHashMap<>();
    private final Map<ReplyFuzzProxy.Fault, Long> faults = new ConcurrentHashMap<>();
    private final AtomicLong replies = new AtomicLong();
    private final ExecutorService callers = Executors.newVirtualThreadPerTaskExecutor();
    /** The proxy of the seed running now, for the faults a finding lists. */
    private volatile ReplyFuzzProxy proxy;

    @Test
    void spoiltRepliesNeverHangCorruptOrLeak() throws Exception {
        long budgetNanos = TimeUnit.SECONDS.toNanos(Long.getLong("sluice.fuzz.client.seconds", 30));
        double rate = Double.parseDouble(System.getProperty("sluice.fuzz.client.rate", "0.05"));
        String replay = System.getProperty("sluice.fuzz.client.seed");
        try (EmbeddedServer server = EmbeddedServer.builder().inMemory().build();
             ReroutingController controller = new ReroutingController(server);
             SluiceClient direct = SluiceClient.connect(server.controllerUri())) {
            fixture(direct);
            // warm up what starts once (the controller channel, classes, server threads), so it is not a leak
            runSeed(server, controller, -1, 0.0);
            long threadsBefore = Threads.liveVirtualThreads();
            long uncaughtBefore = Threads.uncaughtExceptions();
            long started = System.nanoTime();
            int seeds = 0;
            List<Long> order = new ArrayList<>();
            if (replay != null) {
                order.add(Long.parseLong(replay));
            } else {
                for (long s : REGRESSION_SEEDS) {
                    order.add(s);
                }
            }
            long next = System.nanoTime() & 0xFFFF_FFFFL;
            for (int i = 0; ; i++) {
                long seed;
                if (i < order.size()) {
                    seed = order.get(i);
                } else if (replay == null && System.nanoTime() - started < budgetNanos) {
                    seed = next++;
                } else {
                    break;
                }
                runSeed(server, controller, seed, rate);
                seeds++;
                long threads = Threads.liveVirtualThreads();
                if (!settles(() -> Threads.liveVirtualThreads() <= threadsBefore)) {
                    findings.add("seed " + seed + ": " + (Threads.liveVirtualThreads() - threadsBefore)
                            + " virtual threads still running after the client closed (" + threads + " just after)");
                }
            }
            long uncaught = Threads.uncaughtExceptions() - uncaughtBefore;
            if (uncaught > 0) {
                findings.add(uncaught + " exceptions reached an uncaught-exception handler");
            }
            verifyStream(direct);
            System.out.printf("client reply fuzz: %d seeds in %d s, %d replies, %d faults %s, %d operations (%d failed"
                    + " with a clear error), %d events read and checked, %d events written (%d acknowledged);"
                    + " slowest calls (ms) %s%n", seeds, (System.nanoTime() - started) / 1_000_000_000L,
                    replies.get(), faults.values().stream().mapToLong(Long::longValue).sum(), faults, operations.get(),
                    failedOperations.get(), eventsRead.get(), attempted.size(), acknowledged.size(), slowest);
        } finally {
            callers.shutdownNow();
        }
        assertThat(findings).as("findings (replay one with -Dsluice.fuzz.client.seed=N)").isEmpty();
    }

    /** The scope, an event stream with a few events, a byte stream full of known bytes and a key-value table. */
    private void fixture(SluiceClient direct) {
        direct.streamManager().createScope(SCOPE);
        direct.streamManager().createStream(SCOPE, EVENTS, StreamConfiguration.builder()
                .scalingPolicy(ScalingPolicy.fixed(2)).build());
        direct.streamManager().createStream(SCOPE, BYTES, StreamConfiguration.builder()
                .scalingPolicy(ScalingPolicy.fixed(1)).build());
        direct.keyValueTableManager().createKeyValueTable(SCOPE, TABLE, KeyValueTableConfiguration.builder()
                .partitionCount(2).primaryKeyLength(Long.BYTES).build());
        try (EventStreamWriter<ByteBuffer> writer = direct.newWriter(SCOPE, EVENTS, Serializers.byteBuffer())) {
            Random r = new Random(0);
            for (int i = 0; i < 50; i++) {
                ByteBuffer event = event(r, Long.MIN_VALUE, i);
                attempted.add(event);
                writer.writeAndWait("k" + (i % 7), event.duplicate());
                acknowledged.add(event);
            }
        }
        try (ByteStreamWriter writer = direct.newByteStreamWriter(SCOPE, BYTES)) {
            byte[] all = new byte[BYTE_STREAM_LENGTH];
            for (int i = 0; i < all.length; i++) {
                all[i] = byteAt(i);
            }
            writer.write(all);
            writer.flush();
        }
    }

    /** One seed: a fresh client through a fresh proxy runs {@link #OPS_PER_SEED} operations, then closes. */
    private void runSeed(EmbeddedServer server, ReroutingController controller, long seed, double rate)
            throws Exception {
        Random r = new Random(seed);
        try (ReplyFuzzProxy proxy = new ReplyFuzzProxy(server.segmentStoreEndpoint(), seed, rate)) {
            this.proxy = proxy;
            controller.misrouteEverything(proxy.endpoint());
            String group = "g" + (seed < 0 ? "warm" + -seed : Long.toString(seed));
            try (SluiceClient setup = SluiceClient.connect(server.controllerUri())) {
                setup.readerGroupManager(SCOPE).createReaderGroup(group, ReaderGroupConfig.builder()
                        .stream(ScopedStream.of(SCOPE, EVENTS)).build()).close();
            }
            SluiceClient client = SluiceClient.connect(controller.uri());
            Session session = new Session(seed, client, group, r);
            try {
                for (int op = 0; op < OPS_PER_SEED; op++) {
                    session.step();
                }
            } finally {
                session.closeAll();
                call(seed, "client.close", OWN_PATIENCE, () -> {
                    client.close();
                    return null;
                });
            }
            for (CompletableFuture<Void> f : session.handles.keySet()) {
                if (f.isDone() && !f.isCompletedExceptionally()) {
                    acknowledged.add(session.handles.get(f));
                }
            }
            long closedAt = System.nanoTime();
            int openAtClose = proxy.openConnections();
            if (!settles(() -> proxy.openConnections() == 0, CONNECTIONS_SETTLE)) {
                findings.add("seed " + seed + ": " + proxy.openConnections() + " segment-store connections still open "
                        + CONNECTIONS_SETTLE.toSeconds() + " s after the client closed: "
                        + proxy.openConnectionsDescribed() + ", after the faults " + proxy.lastFaults(6));
            } else if (openAtClose > 0) {
                long tookMillis = (System.nanoTime() - closedAt) / 1_000_000;
                slowest.merge("connections closed after client.close", tookMillis, Math::max);
            }
            replies.addAndGet(proxy.replies());
            proxy.injected().forEach((f, n) -> faults.merge(f, n, Long::sum));
        }
    }

    /** What one seed's client has open, and the operations it runs. */
    private final class Session {
        private final long seed;
        private final SluiceClient client;
        private final String group;
        private final Random random;
        private final Map<CompletableFuture<Void>, ByteBuffer> handles = new ConcurrentHashMap<>();
        private final Set<ByteBuffer> readByThisReader = new HashSet<>();
        private EventStreamWriter<ByteBuffer> writer;
        private EventStreamReader<ByteBuffer> reader;
        private KeyValueTable table;
        private int readers;
        private int written;

        Session(long seed, SluiceClient client, String group, Random random) {
            this.seed = seed;
            this.client = client;
            this.group = group;
            this.random = random;
        }

        void step() throws Exception {
            switch (random.nextInt(5)) {
                case 0 -> write();
                case 1 -> read();
                case 2 -> call(seed, "streamInfo", OWN_PATIENCE, () -> {
                    StreamInfo info = client.streamManager().streamInfo(SCOPE, EVENTS);
                    if (info.tail() == null) {
                        findings.add("seed " + seed + ": streamInfo without a tail stream cut");
                    }
                    return null;
                });
                case 3 -> tableOp();
                default -> readBytes();
            }
        }

        private void write() throws Exception {
            if (writer == null) {
                writer = call(seed, "newWriter", OWN_PATIENCE, () -> client.newWriter(SCOPE, EVENTS,
                        Serializers.byteBuffer(), WriterConfig.DEFAULT.withRetry(SHORT_RETRY)
                                .withBackpressureTimeout(WRITE_WAIT)));
                if (writer == null) {
                    return;
                }
            }
            int n = 1 + random.nextInt(12);
            List<WriteHandle> mine = new ArrayList<>();
            Boolean ok = call(seed, "write", WRITE_WAIT, () -> {
                for (int i = 0; i < n; i++) {
                    ByteBuffer event = event(random, seed, written++);
                    attempted.add(event);
                    WriteHandle h = writer.write("k" + random.nextInt(7), event.duplicate());
                    handles.put(h.toCompletableFuture(), event);
                    mine.add(h);
                }
                return true;
            });
            if (ok == null) {
                closeWriter();
                return;
            }
            Boolean durable = call(seed, "WriteHandle.await", WRITE_WAIT, () -> {
                mine.getLast().await(WRITE_WAIT);
                return true;
            });
            if (durable == null && random.nextBoolean()) {
                closeWriter();
            }
        }

        private void read() throws Exception {
            if (reader == null) {
                String id = "r" + readers++;
                reader = call(seed, "newReader", OWN_PATIENCE, () -> client.newReader(SCOPE, group, id,
                        Serializers.byteBuffer(), ReaderConfig.DEFAULT.withRetry(SHORT_RETRY)));
                readByThisReader.clear();
                if (reader == null) {
                    return;
                }
            }
            int n = 1 + random.nextInt(5);
            Boolean ok = call(seed, "readNextEvent", READ_TIMEOUT, () -> {
                for (int i = 0; i < n; i++) {
                    EventRead<ByteBuffer> read = reader.readNextEvent(READ_TIMEOUT);
                    if (read.hasEvent()) {
                        checkEvent(read.event());
                    }
                }
                return true;
            }, n);
            if (ok == null) {
                closeReader();
            }
        }

        private void checkEvent(ByteBuffer event) {
            eventsRead.incrementAndGet();
            if (!intact(event)) {
                findings.add("seed " + seed + ": the reader handed a corrupt event of " + event.remaining()
                        + " bytes");
            } else if (!attempted.contains(event)) {
                findings.add("seed " + seed + ": the reader handed an event nobody wrote");
            } else if (!readByThisReader.add(event)) {
                findings.add("seed " + seed + ": the reader handed the same event twice");
            }
        }

        private void tableOp() throws Exception {
            if (table == null) {
                table = call(seed, "keyValueTable", OWN_PATIENCE, () -> client.keyValueTable(SCOPE, TABLE));
                if (table == null) {
                    return;
                }
            }
            long key = random.nextInt(TABLE_KEYS);
            TableKey k = new TableKey(ByteBuffer.allocate(Long.BYTES).putLong(0, key));
            if (random.nextBoolean()) {
                ByteBuffer value = tableValue(key, random);
                call(seed, "KeyValueTable.update(Put)", OWN_PATIENCE, () -> table.update(new Put(k, value)));
            } else {
                call(seed, "KeyValueTable.get", OWN_PATIENCE, () -> {
                    TableEntry e = table.get(k);
                    if (e != null && !tableValueOf(key, e.value())) {
                        findings.add("seed " + seed + ": table get of key " + key + " returned a value that no put"
                                + " of that key wrote (" + e.value().remaining() + " bytes, key "
                                + (e.value().remaining() >= Long.BYTES ? e.value().getLong(e.value().position()) : -1)
                                + ") after the faults " + proxy.lastFaults(4));
                    }
                    return null;
                });
            }
        }

        private void readBytes() throws Exception {
            long offset = random.nextInt(BYTE_STREAM_LENGTH - 1);
            int length = 1 + random.nextInt((int) Math.min(8192, BYTE_STREAM_LENGTH - offset));
            call(seed, "ByteStreamReader.read", OWN_PATIENCE, () -> {
                try (ByteStreamReader in = client.newByteStreamReader(SCOPE, BYTES)) {
                    in.seekToOffset(offset);
                    byte[] b = new byte[length];
                    int n = in.read(b, 0, length);
                    if (n <= 0) {
                        findings.add("seed " + seed + ": byte-stream read at " + offset + " returned " + n
                                + " within the stream's " + BYTE_STREAM_LENGTH + " bytes");
                    }
                    for (int i = 0; i < n; i++) {
                        if (b[i] != byteAt(offset + i)) {
                            findings.add("seed " + seed + ": byte-stream read at " + offset + " returned a wrong"
                                    + " byte at " + (offset + i));
                            break;
                        }
                    }
                }
                return null;
            });
        }

        private void closeWriter() throws Exception {
            EventStreamWriter<ByteBuffer> w = writer;
            writer = null;
            if (w != null) {
                call(seed, "writer.close", OWN_PATIENCE, () -> {
                    w.close();
                    return null;
                });
            }
        }

        private void closeReader() throws Exception {
            EventStreamReader<ByteBuffer> rd = reader;
            reader = null;
            if (rd != null) {
                call(seed, "reader.close", OWN_PATIENCE, () -> {
                    rd.close();
                    return null;
                });
            }
        }

        void closeAll() throws Exception {
            closeWriter();
            closeReader();
            KeyValueTable t = table;
            table = null;
            if (t != null) {
                call(seed, "table.close", OWN_PATIENCE, () -> {
                    t.close();
                    return null;
                });
            }
        }
    }

    /** Work of one call, run on a virtual thread of its own so that the test can time it out. */
    @FunctionalInterface
    private interface Work<T> {
        T run() throws Exception;
    }

    private <T> T call(long seed, String what, Duration deadline, Work<T> work) throws Exception {
        return call(seed, what, deadline, work, 1);
    }

    /**
     * Runs {@code work} (at most {@code times} calls of {@code deadline} each) and checks how it ends: within the
     * deadline plus {@link #MARGIN}, and either normally or with a {@link SluiceException} that has a message.
     *
     * @return what the work returned, {@code null} if it failed (a finding if it failed badly)
     */
    private <T> T call(long seed, String what, Duration deadline, Work<T> work, int times) throws Exception {
        operations.incrementAndGet();
        long started = System.nanoTime();
        AtomicReference<Thread> runner = new AtomicReference<>();
        Future<T> f = callers.submit(() -> {
            runner.set(Thread.currentThread());
            return work.run();
        });
        Duration bound = deadline.multipliedBy(times).plus(MARGIN);
        try {
            T result = f.get(bound.toNanos(), TimeUnit.NANOSECONDS);
            return result;
        } catch (TimeoutException e) {
            findings.add("seed " + seed + ": " + what + " still running " + bound.toMillis() + " ms after it started"
                    + " (deadline " + deadline.toMillis() + " ms × " + times + "), at" + stack(runner.get())
                    + "\n  after the faults " + (proxy == null ? List.of() : proxy.lastFaults(6)));
            f.cancel(true);
            return null;
        } catch (ExecutionException e) {
            failedOperations.incrementAndGet();
            Throwable t = e.getCause();
            if (!(t instanceof SluiceException) || t.getMessage() == null || t.getMessage().isBlank()) {
                findings.add("seed " + seed + ": " + what + " failed obscurely: " + describe(t));
            }
            return null;
        } finally {
            long tookMillis = (System.nanoTime() - started) / 1_000_000;
            slowest.merge(what, tookMillis, Math::max);
        }
    }

    private static String stack(Thread t) {
        StringBuilder b = new StringBuilder();
        if (t != null) {
            StackTraceElement[] stack = t.getStackTrace();
            for (int i = 0; i < Math.min(25, stack.length); i++) {
                b.append("\n    ").append(stack[i]);
            }
        }
        return b.toString();
    }

    private static String describe(Throwable t) {
        StringBuilder b = new StringBuilder(t.toString());
        StackTraceElement[] stack = t.getStackTrace();
        for (int i = 0; i < Math.min(8, stack.length); i++) {
            b.append("\n    at ").append(stack[i]);
        }
        if (t.getCause() != null && t.getCause() != t) {
            b.append("\n  caused by ").append(t.getCause());
        }
        return b.toString();
    }

    /** After the fuzz: a direct reader finds every acknowledged event once, and nothing twice or corrupt. */
    private void verifyStream(SluiceClient direct) {
        direct.readerGroupManager(SCOPE).createReaderGroup("final", ReaderGroupConfig.builder()
                .stream(ScopedStream.of(SCOPE, EVENTS)).build()).close();
        Set<ByteBuffer> seen = new HashSet<>();
        Set<String> duplicated = new TreeSet<>();
        int duplicates = 0;
        int corrupt = 0;
        try (EventStreamReader<ByteBuffer> reader = direct.newReader(SCOPE, "final", "check",
                Serializers.byteBuffer())) {
            while (true) {
                EventRead<ByteBuffer> read = reader.readNextEvent(Duration.ofSeconds(3));
                if (read.isCheckpoint()) {
                    continue;
                }
                if (!read.hasEvent()) {
                    break;
                }
                ByteBuffer e = read.event();
                if (!intact(e) || !attempted.contains(e)) {
                    corrupt++;
                } else if (!seen.add(e)) {
                    duplicates++;
                    duplicated.add("seed " + e.getLong(e.position()) + " event " + e.getInt(e.position() + 8));
                }
            }
        }
        Set<ByteBuffer> lost = new HashSet<>(acknowledged);
        lost.removeAll(seen);
        if (!lost.isEmpty()) {
            findings.add(lost.size() + " of " + acknowledged.size() + " acknowledged events are not in the stream");
        }
        if (duplicates > 0) {
            findings.add(duplicates + " events are in the stream twice: " + duplicated);
        }
        if (corrupt > 0) {
            findings.add(corrupt + " events in the stream are corrupt or were never written");
        }
        System.out.printf("client reply fuzz: the stream holds %d events, %d acknowledged are all there: %s%n",
                seen.size(), acknowledged.size(), lost.isEmpty());
    }

    private static boolean settles(BooleanSupplier condition) {
        return settles(condition, Duration.ofSeconds(15));
    }

    private static boolean settles(BooleanSupplier condition, Duration patience) {
        long deadline = System.nanoTime() + patience.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                return false;
            }
            Thread.yield();
        }
        return true;
    }

    /** An event: the seed that wrote it, its number in that seed, random bytes, and a CRC32C of them all. */
    private static ByteBuffer event(Random r, long seed, int number) {
        byte[] body = new byte[8 + r.nextInt(r.nextInt(10) == 0 ? 20_000 : 200)];
        r.nextBytes(body);
        ByteBuffer b = ByteBuffer.allocate(Long.BYTES + Integer.BYTES + body.length + Long.BYTES);
        b.putLong(seed).putInt(number).put(body);
        CRC32C crc = new CRC32C();
        crc.update(b.array(), 0, b.position());
        b.putLong(crc.getValue());
        return b.flip();
    }

    private static boolean intact(ByteBuffer event) {
        if (event.remaining() < Integer.BYTES + 2 * Long.BYTES) {
            return false;
        }
        ByteBuffer b = event.duplicate();
        byte[] all = new byte[b.remaining()];
        b.get(all);
        CRC32C crc = new CRC32C();
        crc.update(all, 0, all.length - Long.BYTES);
        return ByteBuffer.wrap(all).getLong(all.length - Long.BYTES) == crc.getValue();
    }

    /** A value for table key {@code key}: the key, random bytes, and a CRC32C of both. */
    private static ByteBuffer tableValue(long key, Random r) {
        byte[] body = new byte[4 + r.nextInt(100)];
        r.nextBytes(body);
        ByteBuffer b = ByteBuffer.allocate(Long.BYTES + body.length + Long.BYTES);
        b.putLong(key).put(body);
        CRC32C crc = new CRC32C();
        crc.update(b.array(), 0, b.position());
        b.putLong(crc.getValue());
        return b.flip();
    }

    private static boolean tableValueOf(long key, ByteBuffer value) {
        return intact(value) && value.remaining() >= 2 * Long.BYTES && value.getLong(value.position()) == key;
    }

    private static byte byteAt(long offset) {
        return (byte) (offset * 31 + (offset >>> 8) + 7);
    }
}
