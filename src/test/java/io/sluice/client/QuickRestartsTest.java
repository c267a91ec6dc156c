package io.sluice.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.sluice.common.Threads;
import io.sluice.connection.Outages;
import io.sluice.server.EmbeddedServer;
import io.sluice.stream.EventRead;
import io.sluice.stream.EventStreamReader;
import io.sluice.stream.EventStreamWriter;
import io.sluice.stream.ReaderGroupConfig;
import io.sluice.stream.ScalingPolicy;
import io.sluice.stream.ScopedStream;
import io.sluice.stream.Serializers;
import io.sluice.stream.StreamConfiguration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Issue 12, defect 9, end to end: the whole server (segment store and controller) goes down for a few seconds again
 * and again and comes back on the same ports and data directory; a writer and a reader with the default
 * configuration must each make progress soon after every restart, and nothing is lost or duplicated.
 */
@Timeout(180)
class QuickRestartsTest {
    private static final Logger LOG = LoggerFactory.getLogger(QuickRestartsTest.class);
    private static final ScopedStream STREAM = ScopedStream.of("restarts", "events");
    /**
     * From the server being back to the first progress. Measured 0.09-0.15 s; 7.9-9.2 s before reconnect waits were
     * capped. The reader reads what the writer writes after the restart, so its time includes the writer's.
     */
    private static final Duration BOUND = Duration.ofSeconds(2);
    private static final List<Duration> OUTAGES = List.of(Duration.ofMillis(1500), Duration.ofSeconds(3),
            Duration.ofMillis(1500));

    @TempDir
    Path dir;

    private EmbeddedServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    private EmbeddedServer start(int controllerPort, int segmentStorePort) {
        return EmbeddedServer.builder().dataDir(dir).fsync(false).controllerPort(controllerPort)
                .segmentStorePort(segmentStorePort).build();
    }

    @Test
    void aWriterAndAReaderResumeSoonAfterEachRestart() throws Exception {
        server = start(0, 0);
        int controllerPort = server.controllerEndpoint().port();
        int segmentStorePort = server.segmentStoreEndpoint().port();
        Outages.Progress written = new Outages.Progress();
        Outages.Progress read = new Outages.Progress();
        List<String> seen = new ArrayList<>();
        List<Long> writerResumed = new ArrayList<>();
        List<Long> readerResumed = new ArrayList<>();
        try (SluiceClient client = SluiceClient.connect(server.controllerUri())) {
            client.controller().createScope(STREAM.scope());
            client.controller().createStream(STREAM, StreamConfiguration.builder()
                    .scalingPolicy(ScalingPolicy.fixed(1)).build());
            client.readerGroupManager(STREAM.scope()).createReaderGroup("group",
                    ReaderGroupConfig.builder().stream(STREAM.toString()).build());
            try (EventStreamWriter<String> writer = client.newWriter(STREAM.scope(), STREAM.name(), Serializers.utf8());
                 EventStreamReader<String> reader = client.newReader(STREAM.scope(), "group", "reader",
                         Serializers.utf8())) {
                Thread producer = Threads.startVirtual("restart-test-producer", () -> {
                    try {
                        for (int i = 0; !Thread.currentThread().isInterrupted(); i++) {
                            writer.writeAndWait("key", "e" + i);
                            written.step();
                        }
                    } catch (RuntimeException e) {
                        if (!Thread.currentThread().isInterrupted()) {
                            written.fail(e);
                        }
                    }
                });
                Thread consumer = Threads.startVirtual("restart-test-consumer", () -> {
                    try {
                        while (!Thread.currentThread().isInterrupted()) {
                            EventRead<String> e = reader.readNextEvent(Duration.ofMillis(100));
                            if (e.hasEvent()) {
                                seen.add(e.event());
                                read.step();
                            }
                        }
                    } catch (RuntimeException e) {
                        if (!Thread.currentThread().isInterrupted()) {
                            read.fail(e);
                        }
                    }
                });
                try {
                    assertThat(written.await(() -> written.count() > 10, Duration.ofSeconds(20))).isTrue();
                    assertThat(read.await(() -> read.count() > 10, Duration.ofSeconds(20))).isTrue();
                    for (Duration outage : OUTAGES) {
                        server.close();
                        server = null;
                        // the outage: a failure of either client ends it early (and the test)
                        written.await(() -> written.failure() != null || read.failure() != null, outage);
                        long w = written.count();
                        long r = read.count();
                        server = start(controllerPort, segmentStorePort);
                        long back = System.nanoTime();
                        writerResumed.add(firstProgress(written, w, back));
                        readerResumed.add(firstProgress(read, r, back));
                        assertThat(written.failure()).as("the writer failed").isNull();
                        assertThat(read.failure()).as("the reader failed").isNull();
                    }
                } finally {
                    producer.interrupt();
                    consumer.interrupt();
                    producer.join();
                    consumer.join();
                }
            }
        }
        LOG.info("after each restart, first progress of the writer {} ms, of the reader {} ms", writerResumed,
                readerResumed);
        assertThat(writerResumed).as("writer: ms from the restart to its first acknowledged event")
                .allSatisfy(ms -> assertThat(ms).isLessThanOrEqualTo(BOUND.toMillis()));
        assertThat(readerResumed).as("reader: ms from the restart to its first event read")
                .allSatisfy(ms -> assertThat(ms).isLessThanOrEqualTo(BOUND.toMillis()));
        // exactly once and in order: one writer, one key, one segment
        for (int i = 0; i < seen.size(); i++) {
            assertThat(seen.get(i)).isEqualTo("e" + i);
        }
    }

    /** @return ms from {@code back} until {@code progress} passed {@code from} (or the wait ended) */
    private static long firstProgress(Outages.Progress progress, long from, long back) throws InterruptedException {
        progress.await(() -> progress.count() > from || progress.failure() != null, BOUND.multipliedBy(15));
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - back);
    }
}
