package io.sluice.compat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.sluice.admin.ReaderGroup;
import io.sluice.admin.ReaderGroupManager;
import io.sluice.common.Deadline;
import io.sluice.errors.AlreadyExistsException;
import io.sluice.errors.NoSuchStreamException;
import io.sluice.errors.SegmentTruncatedException;
import io.sluice.stream.Checkpoint;
import io.sluice.stream.EventPointer;
import io.sluice.stream.EventRead;
import io.sluice.stream.EventStreamReader;
import io.sluice.stream.EventStreamWriter;
import io.sluice.stream.KeyRange;
import io.sluice.stream.ReaderConfig;
import io.sluice.stream.ReaderGroupConfig;
import io.sluice.stream.ScopedStream;
import io.sluice.stream.Segment;
import io.sluice.stream.SegmentWithRange;
import io.sluice.stream.Serializers;
import io.sluice.stream.StreamCut;

/**
 * Reader groups of Sluice readers against the REAL Pravega 0.13: a stream scaled up and down by hand while a writer
 * writes and two readers read (nothing lost or read twice, per-key order kept across the successors), and
 * checkpoints taken while readers read, whose cuts must match exactly what each reader had handed out before passing
 * them, followed by resets of the group to the checkpoint and to a stream cut, after which exactly the events after
 * it are read again, once each.
 */
@CompatTest
@Timeout(300)
class ReaderGroupCompatTest {
    private static final Logger LOG = LoggerFactory.getLogger(ReaderGroupCompatTest.class);
    private static final Duration READ_TIMEOUT = Duration.ofSeconds(120);

    @RegisterExtension
    static final RealPravegaScope real = new RealPravegaScope("compat-groups");

    private static ReaderGroup createGroup(String name, ScopedStream stream) {
        return real.client.readerGroupManager(real.scope).createReaderGroup(name, ReaderGroupConfig.builder()
                .stream(stream).groupRefreshTimeMillis(200).disableAutomaticCheckpoints().build());
    }

    private static List<EventStreamReader<String>> readers(String group, String... ids) {
        List<EventStreamReader<String>> out = new ArrayList<>();
        for (String id : ids) {
            out.add(real.client.newReader(real.scope, group, id, Serializers.utf8()));
        }
        return out;
    }

    private static List<Future<Integer>> drainAll(List<EventStreamReader<String>> readers, KeyedEvents.Log log) {
        List<Future<Integer>> out = new ArrayList<>();
        for (EventStreamReader<String> reader : readers) {
            out.add(real.threads.submit(() -> KeyedEvents.drain(reader, log, READ_TIMEOUT)));
        }
        return out;
    }

    private static void await(List<Future<Integer>> futures) throws Exception {
        for (Future<Integer> f : futures) {
            f.get(READ_TIMEOUT.toSeconds() + 30, TimeUnit.SECONDS);
        }
    }

    // ------------------------------------------------------------------ scaling while writing and reading

    /** @return the segments the log's events were read from */
    private static Set<Segment> readFrom(KeyedEvents.Log log) {
        Set<Segment> from = new HashSet<>();
        log.reads().stream().filter(r -> r.pointer() != null).forEach(r -> from.add(r.pointer().segment()));
        return from;
    }

    @Test
    void aStreamScaledUpAndDownWhileWrittenAndReadLosesNothingAndKeepsPerKeyOrder() throws Exception {
        KeyedEvents events = KeyedEvents.ascii(32);
        ScopedStream stream = real.createStream("scaled", 2);
        int step = 2000;
        KeyedEvents.Log log = new KeyedEvents.Log();
        AtomicInteger written = new AtomicInteger();
        AtomicInteger rounds = new AtomicInteger();
        AtomicBoolean stop = new AtomicBoolean();
        try (ReaderGroup group = createGroup("scaled", stream);
             EventStreamWriter<String> writer = real.client.newWriter(real.scope, stream.name(), Serializers.utf8())) {
            List<EventStreamReader<String>> readers = readers("scaled", "a", "b");
            List<Future<Integer>> reading = drainAll(readers, log);
            // the writer writes rounds (event n of every key) until told to stop, at most 2 steps ahead of readers
            Future<?> writing = real.threads.submit(() -> {
                while (!stop.get()) {
                    log.awaitEvents(written.get() - 2 * step, READ_TIMEOUT);
                    int n = rounds.get();
                    events.write(writer, n, n + 1);
                    rounds.incrementAndGet();
                    written.addAndGet(events.keys());
                }
                writer.flush();
                return null;
            });

            log.awaitEvents(step, READ_TIMEOUT);
            List<SegmentWithRange> before = real.streams.currentSegments(real.scope, stream.name());
            List<KeyRange> quarters = new ArrayList<>();
            for (SegmentWithRange r : before) {
                double mid = (r.low() + r.high()) / 2;
                quarters.add(new KeyRange(r.low(), mid));
                quarters.add(new KeyRange(mid, r.high()));
            }
            List<SegmentWithRange> up = real.streams.scaleStream(real.scope, stream.name(),
                    before.stream().map(SegmentWithRange::segment).toList(), quarters);
            assertThat(up).hasSize(4).allSatisfy(r -> assertThat(r.segment().epoch()).isEqualTo(1));
            int afterUp = written.get();
            log.awaitEvents(afterUp + step, READ_TIMEOUT);   // read what was written to the 4 new segments
            // and go on until each of them has given events: a writer that learns of the seal late may otherwise
            // route some keys past epoch 1 once the scale down has sealed it too (seen on the real Pravega)
            Deadline epoch1 = Deadline.after(READ_TIMEOUT);
            while (!readFrom(log).containsAll(up.stream().map(SegmentWithRange::segment).toList())) {
                assertThat(epoch1.expired()).as("events were read from every segment of epoch 1: %s", readFrom(log))
                        .isFalse();
                log.awaitEvents(log.events().size() + events.keys(), READ_TIMEOUT);
            }

            // down to the policy's minimum of 2, on other boundaries: the second quarter precedes both new segments
            List<SegmentWithRange> down = real.streams.scaleStream(real.scope, stream.name(),
                    up.stream().map(SegmentWithRange::segment).toList(), List.of(new KeyRange(0.0, 0.3),
                            new KeyRange(0.3, 1.0)));
            assertThat(down).hasSize(2).allSatisfy(r -> assertThat(r.segment().epoch()).isEqualTo(2));
            int afterDown = written.get();
            log.awaitEvents(afterDown + step, READ_TIMEOUT);
            stop.set(true);
            writing.get(READ_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            real.streams.sealStream(real.scope, stream.name());
            await(reading);
            LOG.info("scaled 2 -> 4 -> 2 segments: {} events written and read; {} written before the scale up, {} "
                    + "before the scale down", written.get(), afterUp, afterDown);
            events.assertExactlyOnceInOrder(log.events(), 0, rounds.get());
            assertThat(readFrom(log)).as("events came from the segments of all three epochs").hasSize(8);
            readers.forEach(EventStreamReader::close);
            assertThat(group.onlineReaders()).isEmpty();
        }
    }

    // ------------------------------------------------------------------ checkpoints and resets

    @Test
    void checkpointCutsMatchWhatReadersHandedOutAndResetsReadTheRestAgainExactlyOnce() throws Exception {
        KeyedEvents events = KeyedEvents.ascii(16);
        int half = 250;
        ScopedStream stream = real.createStream("checkpointed", 4);
        List<Segment> segments = real.streams.currentSegments(real.scope, stream.name()).stream()
                .map(SegmentWithRange::segment).toList();
        KeyedEvents.Log log = new KeyedEvents.Log();
        try (ReaderGroup group = createGroup("cp", stream);
             EventStreamWriter<String> writer = real.client.newWriter(real.scope, stream.name(), Serializers.utf8())) {
            List<EventStreamReader<String>> readers = readers("cp", "a", "b");
            List<Future<Integer>> reading = drainAll(readers, log);

            // phase 1 is written while the readers read; the checkpoint is taken in the middle of it
            Future<?> firstHalf = real.threads.submit(() -> {
                events.write(writer, 0, half);
                writer.flush();
                return null;
            });
            log.awaitEvents(events.keys() * half / 3, READ_TIMEOUT);
            Checkpoint cp = group.initiateCheckpoint("cp1", Duration.ofSeconds(60));
            firstHalf.get(READ_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            StreamCut afterFirstHalf = real.streams.streamInfo(real.scope, stream.name()).tail();
            events.write(writer, half, 2 * half);
            writer.flush();
            real.streams.sealStream(real.scope, stream.name());
            await(reading);
            events.assertExactlyOnceInOrder(log.events(), 0, 2 * half);
            assertThat(group.lastCheckpoint()).contains(cp);
            assertThat(cp.positions()).containsOnlyKeys(stream);
            StreamCut cut = cp.positions().get(stream);
            assertThat(cut.positions()).as("a position for every segment")
                    .containsOnlyKeys(segments);

            // the cut is exactly where each segment stood when its reader passed the checkpoint
            Map<Segment, Long> handedOutBefore = new TreeMap<>();
            cut.positions().keySet().forEach(s -> handedOutBefore.put(s, 0L));
            List<String> afterCheckpoint = new ArrayList<>();
            for (List<KeyedEvents.Read> reads : log.byReader().values()) {
                boolean passed = false;
                for (KeyedEvents.Read r : reads) {
                    if ("cp1".equals(r.checkpoint())) {
                        passed = true;
                    } else if (r.event() != null && passed) {
                        afterCheckpoint.add(r.event());
                        assertThat(r.pointer().offset()).as("%s read after the checkpoint lies after its cut", r)
                                .isGreaterThanOrEqualTo(cut.positions().get(r.pointer().segment()));
                    } else if (r.event() != null) {
                        EventPointer p = r.pointer();
                        handedOutBefore.merge(p.segment(), p.offset() + p.length(), Math::max);
                    }
                }
                assertThat(passed).as("every reader passed the checkpoint").isTrue();
            }
            assertThat(cut.positions()).as("the checkpoint's cut").isEqualTo(handedOutBefore);
            assertThat(afterCheckpoint).as("the checkpoint was taken mid-stream").isNotEmpty()
                    .hasSizeLessThan(events.keys() * 2 * half);

            // reset to the checkpoint: exactly the events after it, once each
            KeyedEvents.Log again = new KeyedEvents.Log();
            group.resetToCheckpoint(cp);
            await(drainAfterReset(readers, again, afterCheckpoint.size()));
            assertThat(again.events()).containsExactlyInAnyOrderElementsOf(afterCheckpoint);
            assertPerKeyOrder(again.events());

            // reset to a stream cut (the tail after phase 1): exactly phase 2 again
            KeyedEvents.Log phase2 = new KeyedEvents.Log();
            group.resetToStreamCuts(Map.of(stream, afterFirstHalf));
            await(drainAfterReset(readers, phase2, events.keys() * half));
            events.assertExactlyOnceInOrder(phase2.events(), half, 2 * half);
            readers.forEach(EventStreamReader::close);
        }
    }

    // ------------------------------------------------------------------ truncation under a reader

    @Test
    void dataTruncatedUnderAReaderIsReportedAndReadingContinuesAfterIt() {
        ScopedStream stream = real.createStream("truncated", 1);
        String pad = "x".repeat(192);
        try (EventStreamWriter<String> writer = real.client.newWriter(real.scope, stream.name(), Serializers.utf8())) {
            for (int i = 0; i < 200; i++) {
                writer.write("k", String.format("%03d", i) + pad);
            }
            writer.flush();
        }
        int framed = 8 + 3 + pad.length();
        createGroup("truncated", stream).close();
        try (EventStreamReader<String> reader = real.client.newReader(real.scope, "truncated", "r",
                Serializers.utf8(), ReaderConfig.DEFAULT.withBufferBytes(1024))) {
            EventRead<String> e = null;
            for (int i = 0; i < 10; i++) {
                e = reader.readNextEvent(Duration.ofSeconds(30));
                assertThat(e.event()).startsWith(String.format("%03d", i));
            }
            Segment segment = e.pointer().segment();
            real.streams.truncateStream(real.scope, stream.name(), StreamCut.of(Map.of(segment, 100L * framed)));
            int read = 10;
            SegmentTruncatedException truncated = null;
            while (truncated == null) {
                try {
                    assertThat(reader.readNextEvent(Duration.ofSeconds(30)).event()).as("buffered events first")
                            .startsWith(String.format("%03d", read));
                    read++;
                } catch (SegmentTruncatedException t) {
                    truncated = t;
                }
            }
            assertThat(read).isLessThan(100);
            assertThat(truncated).hasMessageContaining(segment.qualifiedName())
                    .hasMessageContaining("continues at offset " + 100L * framed);
            assertThat(reader.readNextEvent(Duration.ofSeconds(30)).event()).startsWith("100");
            EventPointer gone = e.pointer();
            assertThatThrownBy(() -> reader.fetchEvent(gone)).isInstanceOf(SegmentTruncatedException.class);
        }
    }

    // ------------------------------------------------------------------ group management, bounded groups

    @Test
    void groupsAreCreatedIdempotentlyOpenedBoundedAndDeleted() throws Exception {
        KeyedEvents events = KeyedEvents.ascii(8);
        ScopedStream stream = real.createStream("managed", 3);
        ReaderGroupManager groups = real.client.readerGroupManager(real.scope);
        ReaderGroupConfig config = ReaderGroupConfig.builder().stream(stream).groupRefreshTimeMillis(200)
                .disableAutomaticCheckpoints().build();
        groups.createReaderGroup("g", config).close();
        try (ReaderGroup again = groups.createReaderGroup("g", config)) {
            assertThat(again.config().startingStreamCuts()).isEqualTo(config.startingStreamCuts());
            assertThat(again.config().readerGroupId()).as("assigned by the real controller")
                    .isNotEqualTo(ReaderGroupConfig.DEFAULT_READER_GROUP_ID);
            assertThat(again.onlineReaders()).isEmpty();
            assertThat(again.streamCuts().get(stream).positions()).hasSize(3).containsValues(0L);
        }
        assertThatThrownBy(() -> groups.createReaderGroup("g", config.toBuilder().groupRefreshTimeMillis(500)
                .build())).isInstanceOf(AlreadyExistsException.class).hasMessageContaining("refresh");
        assertThatThrownBy(() -> groups.readerGroup("nope")).isInstanceOf(NoSuchStreamException.class);
        assertThatThrownBy(() -> real.client.newReader(real.scope, "nope", "r", Serializers.utf8()))
                .isInstanceOf(NoSuchStreamException.class).hasMessageContaining("nope");
        assertThatThrownBy(() -> groups.createReaderGroup("missing", ReaderGroupConfig.builder()
                .stream(ScopedStream.of(real.scope, "no-such-stream")).build()))
                .isInstanceOf(NoSuchStreamException.class);

        // a group bounded by a cut in the middle of the data reads exactly up to it, then reports the end
        try (EventStreamWriter<String> writer = real.client.newWriter(real.scope, stream.name(), Serializers.utf8())) {
            events.write(writer, 0, 50);
            writer.flush();
            StreamCut middle = real.streams.streamInfo(real.scope, stream.name()).tail();
            events.write(writer, 50, 100);
            writer.flush();
            Segment first = middle.positions().firstKey();
            assertThatThrownBy(() -> groups.createReaderGroup("bad", ReaderGroupConfig.builder().stream(stream,
                    StreamCut.of(Map.of(first, 0L))).build())).as("a cut of one of three segments")
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not a valid cut");
            try (ReaderGroup bounded = groups.createReaderGroup("bounded", ReaderGroupConfig.builder()
                    .stream(stream, StreamCut.UNBOUNDED, middle).groupRefreshTimeMillis(200)
                    .disableAutomaticCheckpoints().build());
                 EventStreamReader<String> reader = real.client.newReader(real.scope, "bounded", "r",
                         Serializers.utf8())) {
                KeyedEvents.Log log = new KeyedEvents.Log();
                KeyedEvents.drain(reader, log, READ_TIMEOUT);
                events.assertExactlyOnceInOrder(log.events(), 0, 50);
                assertThat(bounded.streamCuts().get(stream)).isEqualTo(middle);
            }
        }
        assertThat(groups.deleteReaderGroup("bounded")).isTrue();
        assertThat(groups.deleteReaderGroup("g")).isTrue();
        assertThat(groups.deleteReaderGroup("g")).as("second delete").isFalse();
        assertThatThrownBy(() -> groups.readerGroup("g")).isInstanceOf(NoSuchStreamException.class);
        assertThat(real.streams.listStreams(real.scope)).as("internal _RG streams are gone or hidden")
                .doesNotContain("_RGg");
    }

    /**
     * After a reset the readers may still report the old end of the data once before they see the reset: read until
     * {@code expected} events arrived and the group says it read everything.
     */
    private static List<Future<Integer>> drainAfterReset(List<EventStreamReader<String>> readers, KeyedEvents.Log log,
                                                         int expected) {
        List<Future<Integer>> out = new ArrayList<>();
        for (EventStreamReader<String> reader : readers) {
            out.add(real.threads.submit(() -> {
                Deadline deadline = Deadline.after(READ_TIMEOUT);
                int n = 0;
                boolean completed = false;
                while (!completed || log.eventCount() < expected) {
                    assertThat(deadline.expired()).as("reader %s read %s events after the reset in time (%s read)",
                            reader.readerId(), expected, log.eventCount()).isFalse();
                    EventRead<String> e = reader.readNextEvent(KeyedEvents.POLL);
                    completed = e.readCompleted();
                    if (e.event() != null) {
                        log.add(new KeyedEvents.Read(reader.readerId(), e.event(), e.pointer(), null));
                        n++;
                    }
                }
                return n;
            }));
        }
        return out;
    }

    private static void assertPerKeyOrder(List<String> read) {
        Map<Integer, Integer> last = new TreeMap<>();
        for (String event : read) {
            int k = KeyedEvents.keyOf(event);
            int n = KeyedEvents.numberOf(event);
            Integer before = last.put(k, n);
            assertThat(before == null || before < n).as("key %s: %s after %s", k, n, before).isTrue();
        }
    }
}
