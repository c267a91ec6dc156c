package io.sluice.compat;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import com.google.common.hash.Hashing;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.sluice.admin.ReaderGroup;
import io.sluice.client.ClientInternals;
import io.sluice.common.Deadline;
import io.sluice.common.KeyHash;
import io.sluice.connection.ConnectionPool;
import io.sluice.connection.TcpConnectionFactory;
import io.sluice.segment.PendingEvent;
import io.sluice.segment.SegmentLocator;
import io.sluice.segment.SegmentReader;
import io.sluice.stream.EventPointer;
import io.sluice.stream.EventRead;
import io.sluice.stream.EventStreamReader;
import io.sluice.stream.EventStreamWriter;
import io.sluice.stream.KeyRange;
import io.sluice.stream.ReaderGroupConfig;
import io.sluice.stream.ScopedStream;
import io.sluice.stream.SegmentWithRange;
import io.sluice.stream.Serializers;
import io.sluice.wire.Event;

/**
 * Sluice's event writer and readers against the REAL Pravega 0.13: 100,000 events with routing keys through a
 * reader group of three readers (count, content, per-key order, no duplicates), and non-ASCII routing keys placed
 * on exactly the segment the official Java client would choose, checked by reading every segment on its own.
 */
@CompatTest
@Timeout(300)
class EventStreamCompatTest {
    private static final Logger LOG = LoggerFactory.getLogger(EventStreamCompatTest.class);
    private static final Duration READ_TIMEOUT = Duration.ofSeconds(120);

    @RegisterExtension
    static final RealPravegaScope real = new RealPravegaScope("compat-events");


    @Test
    void aHundredThousandEventsThroughThreeReaders() throws Exception {
        int keys = 100;
        int perKey = 1000;
        KeyedEvents events = KeyedEvents.ascii(keys);
        ScopedStream stream = real.createStream("hundred-k", 6);
        KeyedEvents.Log log = new KeyedEvents.Log();
        try (ReaderGroup group = real.client.readerGroupManager(real.scope).createReaderGroup("three", ReaderGroupConfig
                .builder().stream(stream).groupRefreshTimeMillis(500).automaticCheckpointIntervalMillis(2000)
                .build())) {
            List<EventStreamReader<String>> readers = new ArrayList<>();
            List<Future<Integer>> counts = new ArrayList<>();
            for (String id : List.of("r1", "r2", "r3")) {
                EventStreamReader<String> reader = real.client.newReader(real.scope, "three", id, Serializers.utf8());
                readers.add(reader);
                counts.add(real.threads.submit(() -> KeyedEvents.drain(reader, log, READ_TIMEOUT)));
            }
            long t0 = System.nanoTime();
            try (EventStreamWriter<String> writer = real.client.newWriter(real.scope, stream.name(),
                    Serializers.utf8())) {
                events.write(writer, 0, perKey);
                writer.flush();
            }
            long written = System.nanoTime();
            real.streams.sealStream(real.scope, stream.name());
            for (Future<Integer> count : counts) {
                int read;
                try {
                    read = count.get(READ_TIMEOUT.toSeconds() + 30, TimeUnit.SECONDS);
                } catch (ExecutionException | TimeoutException e) {
                    // a stall: say where every reader and segment stood, so the failure can be told apart
                    Map<String, Long> perReader = new TreeMap<>();
                    log.byReader().forEach((id, reads) -> perReader.put(id,
                            reads.stream().filter(r -> r.event() != null).count()));
                    throw new AssertionError("the readers did not finish: events read per reader " + perReader
                            + ", segments per reader " + group.segmentAssignments() + ", group position "
                            + group.streamCuts() + ", threads in " + ThreadDumps.write("hundred-k"), e);
                }
                assertThat(read).as("every reader read a share").isPositive();
            }
            LOG.info("100,000 events: written in {} ms, read by 3 readers {} ms later", 
                    TimeUnit.NANOSECONDS.toMillis(written - t0), TimeUnit.NANOSECONDS.toMillis(System.nanoTime()
                            - written));
            events.assertExactlyOnceInOrder(log.events(), 0, perKey);
            assertThat(group.onlineReaders()).containsExactlyInAnyOrder("r1", "r2", "r3");
            readers.forEach(EventStreamReader::close);
            assertThat(group.onlineReaders()).isEmpty();
        }
        assertThat(real.client.readerGroupManager(real.scope).deleteReaderGroup("three")).isTrue();
    }

    @Test
    void theLargestEventAndTheLargestAtomicBatchAreWrittenAndReadBack() throws Exception {
        ScopedStream stream = real.createStream("large", 1);
        // the largest event; then a batch of two that together are exactly as large as a batch may be
        byte[] largest = filled(PendingEvent.MAX_EVENT_SIZE, 1);
        byte[] first = filled(PendingEvent.MAX_EVENT_SIZE, 2);
        byte[] second = filled(PendingEvent.MAX_BATCH_SIZE - 2 * Event.HEADER_SIZE - first.length, 3);
        try (EventStreamWriter<byte[]> writer = real.client.newWriter(real.scope, stream.name(), Serializers.bytes())) {
            writer.writeAndWait("big", largest);
            writer.writeAll("big", List.of(first, second)).await(Duration.ofSeconds(120));
            writer.writeAndWait("big", new byte[] {4});
        }
        real.streams.sealStream(real.scope, stream.name());
        try (ReaderGroup group = real.client.readerGroupManager(real.scope).createReaderGroup("large", ReaderGroupConfig
                .builder().stream(stream).disableAutomaticCheckpoints().build());
             EventStreamReader<byte[]> reader = real.client.newReader(real.scope, "large", "r", Serializers.bytes())) {
            List<EventPointer> pointers = new ArrayList<>();
            for (byte[] expected : List.of(largest, first, second, new byte[] {4})) {
                EventRead<byte[]> read = reader.readNextEvent(Duration.ofSeconds(60));
                assertThat(read.event()).as("an event of %s bytes", expected.length).isNotNull()
                        .hasSize(expected.length);
                assertThat(Arrays.equals(read.event(), expected)).as("content of the event of %s bytes",
                        expected.length).isTrue();
                pointers.add(read.pointer());
            }
            assertThat(reader.readNextEvent(Duration.ofSeconds(10)).readCompleted()).isTrue();
            assertThat(Arrays.equals(reader.fetchEvent(pointers.get(0)), largest)).as("fetched again by pointer")
                    .isTrue();
        }
    }

    private static byte[] filled(int length, int seed) {
        byte[] bytes = new byte[length];
        new Random(seed).nextBytes(bytes);
        return bytes;
    }

    @Test
    void writerTimeNotesAreAcceptedAcrossAScale() {
        KeyedEvents events = KeyedEvents.ascii(8);
        ScopedStream stream = real.createStream("timed", 3);
        try (EventStreamWriter<String> writer = real.client.newWriter(real.scope, stream.name(), Serializers.utf8())) {
            writer.noteTime(500);   // nothing written yet
            events.write(writer, 0, 10);
            writer.flush();
            writer.noteTime(1000);
            writer.noteTime(1000);
            List<SegmentWithRange> before = real.streams.currentSegments(real.scope, stream.name());
            real.streams.scaleStream(real.scope, stream.name(), List.of(before.get(0).segment()), List.of(
                    new KeyRange(before.get(0).low(), before.get(0).high() / 2),
                    new KeyRange(before.get(0).high() / 2, before.get(0).high())));
            writer.noteTime(1500);  // the writer has not learnt of the scale yet
            events.write(writer, 10, 20);
            writer.flush();
            writer.noteTime(2000);
        }
    }

    /** Prefix of the events the official client writes in mode {@code route}. */
    private static final String OFFICIAL = "official:";

    /** Routing keys beyond ASCII: Cyrillic, CJK, surrogate pairs, combining marks, NUL, long and mixed keys. */
    private static final List<String> NON_ASCII_KEYS = List.of("ключ", "键", "🔑", "é", "e\u0301", "😀", "Ünïcödé",
            "日本語のキー", "🔑🔑", "key-ключ-键-🔑", "ключ-".repeat(9), "a\u0000b", "ß", "Ωμέγα", "\u00a0", "𝄞 music",
            "Ǆ", "\uffff", "مفتاح", "कुंजी", "key-0", "hello", "", "routingKey");

    /**
     * The fraction the official Java client computes for a routing key: Guava's {@code murmur3_128} seeded with
     * {@code "EventRouter".hashCode()} over the key's UTF-16 code units, top 52 bits of the first half as the
     * mantissa (docs/controller.md §4) — computed here with Guava itself, not with Sluice's {@link KeyHash}.
     */
    private static double officialFraction(String key) {
        long h1 = Hashing.murmur3_128("EventRouter".hashCode()).hashUnencodedChars(key).asLong();
        return Double.longBitsToDouble(0x3FF0000000000000L + ((h1 >>> 12) & 0x000FFFFFFFFFFFFFL)) - 1.0;
    }

    @Test
    void nonAsciiRoutingKeysLandOnTheSegmentTheOfficialClientPicks() throws Exception {
        // the oracle agrees with the reference vectors of docs/controller.md §4, and Sluice with the oracle
        assertThat(officialFraction("hello")).isEqualTo(0.658716230571337);
        assertThat(officialFraction("é")).isEqualTo(0.6688272069632242);
        assertThat(officialFraction("😀")).isEqualTo(0.7750255912171164);
        for (String key : NON_ASCII_KEYS) {
            assertThat(KeyHash.routingKey(key)).as("Sluice's hash of '%s'", key).isEqualTo(officialFraction(key));
        }

        int perKey = 20;
        KeyedEvents events = new KeyedEvents(NON_ASCII_KEYS);
        ScopedStream stream = real.createStream("non-ascii", 16);
        try (EventStreamWriter<String> writer = real.client.newWriter(real.scope, stream.name(), Serializers.utf8())) {
            events.write(writer, 0, perKey);
            writer.flush();
        }
        // the official 0.13 client writes "official:<i>" with key i to the same stream
        OfficialClient.build();
        Path keysFile = Files.createTempFile("routing-keys", ".txt");
        try {
            Files.write(keysFile, NON_ASCII_KEYS.stream().map(k -> HexFormat.of().formatHex(
                    k.getBytes(StandardCharsets.UTF_16BE))).toList(), StandardCharsets.US_ASCII);
            OfficialClient.Result official = OfficialClient.run("route-non-ascii", List.of("route",
                    "--controller", RealPravega.controllerUri().toString(), "--scope", real.scope, "--stream",
                    stream.name(), "--keys-file", keysFile.toString(), "--timeout-seconds", "120"),
                    Duration.ofSeconds(180));
            assertThat(official.exitCode()).as("official client route: %s", official.describe()).isZero();
        } finally {
            Files.delete(keysFile);
        }
        List<SegmentWithRange> ranges = real.streams.currentSegments(real.scope, stream.name());
        real.streams.sealStream(real.scope, stream.name());

        // read every segment on its own, straight from the segment store the controller names
        Map<String, List<String>> wrong = new TreeMap<>();
        Map<Integer, SegmentWithRange> officialPick = new TreeMap<>();
        Map<Integer, SegmentWithRange> sluicePick = new TreeMap<>();
        List<String> all = new ArrayList<>();
        try (ConnectionPool pool = new ConnectionPool(new TcpConnectionFactory())) {
            for (SegmentWithRange range : ranges) {
                for (String event : readSegment(pool, range)) {
                    if (event.startsWith(OFFICIAL)) {
                        officialPick.put(Integer.parseInt(event.substring(OFFICIAL.length())), range);
                        continue;
                    }
                    int k = KeyedEvents.keyOf(event);
                    sluicePick.put(k, range);
                    double fraction = officialFraction(events.routingKey(k));
                    if (!range.contains(fraction)) {
                        wrong.computeIfAbsent("'" + events.routingKey(k) + "' (" + fraction + ")",
                                x -> new ArrayList<>()).add(range.toString());
                    }
                    all.add(event);
                }
            }
        }
        assertThat(wrong).as("keys found in a segment whose key range does not hold the official client's hash")
                .isEmpty();
        events.assertExactlyOnceInOrder(all, 0, perKey);
        assertThat(officialPick).as("where the official client put each key").hasSize(NON_ASCII_KEYS.size());
        assertThat(sluicePick).as("where Sluice put each key").isEqualTo(officialPick);
        LOG.info("{} routing keys: Sluice's and the official client's segments agree ({} distinct segments used)",
                NON_ASCII_KEYS.size(), new HashSet<>(officialPick.values()).size());
    }

    /** Reads a sealed segment from 0 to its end with Sluice's segment reader; returns its events in order. */
    private static List<String> readSegment(ConnectionPool pool, SegmentWithRange range) throws InterruptedException {
        SegmentLocator locator = SegmentLocator.fixed(ClientInternals.controller(real.client).endpointFor(range.segment()));
        Semaphore ready = new Semaphore(0);
        List<String> out = new ArrayList<>();
        Deadline deadline = Deadline.after(Duration.ofSeconds(60));
        try (SegmentReader reader = new SegmentReader(range.segment().qualifiedName(), 0, Long.MAX_VALUE, pool,
                locator, () -> null, SegmentReader.Config.DEFAULT, r -> ready.release())) {
            while (true) {
                SegmentReader.ReadEvent e = reader.next();
                if (e != null) {
                    out.add(StandardCharsets.UTF_8.decode(e.payload()).toString());
                } else if (reader.isFinished()) {
                    return out;
                } else {
                    assertThat(ready.tryAcquire(deadline.remainingNanos(), TimeUnit.NANOSECONDS))
                            .as("segment %s read to its end in time", range.segment()).isTrue();
                }
            }
        }
    }
}
