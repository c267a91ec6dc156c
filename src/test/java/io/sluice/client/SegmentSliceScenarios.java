package io.sluice.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

import io.sluice.admin.ReaderGroup;
import io.sluice.admin.StreamManager;
import io.sluice.common.Deadline;
import io.sluice.stream.Checkpoint;
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
import io.sluice.stream.SegmentSlice;
import io.sluice.stream.Serializers;
import io.sluice.stream.StreamConfiguration;

/**
 * The scenarios of segment slices ({@code reader.acquireSegment}), run by {@code SegmentSliceTest} against the
 * embedded server and by {@code SegmentSliceCompatTest} against the real Pravega 0.13. Events are "e&lt;i&gt;" with
 * routing key {@code i % 16}, so each key's events must come in increasing {@code i}.
 */
public final class SegmentSliceScenarios {
    private static final Duration POLL = Duration.ofMillis(100);
    private static final int KEYS = 16;

    private final SluiceClient client;
    private final String scope;
    private final StreamManager streams;

    /** @param scope an existing scope the scenarios may fill */
    public SegmentSliceScenarios(SluiceClient client, String scope) {
        this.client = client;
        this.scope = scope;
        this.streams = client.streamManager();
    }

    private ScopedStream stream(String name, int segments) {
        streams.createStream(scope, name, StreamConfiguration.builder().scalingPolicy(ScalingPolicy.fixed(segments))
                .build());
        return ScopedStream.of(scope, name);
    }

    private void write(String name, int from, int to) {
        try (EventStreamWriter<String> writer = client.newWriter(scope, name, Serializers.utf8())) {
            for (int i = from; i < to; i++) {
                writer.write("k" + (i % KEYS), "e" + i);
            }
            writer.flush();
        }
    }

    private ReaderGroup group(String name, ScopedStream stream) {
        return client.readerGroupManager(scope).createReaderGroup(name, ReaderGroupConfig.builder().stream(stream)
                .groupRefreshTimeMillis(100).disableAutomaticCheckpoints().build());
    }

    private static int index(String event) {
        return Integer.parseInt(event.substring(1));
    }

    /** Reads a slice to its end, checking each key's order. @return its events */
    private static List<String> readAll(SegmentSlice<String> slice) {
        List<String> got = new ArrayList<>();
        Map<Integer, Integer> last = new HashMap<>();
        while (slice.hasNext()) {
            EventRead<String> e = slice.next();
            assertThat(e.pointer().segment()).isEqualTo(slice.segment());
            assertThat(e.position().segments()).containsExactly(Map.entry(slice.segment(), slice.offset()));
            int i = index(e.event());
            Integer before = last.put(i % KEYS, i);
            assertThat(before == null || before < i).as("key %s in order in %s: %s after %s", i % KEYS,
                    slice.segment(), i, before).isTrue();
            got.add(e.event());
        }
        return got;
    }

    /**
     * Reads a slice to its end like {@link #readAll}, acknowledging its events in batches of seven, last first, and
     * what is left when the slice ends.
     */
    private static List<String> readAllAcking(EventStreamReader<String> reader, SegmentSlice<String> slice) {
        List<String> got = new ArrayList<>();
        List<EventRead<String>> batch = new ArrayList<>();
        Map<Integer, Integer> last = new HashMap<>();
        while (slice.hasNext()) {
            EventRead<String> e = slice.next();
            int i = index(e.event());
            Integer before = last.put(i % KEYS, i);
            assertThat(before == null || before < i).as("key %s in order", i % KEYS).isTrue();
            got.add(e.event());
            batch.add(e);
            if (batch.size() == 7) {
                ackLastFirst(reader, batch);
            }
        }
        ackLastFirst(reader, batch);
        return got;
    }

    private static void ackLastFirst(EventStreamReader<String> reader, List<EventRead<String>> batch) {
        for (int i = batch.size() - 1; i >= 0; i--) {
            reader.ack(batch.get(i));
        }
        batch.clear();
    }

    private static void assertExactlyOnce(Iterable<String> read, int count) {
        Map<String, Integer> times = new HashMap<>();
        read.forEach(e -> times.merge(e, 1, Integer::sum));
        assertThat(times).hasSize(count);
        assertThat(times.entrySet()).allMatch(e -> e.getValue() == 1, "read once");
    }

    private static void awaitReadCompleted(EventStreamReader<String> reader) {
        Deadline deadline = Deadline.after(Duration.ofSeconds(30));
        while (true) {
            assertThat(deadline.expired()).as("reader %s completed", reader.readerId()).isFalse();
            EventRead<String> e = reader.readNextEvent(POLL);
            assertThat(e.event()).as("nothing left for readNextEvent").isNull();
            if (e.readCompleted()) {
                return;
            }
        }
    }

    /**
     * One reader takes each of four segments out in a slice and reads them in parallel on virtual threads: every
     * event once, each key in order; no fifth slice; the group completes once the slices are released.
     */
    public void slicesAreReadInParallelOnVirtualThreads(ExecutorService threads) throws Exception {
        ScopedStream s = stream("parallel", 4);
        write("parallel", 0, 800);
        streams.sealStream(scope, "parallel");
        try (ReaderGroup g = group("parallel", s);
             EventStreamReader<String> reader = client.newReader(scope, "parallel", "a", Serializers.utf8())) {
            List<SegmentSlice<String>> slices = new ArrayList<>();
            Deadline deadline = Deadline.after(Duration.ofSeconds(30));
            while (slices.size() < 4) {
                assertThat(deadline.expired()).as("four slices in time").isFalse();
                SegmentSlice<String> slice = reader.acquireSegment(POLL);
                if (slice != null) {
                    slices.add(slice);
                }
            }
            assertThat(slices).extracting(SegmentSlice::segment).doesNotHaveDuplicates();
            assertThat(reader.acquireSegment(Duration.ofMillis(200))).as("no fifth segment").isNull();
            List<Future<List<String>>> work = new ArrayList<>();
            for (SegmentSlice<String> slice : slices) {
                work.add(threads.submit(() -> {
                    try (slice) {
                        return readAll(slice);
                    }
                }));
            }
            List<String> all = new ArrayList<>();
            for (Future<List<String>> f : work) {
                List<String> part = f.get(60, TimeUnit.SECONDS);
                assertThat(part).as("every segment has events").isNotEmpty();
                all.addAll(part);
            }
            assertExactlyOnce(all, 800);
            awaitReadCompleted(reader);
            assertThat(g.segmentAssignments().get("a")).isEmpty();
        }
    }

    /**
     * A slice of a segment that is scaled ends at the seal; its successors become acquirable once it is released,
     * and each key's events come in order across them.
     */
    public void aSliceEndsAtTheSealAndTheSuccessorsFollow() {
        ScopedStream s = stream("scaled", 1);
        write("scaled", 0, 100);
        try (ReaderGroup g = group("scaled", s);
             EventStreamReader<String> reader = client.newReader(scope, "scaled", "a", Serializers.utf8())) {
            SegmentSlice<String> first = reader.acquireSegment(Duration.ofSeconds(10));
            assertThat(first).isNotNull();
            Segment sealed = first.segment();
            List<SegmentWithRange> successors = streams.scaleStream(scope, "scaled", List.of(sealed),
                    List.of(new KeyRange(0, 0.5), new KeyRange(0.5, 1)));
            assertThat(successors).hasSize(2);
            write("scaled", 100, 200);
            streams.sealStream(scope, "scaled");
            List<String> before = readAll(first);
            assertThat(before).hasSize(100);
            assertThat(first.hasNext()).as("ended for good").isFalse();
            assertThat(reader.acquireSegment(Duration.ofMillis(200))).as("no successor before the release").isNull();
            first.close();
            List<String> all = new ArrayList<>(before);
            for (int n = 0; n < 2; n++) {
                SegmentSlice<String> next = reader.acquireSegment(Duration.ofSeconds(10));
                assertThat(next).as("successor %s", n).isNotNull();
                assertThat(next.segment()).isNotEqualTo(sealed);
                List<String> part = readAll(next);
                assertThat(part.stream().mapToInt(SegmentSliceScenarios::index).min().orElseThrow())
                        .as("a successor holds only events written after the scale").isGreaterThanOrEqualTo(100);
                all.addAll(part);
                reader.releaseSegment(next);
            }
            assertExactlyOnce(all, 200);
            awaitReadCompleted(reader);
        }
    }

    /**
     * A slice released at an earlier offset: the group reads the segment on from there. Releasing beyond what was
     * handed out, twice, or another reader's slice fails.
     */
    public void aSliceReleasedAtAnOffsetIsReadOnFromThere() {
        ScopedStream s = stream("offset", 1);
        write("offset", 0, 10);
        streams.sealStream(scope, "offset");
        try (ReaderGroup g = group("offset", s);
             EventStreamReader<String> a = client.newReader(scope, "offset", "a", Serializers.utf8());
             EventStreamReader<String> other = client.newReader(scope, "offset", "other", Serializers.utf8())) {
            SegmentSlice<String> slice = a.acquireSegment(Duration.ofSeconds(10));
            assertThat(slice).isNotNull();
            List<EventRead<String>> got = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                assertThat(slice.hasNext()).isTrue();
                got.add(slice.next());
            }
            assertThat(got).extracting(EventRead::event).containsExactly("e0", "e1", "e2", "e3", "e4", "e5");
            assertThat(slice.offset()).isEqualTo(got.get(5).pointer().offset() + got.get(5).pointer().length());
            assertThatThrownBy(() -> a.releaseSegment(slice, slice.offset() + 1))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("skip events");
            assertThatThrownBy(() -> other.releaseSegment(slice)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("not a slice of reader other");
            a.releaseSegment(slice, got.get(3).pointer().offset());
            assertThatThrownBy(() -> a.releaseSegment(slice)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("released already");
            assertThat(slice.hasNext()).as("a released slice ends").isFalse();
            a.close();
            List<String> rest = new ArrayList<>();
            Deadline deadline = Deadline.after(Duration.ofSeconds(30));
            while (true) {
                assertThat(deadline.expired()).as("the rest read in time").isFalse();
                EventRead<String> e = other.readNextEvent(POLL);
                if (e.readCompleted()) {
                    break;
                }
                if (e.event() != null) {
                    rest.add(e.event());
                }
            }
            assertThat(rest).containsExactly("e3", "e4", "e5", "e6", "e7", "e8", "e9");
        }
    }

    /**
     * Two readers of one group read only through slices (and readNextEvent for what is left): the second joins while
     * the first has all four segments out, so two slices end and move to it; a checkpoint passes while slices are
     * out; every event once, each slice in order.
     */
    public void twoReadersShareAGroupThroughSlices(ExecutorService threads) throws Exception {
        twoReadersShareAGroupThroughSlices(threads, ReaderConfig.DEFAULT, "shared");
    }

    /**
     * As {@link #twoReadersShareAGroupThroughSlices(ExecutorService)}, with {@code AckMode.EXPLICIT}: each slice's
     * thread acknowledges its events in batches of seven, last first, so that a slice that ends for rebalancing has
     * unacknowledged events; its segment moves only once they are acknowledged — still every event exactly once.
     */
    public void twoExplicitAckReadersShareAGroupThroughSlices(ExecutorService threads) throws Exception {
        twoReadersShareAGroupThroughSlices(threads, ExplicitAckScenarios.EXPLICIT, "shared-acks");
    }

    private void twoReadersShareAGroupThroughSlices(ExecutorService threads, ReaderConfig config, String name)
            throws Exception {
        ScopedStream s = stream(name, 4);
        write(name, 0, 400);
        try (ReaderGroup g = group(name, s);
             EventStreamReader<String> a = client.newReader(scope, name, "a", Serializers.utf8(), config)) {
            Queue<String> read = new ConcurrentLinkedQueue<>();
            Future<Integer> la = threads.submit(() -> sliceLoop(a, read, threads));
            awaitCondition("a holds all four segments in slices", () -> g.segmentAssignments().get("a") != null
                    && g.segmentAssignments().get("a").size() == 4);
            EventStreamReader<String> b = client.newReader(scope, name, "b", Serializers.utf8(), config);
            Future<Integer> lb = threads.submit(() -> sliceLoop(b, read, threads));
            awaitCondition("two segments each", () -> {
                Map<String, java.util.Set<Segment>> now = g.segmentAssignments();
                return now.get("a") != null && now.get("a").size() == 2 && now.get("b") != null
                        && now.get("b").size() == 2;
            });
            write(name, 400, 800);
            Checkpoint c = g.initiateCheckpoint("c", Duration.ofSeconds(30));
            assertThat(c.positions().get(s).positions()).hasSize(4);
            write(name, 800, 1000);
            streams.sealStream(scope, name);
            int sa = la.get(90, TimeUnit.SECONDS);
            int sb = lb.get(90, TimeUnit.SECONDS);
            assertThat(sa).as("slices of a").isGreaterThanOrEqualTo(4);
            assertThat(sb).as("slices of b").isGreaterThanOrEqualTo(2);
            assertExactlyOnce(read, 1000);
            b.close();
        }
    }

    /**
     * A reader's loop that reads through slices only: takes every segment it can as a slice, reads each on a thread
     * of its own to its end (releasing it), and stops when the group is read completely.
     *
     * @return how many slices it took
     */
    private static int sliceLoop(EventStreamReader<String> reader, Queue<String> sink, ExecutorService threads)
            throws Exception {
        List<Future<?>> running = new ArrayList<>();
        int slices = 0;
        Deadline deadline = Deadline.after(Duration.ofSeconds(80));
        while (true) {
            assertThat(deadline.expired()).as("reader %s done in time", reader.readerId()).isFalse();
            SegmentSlice<String> slice = reader.acquireSegment(POLL);
            if (slice != null) {
                slices++;
                boolean acking = reader.config().ackMode() == ReaderConfig.AckMode.EXPLICIT;
                running.add(threads.submit(() -> {
                    try (slice) {
                        sink.addAll(acking ? readAllAcking(reader, slice) : readAll(slice));
                    }
                    return null;
                }));
                continue;
            }
            for (Future<?> f : running) {
                if (f.isDone()) {
                    f.get();
                }
            }
            running.removeIf(Future::isDone);
            if (running.isEmpty()) {
                EventRead<String> e = reader.readNextEvent(Duration.ZERO);
                if (e.event() != null) {
                    sink.add(e.event());
                    if (reader.config().ackMode() == ReaderConfig.AckMode.EXPLICIT) {
                        reader.ack(e);
                    }
                } else if (e.readCompleted()) {
                    return slices;
                }
            }
        }
    }

    private static void awaitCondition(String what, BooleanSupplier condition) {
        Deadline deadline = Deadline.after(Duration.ofSeconds(30));
        while (!condition.getAsBoolean()) {
            assertThat(deadline.expired()).as("waiting for %s", what).isFalse();
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
        }
    }
}
