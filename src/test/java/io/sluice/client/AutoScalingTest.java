package io.sluice.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.sluice.admin.ReaderGroup;
import io.sluice.common.Deadline;
import io.sluice.controller.ControllerClient;
import io.sluice.server.EmbeddedServer;
import io.sluice.stream.EventRead;
import io.sluice.stream.EventStreamReader;
import io.sluice.stream.EventStreamWriter;
import io.sluice.stream.ReaderGroupConfig;
import io.sluice.stream.ScalingPolicy;
import io.sluice.stream.ScopedStream;
import io.sluice.stream.SegmentWithRange;
import io.sluice.stream.Serializers;
import io.sluice.stream.StreamConfiguration;

/**
 * Auto-scaling end to end on the embedded server with a short scale window: a stream over its event-rate target is
 * split into scale-factor segments, idle it merges back, and a writer and a reader group carry on throughout with
 * nothing lost, nothing duplicated and each key's events in order.
 */
@Timeout(120)
class AutoScalingTest {
    private static final ScopedStream STREAM = ScopedStream.of("auto", "scaled");
    private static final Duration WINDOW = Duration.ofSeconds(2);
    private static final int KEYS = 16;

    private EmbeddedServer server;
    private SluiceClient client;
    private ControllerClient controller;
    private ExecutorService threads;

    @BeforeEach
    void start() {
        server = EmbeddedServer.builder().inMemory().scaleWindow(WINDOW).build();
        client = SluiceClient.connect(server.controllerUri());
        controller = client.controller();
        controller.createScope(STREAM.scope());
        threads = Executors.newVirtualThreadPerTaskExecutor();
    }

    @AfterEach
    void stop() {
        threads.shutdownNow();
        client.close();
        server.close();
    }

    private List<SegmentWithRange> segments() {
        return controller.currentSegments(STREAM).ranges();
    }

    private static void awaitCondition(String what, Duration timeout, BooleanSupplier condition) {
        Deadline deadline = Deadline.after(timeout);
        while (!condition.getAsBoolean()) {
            assertThat(deadline.expired()).as("waiting for %s", what).isFalse();
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
        }
    }

    private static int drain(EventStreamReader<String> reader, Queue<String> sink) {
        Deadline deadline = Deadline.after(Duration.ofSeconds(90));
        int n = 0;
        while (true) {
            assertThat(deadline.expired()).as("reader %s read everything in time", reader.readerId()).isFalse();
            EventRead<String> e = reader.readNextEvent(Duration.ofMillis(100));
            if (e.readCompleted()) {
                return n;
            }
            if (e.event() != null) {
                sink.add(e.event());
                n++;
            }
        }
    }

    /** Writes rounds of one event per key ("k<key>:<round>") until {@code stop}, about 100 rounds a second. */
    private static void writeUntil(EventStreamWriter<String> writer, AtomicInteger round, AtomicBoolean stop) {
        while (!stop.get()) {
            int i = round.getAndIncrement();
            for (int k = 0; k < KEYS; k++) {
                writer.write("k" + k, "k" + k + ":" + i);
            }
            // pacing, not synchronisation: ~1600 events/s, far over the target of 20
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
        }
    }

    @Test
    void aStreamOverItsTargetSplitsAndMergesBackWhileWritersAndReadersCarryOn() throws Exception {
        controller.createStream(STREAM, StreamConfiguration.builder()
                .scalingPolicy(ScalingPolicy.byEventRate(20, 2, 1)).build());
        assertThat(segments()).hasSize(1);
        Queue<String> read = new ConcurrentLinkedQueue<>();
        AtomicInteger round = new AtomicInteger();
        try (ReaderGroup group = client.readerGroupManager(STREAM.scope()).createReaderGroup("g",
                ReaderGroupConfig.builder().stream(STREAM).groupRefreshTimeMillis(100).disableAutomaticCheckpoints()
                        .build());
             EventStreamReader<String> a = client.newReader(STREAM.scope(), "g", "a", Serializers.utf8());
             EventStreamReader<String> b = client.newReader(STREAM.scope(), "g", "b", Serializers.utf8());
             EventStreamWriter<String> writer = client.newWriter(STREAM.scope(), STREAM.name(), Serializers.utf8())) {
            Future<Integer> ra = threads.submit(() -> drain(a, read));
            Future<Integer> rb = threads.submit(() -> drain(b, read));

            // over the target: after the cool-down (one window) the segment is split in two (the scale factor)
            AtomicBoolean split = new AtomicBoolean();
            Future<?> hot = threads.submit(() -> {
                writeUntil(writer, round, split);
                return null;
            });
            awaitCondition("the split", Duration.ofSeconds(30), () -> segments().size() == 2);
            int roundsAtSplit = round.get();
            // a few more rounds go to the new segments
            awaitCondition("writes after the split", Duration.ofSeconds(30), () -> round.get() >= roundsAtSplit + 20);
            split.set(true);
            hot.get(30, TimeUnit.SECONDS);
            writer.flush();
            List<SegmentWithRange> two = segments();
            assertThat(two).hasSize(2);
            assertThat(two.get(0).low()).isEqualTo(0.0);
            assertThat(two.get(0).high()).isEqualTo(0.5);
            assertThat(two.get(1).high()).isEqualTo(1.0);

            // idle: after twice the window both halves report cold and merge back into one
            awaitCondition("the merge", Duration.ofSeconds(30), () -> segments().size() == 1);
            SegmentWithRange one = segments().get(0);
            assertThat(one.low()).isEqualTo(0.0);
            assertThat(one.high()).isEqualTo(1.0);
            assertThat(one.segment().segmentId()).isNotEqualTo(two.get(0).segment().segmentId());

            // the same writer carries on into the merged segment
            for (int n = 0; n < 20; n++) {
                int i = round.getAndIncrement();
                for (int k = 0; k < KEYS; k++) {
                    writer.write("k" + k, "k" + k + ":" + i);
                }
            }
            writer.flush();
            controller.sealStream(STREAM);
            ra.get(90, TimeUnit.SECONDS);
            rb.get(90, TimeUnit.SECONDS);
            assertThat(segments()).isEmpty();
        }
        assertExactlyOnceInOrder(read, round.get());
    }

    private static void assertExactlyOnceInOrder(Queue<String> read, int rounds) {
        Map<String, Integer> last = new HashMap<>();
        List<String> outOfOrder = new ArrayList<>();
        for (String event : read) {
            String key = event.substring(0, event.indexOf(':'));
            int n = Integer.parseInt(event.substring(event.indexOf(':') + 1));
            if (n != last.getOrDefault(key, -1) + 1) {
                outOfOrder.add(event + " after " + last.get(key));
            }
            last.put(key, n);
        }
        assertThat(outOfOrder).as("events missing, repeated or out of order").isEmpty();
        assertThat(read).hasSize(rounds * KEYS);
        assertThat(last).hasSize(KEYS).allSatisfy((k, n) -> assertThat(n).isEqualTo(rounds - 1));
    }
}
