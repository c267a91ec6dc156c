package io.sluice.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.sluice.admin.ReaderGroup;
import io.sluice.server.EmbeddedServer;
import io.sluice.stream.EventRead;
import io.sluice.stream.EventStreamReader;
import io.sluice.stream.EventStreamWriter;
import io.sluice.stream.ReaderConfig;
import io.sluice.stream.ReaderGroupConfig;
import io.sluice.stream.ScalingPolicy;
import io.sluice.stream.ScopedStream;
import io.sluice.stream.Serializers;
import io.sluice.stream.StreamConfiguration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A reader over 1000 idle segments: what it costs in memory per segment (the budget: under 64 KiB each), and
 * that a write to one of them still reaches the reader at once.
 */
@Timeout(180)
class IdleSegmentsTest {
    private static final Logger LOG = LoggerFactory.getLogger(IdleSegmentsTest.class);
    private static final ScopedStream STREAM = ScopedStream.of("idle", "many");
    private static final int SEGMENTS = 1000;

    private static long usedHeapAfterGc() {
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        long used = Long.MAX_VALUE;
        for (int i = 0; i < 5; i++) {
            memory.gc();
            used = Math.min(used, memory.getHeapMemoryUsage().getUsed());
        }
        return used;
    }

    @Test
    void aReaderOverAThousandIdleSegmentsCostsLittleMemoryPerSegmentAndStaysPrompt() {
        try (EmbeddedServer server = EmbeddedServer.builder().inMemory().build();
             SluiceClient client = SluiceClient.connect(server.controllerUri())) {
            client.controller().createScope(STREAM.scope());
            client.controller().createStream(STREAM, StreamConfiguration.builder()
                    .scalingPolicy(ScalingPolicy.fixed(SEGMENTS)).build());
            try (ReaderGroup group = client.readerGroupManager(STREAM.scope()).createReaderGroup("g",
                    ReaderGroupConfig.builder().stream(STREAM).groupRefreshTimeMillis(10_000)
                            .disableAutomaticCheckpoints().build());
                 EventStreamWriter<String> writer = client.newWriter(STREAM.scope(), STREAM.name(), Serializers.utf8())) {
                writer.writeAndWait("warm-up", "warm-up");   // connections and controller calls warmed up
                long before = usedHeapAfterGc();
                long start = System.nanoTime();
                try (EventStreamReader<String> reader = client.newReader(STREAM.scope(), "g", "r", Serializers.utf8(),
                        ReaderConfig.DEFAULT.withOfflineTimeout(Duration.ofMinutes(1)))) {
                    long joinedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                    assertThat(reader.readNextEvent(Duration.ofSeconds(10)).event()).isEqualTo("warm-up");
                    long firstEventMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                    assertThat(group.segmentAssignments().get("r")).hasSize(SEGMENTS);
                    // every segment reader has sent its read by the time one poll of all of them timed out
                    EventRead<String> none = reader.readNextEvent(Duration.ofMillis(500));
                    assertThat(none.event()).isNull();
                    long after = usedHeapAfterGc();
                    long perSegment = (after - before) / SEGMENTS;

                    long t0 = System.nanoTime();
                    writer.writeAndWait("hot", "hot");
                    // one read with a timeout of half the group refresh interval (10 s): it comes back empty if the
                    // idle segments held the busy one up until a refresh
                    EventRead<String> hot = reader.readNextEvent(Duration.ofSeconds(5));
                    long delayMicros = TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - t0);
                    assertThat(hot.event()).isEqualTo("hot");
                    LOG.info("reader over {} idle segments: joined and took them in {} ms, first event after {} ms; "
                            + "{} bytes of heap per idle segment (reader, prefetcher thread, flow, parked server read);"
                            + " write-to-read delay {} us", SEGMENTS, joinedMillis, firstEventMillis, perSegment,
                            delayMicros);
                    assertThat(perSegment).isLessThan(64 * 1024);
                }
            }
        }
    }
}
