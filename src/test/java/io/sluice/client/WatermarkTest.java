package io.sluice.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Predicate;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import io.sluice.admin.ReaderGroup;
import io.sluice.auth.BasicCredentials;
import io.sluice.common.Deadline;
import io.sluice.controller.ControllerClient;
import io.sluice.server.EmbeddedServer;
import io.sluice.server.controller.PasswordFile;
import io.sluice.stream.EventRead;
import io.sluice.stream.EventStreamReader;
import io.sluice.stream.EventStreamWriter;
import io.sluice.stream.KeyRange;
import io.sluice.stream.ReaderGroupConfig;
import io.sluice.stream.ScalingPolicy;
import io.sluice.stream.ScopedStream;
import io.sluice.stream.Segment;
import io.sluice.stream.Serializers;
import io.sluice.stream.StreamConfiguration;
import io.sluice.stream.TimeWindow;
import io.sluice.stream.Transaction;
import io.sluice.stream.TransactionalEventStreamWriter;
import io.sluice.stream.WriterConfig;

/** Watermarks end to end on the embedded server: writers' noted times → _MARK → the reader's time window. */
@Timeout(90)
class WatermarkTest {
    private static final ScopedStream STREAM = ScopedStream.of("wm", "events");
    private static final Duration POLL = Duration.ofMillis(100);

    private EmbeddedServer server;
    private SluiceClient client;

    private void start(Duration watermarkInterval, int segments) {
        start(watermarkInterval, segments, Duration.ZERO);
    }

    private void start(Duration watermarkInterval, int segments, Duration aggregationTimeout) {
        server = EmbeddedServer.builder().inMemory().watermarkInterval(watermarkInterval).build();
        client = SluiceClient.connect(server.controllerUri());
        ControllerClient controller = client.controller();
        controller.createScope(STREAM.scope());
        controller.createStream(STREAM, StreamConfiguration.builder().scalingPolicy(ScalingPolicy.fixed(segments))
                .timestampAggregationTimeout(aggregationTimeout).build());
    }

    @AfterEach
    void stop() {
        if (client != null) {
            client.close();
        }
        if (server != null) {
            server.close();
        }
    }

    private ReaderGroup group(String name) {
        return client.readerGroupManager(STREAM.scope()).createReaderGroup(name, ReaderGroupConfig.builder()
                .stream(STREAM).groupRefreshTimeMillis(100).disableAutomaticCheckpoints().build());
    }

    private static void write(EventStreamWriter<String> w, String prefix, int n) {
        for (int i = 0; i < n; i++) {
            w.write(prefix + i);
        }
        w.flush();
    }

    private static void read(EventStreamReader<String> r, int n) {
        Deadline deadline = Deadline.after(Duration.ofSeconds(30));
        int read = 0;
        while (read < n) {
            assertThat(deadline.expired()).as("read %s of %s events in time", read, n).isFalse();
            EventRead<String> e = r.readNextEvent(POLL);
            if (e.event() != null) {
                read++;
            }
        }
    }

    /** Polls the reader's window (without reading events) until it matches. */
    private static TimeWindow awaitWindow(EventStreamReader<String> r, Predicate<TimeWindow> wanted) {
        Deadline deadline = Deadline.after(Duration.ofSeconds(30));
        TimeWindow w = r.currentTimeWindow();
        while (!wanted.test(w)) {
            assertThat(deadline.expired()).as("time window %s as wanted in time", w).isFalse();
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
            w = r.currentTimeWindow();
        }
        return w;
    }

    @Test
    void theWindowFollowsTheReaderThroughTheWatermarks() {
        start(Duration.ZERO, 1);
        try (EventStreamWriter<String> w = client.newWriter(STREAM.scope(), STREAM.name(), Serializers.utf8())) {
            for (long t = 1000; t <= 3000; t += 1000) {
                write(w, "t" + t + "-", 5);
                w.noteTime(t);
                assertThat(server.controllerService().computeWatermarks()).isEqualTo(1);
            }
        }
        try (ReaderGroup g = group("g1");
             EventStreamReader<String> r = client.newReader(STREAM.scope(), "g1", "r1", Serializers.utf8())) {
            assertThat(r.currentTimeWindow()).isEqualTo(new TimeWindow(null, 1000L));
            assertThat(r.currentTimeWindow().isNearHeadOfStream()).isTrue();
            read(r, 5);
            assertThat(r.currentTimeWindow()).isEqualTo(new TimeWindow(1000L, 2000L));
            read(r, 2);
            assertThat(r.currentTimeWindow(STREAM)).isEqualTo(new TimeWindow(1000L, 2000L));
            read(r, 3);
            assertThat(r.currentTimeWindow()).isEqualTo(new TimeWindow(2000L, 3000L));
            read(r, 5);
            TimeWindow atTail = r.currentTimeWindow();
            assertThat(atTail).isEqualTo(new TimeWindow(3000L, null));
            assertThat(atTail.isNearTailOfStream()).isTrue();
            assertThatThrownBy(() -> r.currentTimeWindow(ScopedStream.of("wm", "other")))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("wm/other");
        }
    }

    @Test
    void acrossAScaleTheSuccessorsComeAfterTheSealedSegmentsMarks() {
        start(Duration.ZERO, 1);
        try (EventStreamWriter<String> w = client.newWriter(STREAM.scope(), STREAM.name(), Serializers.utf8())) {
            write(w, "before-", 10);
            w.noteTime(1000);
            assertThat(server.controllerService().computeWatermarks()).isEqualTo(1);
            client.streamManager().scaleStream(STREAM.scope(), STREAM.name(),
                    List.of(Segment.of(STREAM, 0, 0)), List.of(new KeyRange(0.0, 0.5), new KeyRange(0.5, 1.0)));
            for (int i = 0; i < 10; i++) {
                w.write("key" + i, "after-" + i);
            }
            w.flush();
            w.noteTime(2000);
            assertThat(server.controllerService().computeWatermarks()).isEqualTo(1);
        }
        try (ReaderGroup g = group("g7");
             EventStreamReader<String> r = client.newReader(STREAM.scope(), "g7", "r1", Serializers.utf8())) {
            assertThat(r.currentTimeWindow()).isEqualTo(new TimeWindow(null, 1000L));
            read(r, 10);
            // at the end of the sealed segment: past the first watermark, before the second (its successors')
            assertThat(r.currentTimeWindow()).isEqualTo(new TimeWindow(1000L, 2000L));
            read(r, 10);
            assertThat(r.currentTimeWindow()).isEqualTo(new TimeWindow(2000L, null));
        }
    }

    @Test
    void withAuthenticationTheReaderReadsTheMarkStreamWithItsStreamsRights(@TempDir Path dir) throws Exception {
        Path users = dir.resolve("users");
        Files.writeString(users, PasswordFile.entry("admin", "pw".toCharArray(), "*=READ_UPDATE", 1000) + "\n");
        server = EmbeddedServer.builder().inMemory().passwordFile(users).watermarkInterval(Duration.ZERO).build();
        client = SluiceClient.connect(ClientConfig.builder(server.controllerUri())
                .credentials(new BasicCredentials("admin", "pw")).build());
        client.controller().createScope(STREAM.scope());
        client.controller().createStream(STREAM, StreamConfiguration.builder().build());
        try (EventStreamWriter<String> w = client.newWriter(STREAM.scope(), STREAM.name(), Serializers.utf8())) {
            write(w, "e", 3);
            w.noteTime(500);
            assertThat(server.controllerService().computeWatermarks()).isEqualTo(1);
        }
        try (ReaderGroup g = group("g8");
             EventStreamReader<String> r = client.newReader(STREAM.scope(), "g8", "r1", Serializers.utf8())) {
            assertThat(r.currentTimeWindow()).isEqualTo(new TimeWindow(null, 500L));
            read(r, 3);
            assertThat(r.currentTimeWindow()).isEqualTo(new TimeWindow(500L, null));
        }
    }

    @Test
    void watermarksAndWriterMarksSurviveARestartOfADurableServer(@TempDir Path dir) {
        server = EmbeddedServer.builder().dataDir(dir).watermarkInterval(Duration.ZERO).build();
        client = SluiceClient.connect(server.controllerUri());
        client.controller().createScope(STREAM.scope());
        client.controller().createStream(STREAM, StreamConfiguration.builder()
                .timestampAggregationTimeout(Duration.ofMinutes(1)).build());
        EventStreamWriter<String> w = client.newWriter(STREAM.scope(), STREAM.name(), Serializers.utf8());
        write(w, "e", 4);
        w.noteTime(700);
        assertThat(server.controllerService().computeWatermarks()).isEqualTo(1);
        client.close();
        server.close();

        server = EmbeddedServer.builder().dataDir(dir).watermarkInterval(Duration.ZERO).build();
        client = SluiceClient.connect(server.controllerUri());
        assertThat(server.controllerService().computeWatermarks()).as("the writer is behind the stored watermark")
                .isZero();
        try (ReaderGroup g = group("g9");
             EventStreamReader<String> r = client.newReader(STREAM.scope(), "g9", "r1", Serializers.utf8())) {
            assertThat(r.currentTimeWindow()).isEqualTo(new TimeWindow(null, 700L));
            read(r, 4);
            assertThat(r.currentTimeWindow()).isEqualTo(new TimeWindow(700L, null));
        }
    }

    @Test
    void withoutWatermarksTheWindowIsUnknownButNeverNull() {
        start(Duration.ofMillis(200), 2);
        try (EventStreamWriter<String> w = client.newWriter(STREAM.scope(), STREAM.name(), Serializers.utf8())) {
            write(w, "e", 10);
        }
        try (ReaderGroup g = group("g2");
             EventStreamReader<String> r = client.newReader(STREAM.scope(), "g2", "r1", Serializers.utf8())) {
            read(r, 10);
            assertThat(r.currentTimeWindow()).isEqualTo(TimeWindow.UNKNOWN);
        }
    }

    @Test
    void theTimerWritesWatermarksOfSeveralWritersAndSegments() {
        // with Pravega's default timeout of 0, writer a (behind the first watermark) would be dropped at the next
        // pass and b alone would give a second watermark (7000, 7000); a minute keeps a in, so there is one
        start(Duration.ofMillis(200), 3, Duration.ofMinutes(1));
        try (EventStreamWriter<String> a = client.newWriter(STREAM.scope(), STREAM.name(), Serializers.utf8());
             EventStreamWriter<String> b = client.newWriter(STREAM.scope(), STREAM.name(), Serializers.utf8());
             ReaderGroup g = group("g3");
             EventStreamReader<String> r = client.newReader(STREAM.scope(), "g3", "r1", Serializers.utf8())) {
            write(a, "a", 30);
            write(b, "b", 30);
            a.noteTime(5_000);
            b.noteTime(7_000);
            // ahead of the reader: the upper bound is the greatest time noted
            TimeWindow ahead = awaitWindow(r, t -> t.upperTimeBound() != null);
            assertThat(ahead).isEqualTo(new TimeWindow(null, 7_000L));
            read(r, 60);
            TimeWindow passed = awaitWindow(r, t -> t.lowerTimeBound() != null);
            assertThat(passed).isEqualTo(new TimeWindow(5_000L, null));
        }
    }

    @Test
    void withTheDefaultTimeoutAWriterThatFallsBehindIsDroppedAtOnce() {
        start(Duration.ofMillis(200), 2);
        try (EventStreamWriter<String> a = client.newWriter(STREAM.scope(), STREAM.name(), Serializers.utf8());
             EventStreamWriter<String> b = client.newWriter(STREAM.scope(), STREAM.name(), Serializers.utf8());
             ReaderGroup g = group("g6");
             EventStreamReader<String> r = client.newReader(STREAM.scope(), "g6", "r1", Serializers.utf8())) {
            write(a, "a", 10);
            write(b, "b", 10);
            a.noteTime(5_000);
            b.noteTime(7_000);
            read(r, 20);
            assertThat(awaitWindow(r, t -> Long.valueOf(7_000).equals(t.lowerTimeBound())))
                    .isEqualTo(new TimeWindow(7_000L, null));
        }
    }

    @Test
    void transactionCommitTimesCountAsTheirWritersMarks() {
        start(Duration.ofMillis(200), 2);
        try (TransactionalEventStreamWriter<String> tx = client.newTransactionalWriter(STREAM.scope(), STREAM.name(),
                Serializers.utf8());
             ReaderGroup g = group("g4");
             EventStreamReader<String> r = client.newReader(STREAM.scope(), "g4", "r1", Serializers.utf8())) {
            Transaction<String> t = tx.beginTxn();
            for (int i = 0; i < 10; i++) {
                t.write("k" + i, "e" + i);
            }
            t.commit(42_000);
            read(r, 10);
            assertThat(awaitWindow(r, w -> w.lowerTimeBound() != null)).isEqualTo(new TimeWindow(42_000L, null));
        }
    }

    @Test
    void automaticallyNotedTimeGivesWatermarks() {
        start(Duration.ofMillis(200), 1);
        long before = System.currentTimeMillis();
        try (EventStreamWriter<String> w = client.newWriter(STREAM.scope(), STREAM.name(), Serializers.utf8(),
                WriterConfig.DEFAULT.withAutomaticallyNoteTime(true));
             ReaderGroup g = group("g5");
             EventStreamReader<String> r = client.newReader(STREAM.scope(), "g5", "r1", Serializers.utf8())) {
            assertThat(w.config().automaticallyNoteTime()).isTrue();
            assertThatThrownBy(() -> w.noteTime(1)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("automatically");
            write(w, "e", 5);
            read(r, 5);
            TimeWindow window = awaitWindow(r, t -> t.lowerTimeBound() != null);
            assertThat(window.lowerTimeBound()).isBetween(before, System.currentTimeMillis());
        }
    }
}
