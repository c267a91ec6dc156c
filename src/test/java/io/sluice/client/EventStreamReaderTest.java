package io.sluice.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

import io.sluice.admin.ReaderGroup;
import io.sluice.admin.ReaderGroupManager;
import io.sluice.common.Deadline;
import io.sluice.controller.ControllerClient;
import io.sluice.errors.AlreadyExistsException;
import io.sluice.errors.DeadlineExceededException;
import io.sluice.errors.NoSuchStreamException;
import io.sluice.errors.PreconditionFailedException;
import io.sluice.errors.SegmentTruncatedException;
import io.sluice.server.EmbeddedServer;
import io.sluice.stream.Checkpoint;
import io.sluice.stream.EventDeserializationException;
import io.sluice.stream.EventPointer;
import io.sluice.stream.EventRead;
import io.sluice.stream.EventStreamReader;
import io.sluice.stream.EventStreamWriter;
import io.sluice.stream.KeyRange;
import io.sluice.stream.ReaderConfig;
import io.sluice.stream.ReaderGroupConfig;
import io.sluice.stream.ScalingPolicy;
import io.sluice.stream.ScopedStream;
import io.sluice.stream.Segment;
import io.sluice.stream.SegmentWithRange;
import io.sluice.stream.Serializer;
import io.sluice.stream.Serializers;
import io.sluice.stream.StreamConfiguration;
import io.sluice.stream.Position;
import io.sluice.stream.StreamCut;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Readers and reader groups against the embedded server: everything read exactly once and in order per key, with
 * readers joining, leaving and crashing, checkpoints and resets, scaling, truncation, event pointers, and several
 * client processes in one group.
 */
@Timeout(120)
class EventStreamReaderTest {
    private static final Logger LOG = LoggerFactory.getLogger(EventStreamReaderTest.class);
    private static final ScopedStream STREAM = ScopedStream.of("shop", "orders");
    private static final Duration POLL = Duration.ofMillis(100);

    private EmbeddedServer server;
    private SluiceClient client;
    private ControllerClient controller;
    private ReaderGroupManager groups;
    private ExecutorService threads;

    @BeforeEach
    void start() {
        server = EmbeddedServer.builder().inMemory().build();
        client = SluiceClient.connect(server.controllerUri());
        controller = client.controller();
        controller.createScope(STREAM.scope());
        groups = client.readerGroupManager(STREAM.scope());
        threads = Executors.newVirtualThreadPerTaskExecutor();
    }

    @AfterEach
    void stop() {
        threads.shutdownNow();
        client.close();
        server.close();
    }

    // ------------------------------------------------------------------ helpers

    private void createStream(int segments) {
        controller.createStream(STREAM, StreamConfiguration.builder().scalingPolicy(ScalingPolicy.fixed(segments))
                .build());
    }

    /** Writes {@code perKey} events for each of {@code keys} keys, "k<key>:<n>", interleaved. */
    private void write(int keys, int from, int perKey) {
        try (EventStreamWriter<String> writer = client.newWriter(STREAM.scope(), STREAM.name(), Serializers.utf8())) {
            for (int i = from; i < from + perKey; i++) {
                for (int k = 0; k < keys; k++) {
                    writer.write("k" + k, "k" + k + ":" + i);
                }
            }
            writer.flush();
        }
    }

    private static ReaderGroupConfig.Builder fastGroup() {
        return ReaderGroupConfig.builder().stream(STREAM).groupRefreshTimeMillis(100).disableAutomaticCheckpoints();
    }

    private EventStreamReader<String> reader(String group, String id) {
        return client.newReader(STREAM.scope(), group, id, Serializers.utf8());
    }

    /** Reads until the group has read everything, adding every event to {@code sink} in the order read. */
    private static int drain(EventStreamReader<String> reader, Queue<String> sink) {
        Deadline deadline = Deadline.after(Duration.ofSeconds(60));
        int n = 0;
        while (true) {
            assertThat(deadline.expired()).as("reader %s read everything in time", reader.readerId()).isFalse();
            EventRead<String> e = reader.readNextEvent(POLL);
            if (e.readCompleted()) {
                return n;
            }
            if (e.event() != null) {
                sink.add(e.event());
                n++;
            }
        }
    }

    private static void awaitCondition(String what, BooleanSupplier condition) {
        Deadline deadline = Deadline.after(Duration.ofSeconds(30));
        while (!condition.getAsBoolean()) {
            assertThat(deadline.expired()).as("waiting for %s", what).isFalse();
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
        }
    }

    /** Waits until each reader of the group owns an equal share of {@code segments} (they must be reading). */
    private static void awaitBalanced(ReaderGroup group, int readers, int segments) {
        awaitCondition("an even assignment", () -> {
            Map<String, Set<Segment>> assignments = group.segmentAssignments();
            return assignments.size() == readers
                    && assignments.values().stream().allMatch(s -> s.size() == segments / readers);
        });
    }

    /** Every event of {@code keys} × [0, perKey) exactly once, and each key's events in order. */
    private static void assertExactlyOnceInOrder(Collection<String> read, int keys, int perKey) {
        Map<String, Integer> times = new HashMap<>();
        read.forEach(e -> times.merge(e, 1, Integer::sum));
        List<String> missing = new ArrayList<>();
        for (int k = 0; k < keys; k++) {
            for (int i = 0; i < perKey; i++) {
                if (!times.containsKey("k" + k + ":" + i)) {
                    missing.add("k" + k + ":" + i);
                }
            }
        }
        List<String> twice = times.entrySet().stream().filter(e -> e.getValue() > 1).map(Map.Entry::getKey).toList();
        assertThat(missing).as("events never read (of %s read)", read.size()).isEmpty();
        assertThat(twice).as("events read more than once").isEmpty();
        assertThat(read).hasSize(keys * perKey);
        assertThat(new HashSet<>(read)).hasSize(keys * perKey);
        Map<String, Integer> last = new HashMap<>();
        for (String event : read) {
            String key = event.substring(0, event.indexOf(':'));
            int n = Integer.parseInt(event.substring(event.indexOf(':') + 1));
            assertThat(n).as("order of %s", key).isEqualTo(last.getOrDefault(key, -1) + 1);
            last.put(key, n);
        }
        assertThat(last).hasSize(keys);
    }

    private static <T> T get(Future<T> f) throws Exception {
        return f.get(90, TimeUnit.SECONDS);
    }

    // ------------------------------------------------------------------ (1) read back everything

    @Test
    void oneReaderReadsBackEverythingInOrderAcrossADroppedConnection() {
        createStream(6);
        write(60, 0, 100);
        controller.sealStream(STREAM);
        groups.createReaderGroup("g", fastGroup().build()).close();
        Queue<String> read = new ConcurrentLinkedQueue<>();
        try (EventStreamReader<String> reader = reader("g", "r1")) {
            for (int i = 0; i < 3000; i++) {
                EventRead<String> e = reader.readNextEvent(Duration.ofSeconds(10));
                assertThat(e.event()).isNotNull();
                assertThat(e.pointer()).isNotNull();
                assertThat(e.position().segments()).containsKey(e.pointer().segment()).hasSizeLessThanOrEqualTo(6);
                read.add(e.event());
            }
            assertThat(server.segmentStoreServer().dropConnections()).isPositive();
            drain(reader, read);
            EventRead<String> after = reader.readNextEvent(POLL);
            assertThat(after.readCompleted()).as("the group stays completed (said again after the timeout)").isTrue();
        }
        assertExactlyOnceInOrder(read, 60, 100);
    }

    @Test
    void aSecondThreadInReadNextEventIsRefusedWhileTheFirstWaits() throws Exception {
        createStream(2);
        groups.createReaderGroup("g", fastGroup().build()).close();
        try (EventStreamReader<String> reader = reader("g", "r1")) {
            // nothing is written, so the first thread's call waits until its timeout or the close below; should the
            // test thread's own call be inside when the first thread arrives, the first thread is the one refused,
            // and it tries again
            Future<EventRead<String>> first = threads.submit(() -> {
                while (true) {
                    try {
                        return reader.readNextEvent(Duration.ofSeconds(30));
                    } catch (IllegalStateException e) {
                        if (!String.valueOf(e.getMessage()).startsWith("another thread is in readNextEvent")) {
                            throw e;
                        }
                    }
                }
            });
            // until the first thread is in, the test thread's call takes its turn and returns empty; then it is refused
            IllegalStateException refused = null;
            Deadline deadline = Deadline.after(Duration.ofSeconds(20));
            while (refused == null) {
                assertThat(deadline.expired()).as("the test thread was refused in time").isFalse();
                assertThat(first).as("the first thread's call still waits").isNotDone();
                try {
                    assertThat(reader.readNextEvent(Duration.ZERO).event()).isNull();
                } catch (IllegalStateException e) {
                    refused = e;
                }
            }
            assertThat(refused).hasMessage("another thread is in readNextEvent of reader r1: a reader serves one "
                    + "thread at a time");
            assertThat(first).as("the first thread's call still waits after the refusal").isNotDone();
        }
    }

    @Test
    void threeReadersShareSixSegmentsAndReadEverythingOnce() throws Exception {
        createStream(6);
        try (ReaderGroup group = groups.createReaderGroup("g", fastGroup().build())) {
            Queue<String> read = new ConcurrentLinkedQueue<>();
            List<EventStreamReader<String>> readers = List.of(reader("g", "a"), reader("g", "b"), reader("g", "c"));
            assertThat(group.onlineReaders()).containsExactlyInAnyOrder("a", "b", "c");
            List<Future<Integer>> counts = new ArrayList<>();
            for (EventStreamReader<String> r : readers) {
                counts.add(threads.submit(() -> drain(r, read)));
            }
            awaitBalanced(group, 3, 6);
            write(60, 0, 100);
            controller.sealStream(STREAM);
            for (Future<Integer> c : counts) {
                assertThat(get(c)).as("every reader got a share").isPositive();
            }
            assertExactlyOnceInOrder(read, 60, 100);
            readers.forEach(EventStreamReader::close);
            assertThat(group.onlineReaders()).isEmpty();
        }
    }

    // ------------------------------------------------------------------ (2) a reader leaves or crashes

    @Test
    void aReaderThatClosesMidStreamHandsItsSegmentsOverExactlyWhereItStood() throws Exception {
        createStream(6);
        try (ReaderGroup group = groups.createReaderGroup("g", fastGroup().build())) {
            Queue<String> read = new ConcurrentLinkedQueue<>();
            EventStreamReader<String> a = reader("g", "a");
            EventStreamReader<String> b = reader("g", "b");
            EventStreamReader<String> leaver = reader("g", "leaver");
            Future<Integer> leaving = threads.submit(() -> {
                int n = 0;
                while (n < 300) {
                    EventRead<String> e = leaver.readNextEvent(Duration.ofSeconds(10));
                    if (e.event() != null) {
                        read.add(e.event());
                        n++;
                    }
                }
                leaver.close();
                return n;
            });
            Future<Integer> ra = threads.submit(() -> drain(a, read));
            Future<Integer> rb = threads.submit(() -> drain(b, read));
            awaitBalanced(group, 3, 6);
            write(60, 0, 100);
            controller.sealStream(STREAM);
            assertThat(get(leaving)).isEqualTo(300);
            get(ra);
            get(rb);
            assertExactlyOnceInOrder(read, 60, 100);
            assertThat(group.onlineReaders()).containsExactlyInAnyOrder("a", "b");
            a.close();
            b.close();
        }
    }

    @Test
    void aCrashedAckOnCheckpointReadersSegmentsResumeFromItsLastCheckpoint() throws Exception {
        createStream(6);
        ReaderConfig ack = ReaderConfig.DEFAULT.withAckMode(ReaderConfig.AckMode.ON_CHECKPOINT)
                .withOfflineTimeout(Duration.ofMillis(1500));
        try (ReaderGroup group = groups.createReaderGroup("g", fastGroup().build());
             SluiceClient other = SluiceClient.connect(server.controllerUri())) {
            EventStreamReader<String> a = client.newReader(STREAM.scope(), "g", "a", Serializers.utf8(), ack);
            EventStreamReader<String> b = client.newReader(STREAM.scope(), "g", "b", Serializers.utf8(), ack);
            EventStreamReaderImpl<String> crasher = (EventStreamReaderImpl<String>) other.newReader(STREAM.scope(),
                    "g", "crasher", Serializers.utf8(), ack);
            Queue<String> read = new ConcurrentLinkedQueue<>();
            Queue<String> crasherAfterCheckpoint = new ConcurrentLinkedQueue<>();
            Future<?> crashing = threads.submit(() -> {
                boolean passed = false;
                while (crasherAfterCheckpoint.size() < 20) {
                    EventRead<String> e = crasher.readNextEvent(POLL);
                    if ("c1".equals(e.checkpointName())) {
                        passed = true;
                    } else if (e.event() != null) {
                        read.add(e.event());
                        if (passed) {
                            crasherAfterCheckpoint.add(e.event());
                        }
                    }
                }
                crasher.abandon();   // no goodbye: the others must notice the missing heartbeats
                return null;
            });
            Future<Integer> ra = threads.submit(() -> drain(a, read));
            Future<Integer> rb = threads.submit(() -> drain(b, read));
            awaitBalanced(group, 3, 6);
            write(30, 0, 20);   // phase 1: 600 events
            awaitCondition("phase 1 read", () -> read.size() >= 600);
            Checkpoint c1 = group.initiateCheckpoint("c1", Duration.ofSeconds(30));
            assertThat(c1.positions()).containsKey(STREAM);
            assertThat(c1.positions().get(STREAM).positions()).hasSize(6);
            write(30, 20, 40);  // phase 2: 1200 events
            controller.sealStream(STREAM);
            get(crashing);
            get(ra);
            get(rb);
            assertThat(group.onlineReaders()).containsExactlyInAnyOrder("a", "b");
            // everything read at least once; what was read twice is exactly what the crasher read after c1
            Map<String, Integer> times = new HashMap<>();
            read.forEach(e -> times.merge(e, 1, Integer::sum));
            assertThat(times).hasSize(30 * 60);
            Set<String> twice = new HashSet<>();
            times.forEach((e, n) -> {
                assertThat(n).as("times %s was read", e).isLessThanOrEqualTo(2);
                if (n == 2) {
                    twice.add(e);
                }
            });
            assertThat(twice).isEqualTo(new HashSet<>(crasherAfterCheckpoint)).hasSize(20);
            a.close();
            b.close();
        }
    }

    @Test
    void aCrashedReadersSegmentsResumeFromWhereItLastReported() throws Exception {
        createStream(6);
        ReaderConfig quick = ReaderConfig.DEFAULT.withOfflineTimeout(Duration.ofMillis(1500));
        try (ReaderGroup group = groups.createReaderGroup("g", fastGroup().build());
             SluiceClient other = SluiceClient.connect(server.controllerUri())) {
            EventStreamReader<String> a = client.newReader(STREAM.scope(), "g", "a", Serializers.utf8(), quick);
            EventStreamReaderImpl<String> crasher = (EventStreamReaderImpl<String>) other.newReader(STREAM.scope(),
                    "g", "crasher", Serializers.utf8(), quick);
            Queue<String> read = new ConcurrentLinkedQueue<>();
            Queue<String> byCrasher = new ConcurrentLinkedQueue<>();
            Future<?> crashing = threads.submit(() -> {
                while (byCrasher.size() < 200) {
                    EventRead<String> e = crasher.readNextEvent(POLL);
                    if (e.event() != null) {
                        read.add(e.event());
                        byCrasher.add(e.event());
                    }
                }
                crasher.abandon();
                return null;
            });
            Future<Integer> ra = threads.submit(() -> drain(a, read));
            awaitBalanced(group, 2, 6);
            write(30, 0, 40);
            controller.sealStream(STREAM);
            get(crashing);
            get(ra);
            // at least once; only what the crasher handed out after its last heartbeat is read twice
            Map<String, Integer> times = new HashMap<>();
            read.forEach(e -> times.merge(e, 1, Integer::sum));
            assertThat(times).hasSize(30 * 40);
            times.forEach((e, n) -> {
                if (n > 1) {
                    assertThat(byCrasher).as("%s read twice", e).contains(e);
                }
            });
            assertThat(group.onlineReaders()).containsExactly("a");
            a.close();
        }
    }

    // ------------------------------------------------------------------ (3) checkpoint and reset

    @Test
    void resetToACheckpointReadsWhatCameAfterItAgainExactlyOnce() throws Exception {
        createStream(4);
        try (ReaderGroup group = groups.createReaderGroup("g", fastGroup().build())) {
            List<EventStreamReader<String>> readers = List.of(reader("g", "a"), reader("g", "b"));
            write(20, 0, 20);  // phase 1: 400 events
            Queue<String> read = new ConcurrentLinkedQueue<>();
            Queue<String> afterReset = new ConcurrentLinkedQueue<>();
            Map<String, List<String>> afterCheckpoint = new java.util.concurrent.ConcurrentHashMap<>();
            CountDownLatch firstRound = new CountDownLatch(readers.size());
            CountDownLatch reset = new CountDownLatch(1);
            List<Future<?>> loops = new ArrayList<>();
            for (EventStreamReader<String> r : readers) {
                loops.add(threads.submit(() -> {
                    List<String> mine = new ArrayList<>();
                    boolean passed = false;
                    while (true) {
                        EventRead<String> e = r.readNextEvent(POLL);
                        if (e.isCheckpoint()) {
                            passed = true;
                        } else if (e.event() != null) {
                            read.add(e.event());
                            if (passed) {
                                mine.add(e.event());
                            }
                        } else if (e.readCompleted()) {
                            break;
                        }
                    }
                    afterCheckpoint.put(r.readerId(), mine);
                    firstRound.countDown();
                    assertThat(reset.await(60, TimeUnit.SECONDS)).isTrue();
                    Deadline deadline = Deadline.after(Duration.ofSeconds(60));
                    boolean completed = false;
                    while (afterReset.size() < 800 || !completed) {
                        assertThat(deadline.expired()).isFalse();
                        EventRead<String> e = r.readNextEvent(POLL);
                        completed = e.readCompleted();
                        if (e.event() != null) {
                            afterReset.add(e.event());
                        }
                    }
                    return null;
                }));
            }
            awaitCondition("phase 1 read", () -> read.size() >= 400);
            Checkpoint cp = group.initiateCheckpoint("cp", Duration.ofSeconds(30));
            assertThat(group.lastCheckpoint()).contains(cp);
            write(20, 20, 40);  // phase 2: 800 events
            controller.sealStream(STREAM);
            assertThat(firstRound.await(60, TimeUnit.SECONDS)).isTrue();
            assertExactlyOnceInOrder(read, 20, 60);
            List<String> expected = new ArrayList<>();
            afterCheckpoint.values().forEach(expected::addAll);
            assertThat(expected).hasSize(800);

            group.resetToCheckpoint(cp);
            reset.countDown();
            for (Future<?> f : loops) {
                get(f);
            }
            assertThat(afterReset).containsExactlyInAnyOrderElementsOf(expected);
            readers.forEach(EventStreamReader::close);
        }
    }

    @Test
    void resetToTheHeadReadsEverythingAgain() {
        createStream(3);
        write(9, 0, 20);
        controller.sealStream(STREAM);
        try (ReaderGroup group = groups.createReaderGroup("g", fastGroup().build());
             EventStreamReader<String> r = reader("g", "r")) {
            Queue<String> first = new ConcurrentLinkedQueue<>();
            drain(r, first);
            assertExactlyOnceInOrder(first, 9, 20);
            assertThatThrownBy(() -> group.resetToStreamCuts(Map.of(ScopedStream.of("shop", "other"),
                    StreamCut.UNBOUNDED))).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("does not read");
            group.resetToStreamCuts(Map.of(STREAM, StreamCut.UNBOUNDED));
            Queue<String> again = new ConcurrentLinkedQueue<>();
            Deadline deadline = Deadline.after(Duration.ofSeconds(30));
            while (again.size() < 180) {
                assertThat(deadline.expired()).isFalse();
                EventRead<String> e = r.readNextEvent(POLL);
                if (e.event() != null) {
                    again.add(e.event());
                }
            }
            drain(r, again);
            assertExactlyOnceInOrder(again, 9, 20);
        }
    }

    @Test
    void aCheckpointWaitsForEveryReaderAndNamesThoseThatDoNotCome() {
        createStream(2);
        try (ReaderGroup group = groups.createReaderGroup("g", fastGroup().maxOutstandingCheckpointRequest(1).build());
             EventStreamReader<String> idle = reader("g", "idle")) {
            assertThatThrownBy(() -> group.initiateCheckpoint("cp", Duration.ofMillis(300)))
                    .isInstanceOf(DeadlineExceededException.class).hasMessageContaining("[idle]");
            assertThatThrownBy(() -> group.initiateCheckpoint("cp2", Duration.ofMillis(300)))
                    .isInstanceOf(PreconditionFailedException.class);
            assertThatThrownBy(() -> group.initiateCheckpoint("", Duration.ofMillis(300)))
                    .isInstanceOf(IllegalArgumentException.class);
            // the reader comes: it passes the pending checkpoint, which completes
            EventRead<String> e = idle.readNextEvent(Duration.ofSeconds(10));
            assertThat(e.checkpointName()).isEqualTo("cp");
            idle.readNextEvent(POLL);
            assertThat(group.lastCheckpoint()).get().extracting(Checkpoint::name).isEqualTo("cp");
            assertThatThrownBy(() -> group.initiateCheckpoint("cp", Duration.ofMillis(300)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("already has");
        }
    }

    @Test
    void automaticCheckpointsHappenSilently() {
        createStream(2);
        write(4, 0, 10);
        try (ReaderGroup group = groups.createReaderGroup("g", fastGroup().automaticCheckpointIntervalMillis(200)
                .build());
             EventStreamReader<String> r = reader("g", "a")) {
            int events = 0;
            Deadline deadline = Deadline.after(Duration.ofSeconds(30));
            while (group.lastCheckpoint().isEmpty()) {
                assertThat(deadline.expired()).isFalse();
                EventRead<String> e = r.readNextEvent(POLL);
                assertThat(e.isCheckpoint()).as("automatic checkpoints are silent").isFalse();
                events += e.event() == null ? 0 : 1;
            }
            assertThat(group.lastCheckpoint().get().name()).startsWith("auto-");
            assertThat(events).isLessThanOrEqualTo(40);
        }
    }

    // ------------------------------------------------------------------ (4) order across scaling

    @Test
    void perKeyOrderHoldsAcrossAScaleUpAndDownWhileWritingAndReading() throws Exception {
        createStream(2);
        int keys = 16;
        int perKey = 400;
        try (ReaderGroup group = groups.createReaderGroup("g", fastGroup().build())) {
            Queue<String> read = new ConcurrentLinkedQueue<>();
            EventStreamReader<String> a = reader("g", "a");
            EventStreamReader<String> b = reader("g", "b");
            Future<Integer> ra = threads.submit(() -> drain(a, read));
            Future<Integer> rb = threads.submit(() -> drain(b, read));
            try (EventStreamWriter<String> writer = client.newWriter(STREAM.scope(), STREAM.name(), Serializers.utf8())) {
                Future<?> producing = threads.submit(() -> {
                    for (int i = 0; i < perKey; i++) {
                        for (int k = 0; k < keys; k++) {
                            writer.write("k" + k, "k" + k + ":" + i);
                        }
                    }
                    return null;
                });
                awaitCondition("some events read", () -> read.size() >= 200);
                List<SegmentWithRange> current = controller.currentSegments(STREAM).ranges();
                SegmentWithRange first = current.get(0);
                double mid = (first.low() + first.high()) / 2;
                assertThat(controller.scale(STREAM, List.of(first.segment()), List.of(new KeyRange(first.low(), mid),
                        new KeyRange(mid, first.high()))).started()).isTrue();
                awaitCondition("events after the split", () -> read.size() >= 1200);
                List<SegmentWithRange> afterSplit = controller.currentSegments(STREAM).ranges();
                // 3 -> 2 (the policy's minimum; 1 would be refused, as Pravega does) on other boundaries
                assertThat(controller.scale(STREAM, afterSplit.stream().map(SegmentWithRange::segment).toList(),
                        List.of(new KeyRange(0, 0.4), new KeyRange(0.4, 1))).started()).as("scale down").isTrue();
                get(producing);
                writer.flush();
            }
            controller.sealStream(STREAM);
            get(ra);
            get(rb);
            assertExactlyOnceInOrder(read, keys, perKey);
            a.close();
            b.close();
        }
    }

    // ------------------------------------------------------------------ (5) idle segments do not delay busy ones

    @Test
    void aReaderOnTwoHundredSegmentsGetsTheBusyOnesEventsPromptly() {
        createStream(200);
        long refreshMillis = 10_000;
        try (ReaderGroup group = groups.createReaderGroup("g", ReaderGroupConfig.builder().stream(STREAM)
                .groupRefreshTimeMillis(refreshMillis).disableAutomaticCheckpoints().build());
             EventStreamWriter<String> writer = client.newWriter(STREAM.scope(), STREAM.name(), Serializers.utf8())) {
            writer.writeAndWait("hot", "first");
            long created = System.nanoTime();
            try (EventStreamReader<String> reader = client.newReader(STREAM.scope(), "g", "r", Serializers.utf8(),
                    ReaderConfig.DEFAULT.withOfflineTimeout(Duration.ofMinutes(1)))) {
                EventRead<String> first = reader.readNextEvent(Duration.ofSeconds(10));
                long firstMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - created);
                assertThat(first.event()).isEqualTo("first");
                assertThat(group.segmentAssignments().get("r")).hasSize(200);
                List<Long> delays = new ArrayList<>();
                for (int i = 0; i < 30; i++) {
                    long t0 = System.nanoTime();
                    writer.writeAndWait("hot", "e" + i);
                    // within one read whose timeout is half the refresh interval: if idle segments held the busy
                    // one up until the next refresh, this read would come back empty
                    EventRead<String> e = reader.readNextEvent(Duration.ofMillis(refreshMillis / 2));
                    delays.add(TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - t0));
                    assertThat(e.event()).isEqualTo("e" + i);
                }
                List<Long> sorted = delays.stream().sorted().toList();
                LOG.info("200 segments, 199 idle: reader created and first event in {} ms; write-to-read delay p50 {} us,"
                        + " max {} us", firstMillis, sorted.get(sorted.size() / 2), sorted.get(sorted.size() - 1));
            }
        }
    }

    // ------------------------------------------------------------------ (6) truncation

    @Test
    void truncatedDataIsReportedClearlyAndReadingContinuesAfterIt() {
        createStream(1);
        String pad = "x".repeat(192);
        try (EventStreamWriter<String> writer = client.newWriter(STREAM.scope(), STREAM.name(), Serializers.utf8())) {
            for (int i = 0; i < 200; i++) {
                writer.write("k", String.format("%03d", i) + pad);
            }
            writer.flush();
        }
        int framed = 8 + 3 + pad.length();
        groups.createReaderGroup("g", fastGroup().build()).close();
        try (EventStreamReader<String> reader = client.newReader(STREAM.scope(), "g", "r", Serializers.utf8(),
                ReaderConfig.DEFAULT.withBufferBytes(1024))) {
            EventRead<String> e = null;
            for (int i = 0; i < 10; i++) {
                e = reader.readNextEvent(Duration.ofSeconds(10));
                assertThat(e.event()).startsWith(String.format("%03d", i));
            }
            Segment segment = e.pointer().segment();
            controller.truncateStream(STREAM, StreamCut.of(Map.of(segment, 100L * framed)));
            int readBefore = 10;
            SegmentTruncatedException truncated = null;
            while (truncated == null) {
                try {
                    EventRead<String> next = reader.readNextEvent(Duration.ofSeconds(10));
                    assertThat(next.event()).as("buffered events come first").isNotNull();
                    readBefore++;
                } catch (SegmentTruncatedException t) {
                    truncated = t;
                }
            }
            assertThat(readBefore).isLessThan(100);
            assertThat(truncated).hasMessageContaining(segment.qualifiedName()).hasMessageContaining("truncated")
                    .hasMessageContaining("continues at offset " + 100L * framed);
            assertThat(reader.readNextEvent(Duration.ofSeconds(10)).event()).startsWith("100");
        }
    }

    // ------------------------------------------------------------------ closeAt, config

    @Test
    void aReaderClosedAtAPositionHandsBackWhatItReadAfterIt() {
        createStream(1);
        write(1, 0, 10);
        controller.sealStream(STREAM);
        groups.createReaderGroup("g", fastGroup().build()).close();
        List<String> first = new ArrayList<>();
        Position processed;
        try (EventStreamReader<String> reader = reader("g", "a")) {
            assertThat(reader.config()).isEqualTo(ReaderConfig.DEFAULT);
            EventRead<String> third = null;
            while (first.size() < 6) {
                EventRead<String> e = reader.readNextEvent(Duration.ofSeconds(10));
                if (e.event() != null) {
                    first.add(e.event());
                    if (first.size() == 3) {
                        third = e;
                    }
                }
            }
            processed = third.position();
            reader.closeAt(processed);
        }
        assertThat(first).containsExactly("k0:0", "k0:1", "k0:2", "k0:3", "k0:4", "k0:5");
        Queue<String> rest = new ConcurrentLinkedQueue<>();
        try (EventStreamReader<String> next = reader("g", "b")) {
            drain(next, rest);
        }
        assertThat(rest).as("the events handed out after the position are read again, none before it")
                .containsExactly("k0:3", "k0:4", "k0:5", "k0:6", "k0:7", "k0:8", "k0:9");
    }

    @Test
    void aPositionBeyondWhatTheReaderHandedOutIsRefusedAndNothingIsSkipped() {
        createStream(1);
        write(1, 0, 10);
        controller.sealStream(STREAM);
        groups.createReaderGroup("g", fastGroup().build()).close();
        List<String> first = new ArrayList<>();
        EventStreamReader<String> reader = reader("g", "a");
        Position beyond = null;
        while (first.size() < 2) {
            EventRead<String> e = reader.readNextEvent(Duration.ofSeconds(10));
            if (e.event() != null) {
                first.add(e.event());
                Map<Segment, Long> ahead = new HashMap<>(e.position().segments());
                ahead.replaceAll((segment, offset) -> offset + 1000);
                beyond = Position.of(ahead);
            }
        }
        Position bogus = beyond;
        assertThatThrownBy(() -> reader.closeAt(bogus)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("would skip events nobody read");
        Queue<String> rest = new ConcurrentLinkedQueue<>();
        try (EventStreamReader<String> next = reader("g", "b")) {
            drain(next, rest);
        }
        assertThat(rest).as("closed at its own position instead").hasSize(8).startsWith("k0:2");
    }

    @Test
    void theStreamManagerFetchesAnEventByItsPointer() {
        createStream(2);
        write(4, 0, 5);
        groups.createReaderGroup("g", fastGroup().build()).close();
        try (EventStreamReader<String> reader = reader("g", "a")) {
            EventRead<String> e = reader.readNextEvent(Duration.ofSeconds(10));
            while (e.event() == null) {
                e = reader.readNextEvent(Duration.ofSeconds(10));
            }
            assertThat(client.streamManager().fetchEvent(e.pointer(), Serializers.utf8())).isEqualTo(e.event());
        }
    }

    // ------------------------------------------------------------------ (7) fetchEvent

    @Test
    void fetchEventReadsExactlyThePointedEvent() {
        createStream(2);
        write(4, 0, 5);
        groups.createReaderGroup("g", fastGroup().build()).close();
        try (EventStreamReader<String> reader = reader("g", "r")) {
            Map<EventPointer, String> pointers = new TreeMap<>((x, y) -> x.toString().compareTo(y.toString()));
            for (int i = 0; i < 20; i++) {
                EventRead<String> e = reader.readNextEvent(Duration.ofSeconds(10));
                pointers.put(e.pointer(), e.event());
            }
            pointers.forEach((pointer, event) -> {
                assertThat(reader.fetchEvent(pointer)).isEqualTo(event);
                assertThat(reader.fetchEvent(EventPointer.parse(pointer.toString()))).isEqualTo(event);
            });
            EventPointer some = pointers.keySet().iterator().next();
            assertThatThrownBy(() -> reader.fetchEvent(new EventPointer(some.segment(), some.offset() + 1,
                    some.length()))).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no event at");
            assertThatThrownBy(() -> reader.fetchEvent(new EventPointer(some.segment(), 1_000_000, 20)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("bytes long");
            controller.truncateStream(STREAM, controller.currentSegments(STREAM).segments().stream()
                    .collect(java.util.stream.Collectors.collectingAndThen(java.util.stream.Collectors.toMap(
                            s -> s, s -> server.segmentStore().segmentInfo(s.qualifiedName()).orElseThrow().length()),
                            StreamCut::of)));
            assertThatThrownBy(() -> reader.fetchEvent(some)).isInstanceOf(SegmentTruncatedException.class);
        }
    }

    @Test
    void anEventTheSerializerRejectsIsReportedWithItsPointerAndReadingGoesOn() {
        createStream(1);
        try (EventStreamWriter<String> writer = client.newWriter(STREAM.scope(), STREAM.name(), Serializers.utf8())) {
            writer.write("k", "before");
            writer.write("k", "poison");
            writer.write("k", "after");
            writer.flush();
        }
        Serializer<String> picky = new Serializer<>() {
            @Override
            public ByteBuffer serialize(String value) {
                return Serializers.utf8().serialize(value);
            }

            @Override
            public String deserialize(ByteBuffer bytes) {
                String s = Serializers.utf8().deserialize(bytes);
                if (s.equals("poison")) {
                    throw new IllegalArgumentException("cannot parse " + s);
                }
                return s;
            }
        };
        groups.createReaderGroup("g", fastGroup().build()).close();
        groups.createReaderGroup("g2", fastGroup().build()).close();
        try (EventStreamReader<String> reader = client.newReader(STREAM.scope(), "g", "r", picky)) {
            assertThat(reader.readNextEvent(Duration.ofSeconds(10)).event()).isEqualTo("before");
            EventDeserializationException bad = catchThrowableOfType(EventDeserializationException.class,
                    () -> reader.readNextEvent(Duration.ofSeconds(10)));
            assertThat(bad).hasMessageContaining("cannot parse poison").hasMessageContaining(bad.pointer().toString())
                    .hasCauseInstanceOf(IllegalArgumentException.class);
            try (EventStreamReader<String> other = reader("g2", "r")) {
                assertThat(other.fetchEvent(bad.pointer())).isEqualTo("poison");
            }
            assertThat(reader.readNextEvent(Duration.ofSeconds(10)).event()).isEqualTo("after");
        }
    }

    // ------------------------------------------------------------------ (8) two processes, one group

    @Test
    void readersOfTwoClientsShareTheGroup() throws Exception {
        createStream(6);
        try (ReaderGroup group = groups.createReaderGroup("g", fastGroup().build());
             SluiceClient second = SluiceClient.connect(server.controllerUri())) {
            Queue<String> read = new ConcurrentLinkedQueue<>();
            EventStreamReader<String> a = reader("g", "a");
            EventStreamReader<String> b = second.newReader(STREAM.scope(), "g", "b", Serializers.utf8());
            EventStreamReader<String> c = second.newReader(STREAM.scope(), "g", "c", Serializers.utf8());
            try (ReaderGroup seen = second.readerGroupManager(STREAM.scope()).readerGroup("g")) {
                assertThat(seen.onlineReaders()).containsExactlyInAnyOrder("a", "b", "c");
            }
            Future<Integer> ra = threads.submit(() -> drain(a, read));
            Future<Integer> rb = threads.submit(() -> drain(b, read));
            Future<Integer> rc = threads.submit(() -> drain(c, read));
            awaitBalanced(group, 3, 6);
            write(60, 0, 50);
            controller.sealStream(STREAM);
            assertThat(get(ra)).isPositive();
            assertThat(get(rb)).isPositive();
            assertThat(get(rc)).isPositive();
            assertExactlyOnceInOrder(read, 60, 50);
            assertThat(group.onlineReaders()).containsExactlyInAnyOrder("a", "b", "c");
        }
    }

    // ------------------------------------------------------------------ group management

    @Test
    void groupsAreCreatedIdempotentlyOpenedAndDeleted() {
        createStream(2);
        ReaderGroupConfig config = fastGroup().build();
        groups.createReaderGroup("g", config).close();
        try (ReaderGroup again = groups.createReaderGroup("g", config)) {
            assertThat(again.config().startingStreamCuts()).isEqualTo(config.startingStreamCuts());
        }
        assertThatThrownBy(() -> groups.createReaderGroup("g", fastGroup().groupRefreshTimeMillis(500).build()))
                .isInstanceOf(AlreadyExistsException.class).hasMessageContaining("refresh");
        assertThatThrownBy(() -> groups.readerGroup("nope")).isInstanceOf(NoSuchStreamException.class);
        assertThatThrownBy(() -> reader("nope", "r")).isInstanceOf(NoSuchStreamException.class)
                .hasMessageContaining("nope");
        try (ReaderGroup g = groups.readerGroup("g")) {
            assertThat(g.streamCuts().get(STREAM).positions()).hasSize(2);
            assertThat(g.onlineReaders()).isEmpty();
        }
        assertThat(groups.deleteReaderGroup("g")).isTrue();
        assertThat(groups.deleteReaderGroup("g")).isFalse();
        assertThatThrownBy(() -> groups.readerGroup("g")).isInstanceOf(NoSuchStreamException.class);
    }

    @Test
    void aReaderWithTheSameIdReplacesTheEarlierOne() {
        createStream(2);
        write(4, 0, 10);
        controller.sealStream(STREAM);
        try (ReaderGroup group = groups.createReaderGroup("g", fastGroup().build());
             EventStreamReader<String> before = reader("g", "r")) {
            EventRead<String> first = before.readNextEvent(Duration.ofSeconds(10));
            assertThat(first.event()).isNotNull();
            // the earlier reader's heartbeat reports where it stands; only then is it replaced, so the replacement
            // must go on after the first event (a replacement before that heartbeat would start before it)
            long firstEnd = first.position().segments().get(first.pointer().segment());
            awaitCondition("the first reader's position reported", () -> group.streamCuts().get(STREAM).positions()
                    .getOrDefault(first.pointer().segment(), 0L) == firstEnd);
            try (EventStreamReader<String> restarted = reader("g", "r")) {
                Deadline deadline = Deadline.after(Duration.ofSeconds(30));
                IllegalStateException replaced = null;
                while (replaced == null) {
                    assertThat(deadline.expired()).isFalse();
                    try {
                        before.readNextEvent(POLL);
                    } catch (IllegalStateException e) {
                        replaced = e;
                    }
                }
                assertThat(replaced).hasMessageContaining("replaced");
                assertThatThrownBy(() -> before.readNextEvent(POLL)).hasMessageContaining("replaced");
                Queue<String> read = new ConcurrentLinkedQueue<>();
                drain(restarted, read);
                assertThat(read).doesNotContain(first.event());
                List<String> all = new ArrayList<>();
                all.add(first.event());
                all.addAll(read);
                assertExactlyOnceInOrder(all, 4, 10);
                assertThat(group.onlineReaders()).containsExactly("r");
            }
        }
    }

    @Test
    void aReaderTakesItsSegmentsAtTheFirstReadAndABusySegmentDoesNotStarveAnother() {
        createStream(2);
        write(16, 0, 300);   // 4,800 small events over both segments: each segment's share fits its prefetch buffer
        try (ReaderGroup group = groups.createReaderGroup("g", fastGroup().build());
             EventStreamReader<String> reader = reader("g", "r")) {
            assertThat(group.segmentAssignments().get("r")).isEmpty();
            EventRead<String> first = reader.readNextEvent(Duration.ofSeconds(10));
            assertThat(first.hasEvent()).isTrue();
            assertThat(group.segmentAssignments().get("r")).hasSize(2);
            EventStreamReaderImpl<String> impl = (EventStreamReaderImpl<String>) reader;
            awaitCondition("events of both segments buffered", () -> impl.segmentsWithEventsBuffered() == 2);
            // the reader goes on with one segment while it has events, but not past a short streak while the other
            // has events too: among the next 200 events both segments appear, several times each
            List<Segment> from = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                EventRead<String> e = reader.readNextEvent(Duration.ofSeconds(10));
                assertThat(e.hasEvent()).isTrue();
                from.add(e.pointer().segment());
            }
            int switches = 0;
            for (int i = 1; i < from.size(); i++) {
                if (!from.get(i).equals(from.get(i - 1))) {
                    switches++;
                }
            }
            assertThat(new HashSet<>(from)).hasSize(2);
            assertThat(switches).isGreaterThanOrEqualTo(2);
        }
    }

    @Test
    void aGroupStopsAtItsEndingCutAndReaderOfflineHandsSegmentsOver() {
        createStream(2);
        write(10, 0, 10);
        StreamCut tail = StreamCut.of(controller.currentSegments(STREAM).segments().stream().collect(
                java.util.stream.Collectors.toMap(s -> s,
                        s -> server.segmentStore().segmentInfo(s.qualifiedName()).orElseThrow().length())));
        write(10, 10, 10);
        try (ReaderGroup group = groups.createReaderGroup("g", fastGroup().stream(STREAM, StreamCut.UNBOUNDED, tail)
                .build())) {
            Queue<String> read = new ConcurrentLinkedQueue<>();
            try (EventStreamReader<String> gone = reader("g", "gone")) {
                assertThat(group.segmentAssignments().get("gone")).isEmpty();   // segments are taken at the first read
                EventRead<String> first = gone.readNextEvent(Duration.ofSeconds(10));
                assertThat(first.hasEvent()).isTrue();
                read.add(first.event());
                assertThat(group.segmentAssignments().get("gone")).hasSize(2);
                // declared offline where it stopped (it never reads again): its segments go to the next reader
                group.readerOffline("gone", first.position());
                assertThat(group.onlineReaders()).isEmpty();
                try (EventStreamReader<String> r = reader("g", "r")) {
                    drain(r, read);
                }
            }
            assertExactlyOnceInOrder(read, 10, 10);
            assertThat(group.streamCuts().get(STREAM)).isEqualTo(tail);
        }
    }
}
