package io.sluice.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.sluice.admin.ReaderGroup;
import io.sluice.common.Await;
import io.sluice.controller.ControllerClient;
import io.sluice.errors.SegmentTruncatedException;
import io.sluice.server.EmbeddedServer;
import io.sluice.stream.Checkpoint;
import io.sluice.stream.EventRead;
import io.sluice.stream.EventStreamReader;
import io.sluice.stream.EventStreamWriter;
import io.sluice.stream.ReaderConfig;
import io.sluice.stream.ReaderGroupConfig;
import io.sluice.stream.ReaderGroupConfig.StreamDataRetention;
import io.sluice.stream.RetentionPolicy;
import io.sluice.stream.ScalingPolicy;
import io.sluice.stream.ScopedStream;
import io.sluice.stream.Serializers;
import io.sluice.stream.StreamConfiguration;
import io.sluice.stream.StreamCut;

/**
 * Retention end to end on the embedded server, the timer off and passes run by hand
 * ({@code EmbeddedControllerService.enforceRetention}): time and size policies, consumption-based retention with
 * manual and automatic release, min/max limits.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RetentionTest {
    private static final ScopedStream STREAM = ScopedStream.of("ret", "events");
    /** Every event is "eNNN" + 92 pad characters: 96 bytes, 104 framed. */
    private static final String PAD = "p".repeat(92);
    private static final long FRAMED = 8 + 96;

    private EmbeddedServer server;
    private SluiceClient client;
    private ControllerClient controller;
    private int written;

    @BeforeEach
    void start() {
        server = EmbeddedServer.builder().inMemory().retentionInterval(Duration.ZERO).build();
        client = SluiceClient.connect(server.controllerUri());
        controller = client.controller();
        controller.createScope(STREAM.scope());
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

    private void createStream(RetentionPolicy policy) {
        controller.createStream(STREAM, StreamConfiguration.builder().scalingPolicy(ScalingPolicy.fixed(1))
                .retentionPolicy(policy).build());
    }

    private void write(int n) {
        try (EventStreamWriter<String> w = client.newWriter(STREAM.scope(), STREAM.name(), Serializers.utf8())) {
            for (int i = 0; i < n; i++) {
                w.write("k", String.format("e%03d", written++) + PAD);
            }
            w.flush();
        }
    }

    private int enforce() {
        return server.controllerService().enforceRetention();
    }

    /** @return the head offset of the stream's one segment */
    private long head() {
        StreamCut head = client.streamManager().streamInfo(STREAM.scope(), STREAM.name()).head();
        assertThat(head.positions()).hasSize(1);
        return head.positions().values().iterator().next();
    }

    /** @return a cut after {@code events} events */
    private static StreamCut after(int events) {
        return StreamCut.of(STREAM, Map.of(0L, events * FRAMED));
    }

    private ReaderGroup group(String name, StreamDataRetention retention) {
        return client.readerGroupManager(STREAM.scope()).createReaderGroup(name, ReaderGroupConfig.builder()
                .stream(STREAM).groupRefreshTimeMillis(100).disableAutomaticCheckpoints().retentionType(retention)
                .build());
    }

    private String firstEvent(String group) {
        try (ReaderGroup g = group(group, StreamDataRetention.NONE);
             EventStreamReader<String> r = client.newReader(STREAM.scope(), group, "r", Serializers.utf8())) {
            EventRead<String> e = r.readNextEvent(Duration.ofSeconds(10));
            assertThat(e.event()).isNotNull();
            return e.event().substring(0, 4);
        }
    }

    @Test
    void timeRetentionTruncatesOnceTheRecordIsOlderThanTheLimitAndTheHeadMoves() {
        createStream(RetentionPolicy.byTime(Duration.ofMillis(300)));
        write(10);
        assertThat(enforce()).as("the first pass only takes a reference record").isZero();
        assertThat(head()).isZero();
        Await.until("a pass truncates at the record once it is 300 ms old", () -> enforce() == 1);
        assertThat(head()).as("the record is the tail after ten events").isEqualTo(10 * FRAMED);
        write(5);
        assertThat(firstEvent("after")).isEqualTo("e010");
    }

    @Test
    void sizeRetentionKeepsAtLeastTheLimitAtARecordedTail() {
        createStream(RetentionPolicy.bySizeBytes(5 * FRAMED));
        write(10);
        assertThat(enforce()).isZero();
        write(3);
        assertThat(enforce()).as("3 events written since the record: less than the limit").isZero();
        write(3);
        assertThat(enforce()).as("6 events since the first record").isEqualTo(1);
        assertThat(head()).isEqualTo(10 * FRAMED);
        write(10);
        assertThat(enforce()).isEqualTo(1);
        assertThat(head()).as("the newest record with at least 5 events after it: after 16").isEqualTo(16 * FRAMED);
        assertThat(enforce()).as("nothing more to truncate").isZero();
    }

    @Test
    void aReaderBehindTheHeadGetsTheTruncationSignalAndContinuesAtTheHead() {
        createStream(RetentionPolicy.bySizeBytes(FRAMED));
        write(100);
        assertThat(enforce()).isZero();
        try (ReaderGroup g = group("slow", StreamDataRetention.NONE);
             EventStreamReader<String> r = client.newReader(STREAM.scope(), "slow", "r", Serializers.utf8(),
                     ReaderConfig.DEFAULT.withBufferBytes(1024))) {
            assertThat(r.readNextEvent(Duration.ofSeconds(10)).event()).startsWith("e000");
            write(2);
            assertThat(enforce()).isEqualTo(1);
            assertThat(head()).isEqualTo(100 * FRAMED);
            SegmentTruncatedException truncated = null;
            int buffered = 0;
            while (truncated == null) {
                try {
                    assertThat(r.readNextEvent(Duration.ofSeconds(10)).event()).isNotNull();
                    buffered++;
                } catch (SegmentTruncatedException t) {
                    truncated = t;
                }
            }
            assertThat(buffered).as("only buffered events before the signal").isLessThan(99);
            assertThat(truncated).hasMessageContaining("truncated")
                    .hasMessageContaining("continues at offset " + 100 * FRAMED);
            assertThat(r.readNextEvent(Duration.ofSeconds(10)).event()).startsWith("e100");
        }
    }

    @Test
    void consumptionBasedRetentionTruncatesOnlyWhatEveryGroupReleased() {
        createStream(RetentionPolicy.bySizeBytes(0));
        try (ReaderGroup a = group("a", StreamDataRetention.MANUAL_RELEASE_AT_USER_STREAMCUT);
             ReaderGroup b = group("b", StreamDataRetention.MANUAL_RELEASE_AT_USER_STREAMCUT);
             ReaderGroup none = group("none", StreamDataRetention.NONE)) {
            assertThat(controller.listSubscribers(STREAM)).containsExactlyInAnyOrder("ret/a", "ret/b");
            write(10);
            assertThat(enforce()).as("no group has released anything").isZero();
            a.updateRetentionStreamCut(Map.of(STREAM, after(5)));
            assertThat(enforce()).as("b has not released anything").isZero();
            assertThat(head()).isZero();
            b.updateRetentionStreamCut(Map.of(STREAM, after(3)));
            assertThat(enforce()).isEqualTo(1);
            assertThat(head()).as("the lower bound of the groups' cuts").isEqualTo(3 * FRAMED);
            b.updateRetentionStreamCut(Map.of(STREAM, after(8)));
            assertThat(enforce()).isEqualTo(1);
            assertThat(head()).isEqualTo(5 * FRAMED);
            assertThat(firstEvent("check")).isEqualTo("e005");
            assertThatThrownBy(() -> b.updateRetentionStreamCut(Map.of(STREAM, after(6))))
                    .as("a cut must not move backwards").isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> none.updateRetentionStreamCut(Map.of(STREAM, after(6))))
                    .isInstanceOf(UnsupportedOperationException.class)
                    .hasMessageContaining("MANUAL_RELEASE_AT_USER_STREAMCUT");
            assertThatThrownBy(() -> a.updateRetentionStreamCut(Map.of(ScopedStream.of("ret", "other"), after(6))))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("does not read");
        }
    }

    @Test
    void minAndMaxLimitsBoundConsumptionBasedRetention() {
        createStream(RetentionPolicy.bySizeBytes(4 * FRAMED, 8 * FRAMED));
        try (ReaderGroup g = group("g", StreamDataRetention.MANUAL_RELEASE_AT_USER_STREAMCUT)) {
            for (int batch = 1; batch <= 6; batch++) {
                write(2);
                enforce();
            }
            assertThat(head()).as("a group that released nothing keeps at most the max: 8 of 12 events")
                    .isEqualTo(4 * FRAMED);
            g.updateRetentionStreamCut(Map.of(STREAM, after(12)));
            assertThat(enforce()).isEqualTo(1);
            assertThat(head()).as("everything released, but the min keeps 4 events").isEqualTo(8 * FRAMED);
            assertThat(enforce()).isZero();
        }
    }

    @Test
    void automaticReleaseReportsEachCompletedCheckpoint() throws Exception {
        createStream(RetentionPolicy.bySizeBytes(0));
        write(4);
        try (ReaderGroup g = group("auto", StreamDataRetention.AUTOMATIC_RELEASE_AT_LAST_CHECKPOINT);
             EventStreamReader<String> r = client.newReader(STREAM.scope(), "auto", "r", Serializers.utf8())) {
            for (int i = 0; i < 4; i++) {
                assertThat(r.readNextEvent(Duration.ofSeconds(10)).event()).startsWith(String.format("e%03d", i));
            }
            assertThat(enforce()).as("no checkpoint yet").isZero();
            assertThatThrownBy(() -> g.updateRetentionStreamCut(Map.of(STREAM, after(2))))
                    .isInstanceOf(UnsupportedOperationException.class);
            CompletableFuture<Checkpoint> cp = CompletableFuture.supplyAsync(
                    () -> g.initiateCheckpoint("cp1", Duration.ofSeconds(20)));
            EventRead<String> e;
            do {
                e = r.readNextEvent(Duration.ofMillis(200));
                assertThat(e.event()).as("everything written was read").isNull();
            } while (!e.isCheckpoint());
            assertThat(e.checkpointName()).isEqualTo("cp1");
            write(6);
            assertThat(r.readNextEvent(Duration.ofSeconds(10)).event()).as("reading on passes the checkpoint")
                    .startsWith("e004");
            assertThat(cp.get(20, TimeUnit.SECONDS).positions().get(STREAM)).isEqualTo(after(4));
            assertThat(enforce()).isEqualTo(1);
            assertThat(head()).as("truncated at the checkpoint").isEqualTo(4 * FRAMED);
        }
    }
}
