package io.sluice.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.admin.ReaderGroup;
import io.sluice.common.Await;
import io.sluice.connection.ConnectionPool;
import io.sluice.connection.LoopbackProxy;
import io.sluice.connection.TcpConnectionFactory;
import io.sluice.segment.SegmentLocator;
import io.sluice.segment.SegmentStores;
import io.sluice.server.EmbeddedServer;
import io.sluice.stream.Checkpoint;
import io.sluice.stream.EventRead;
import io.sluice.stream.EventStreamReader;
import io.sluice.stream.EventStreamWriter;
import io.sluice.stream.ReaderGroupConfig;
import io.sluice.stream.ScalingPolicy;
import io.sluice.stream.ScopedStream;
import io.sluice.stream.Serializers;
import io.sluice.stream.StreamConfiguration;
import io.sluice.stream.WriterConfig;
import io.sluice.stream.WriteHandle;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The client's and the server's Micrometer metrics after a workload: counts equal to what was written and read,
 * timers that timed something, in-flight gauges back to 0 after a flush, a reconnect counted.
 */
@Timeout(120)
class MetricsTest {
    private static final int EVENTS = 300;
    private static final int PAYLOAD = 100;
    /** Each event's bytes on the wire: an 8-byte event header, then the payload. */
    private static final int FRAMED = PAYLOAD + 8;

    @TempDir
    Path data;
    private final SimpleMeterRegistry serverMetrics = new SimpleMeterRegistry();
    private final SimpleMeterRegistry clientMetrics = new SimpleMeterRegistry();
    private EmbeddedServer server;
    private SluiceClient client;

    @BeforeEach
    void start() {
        server = EmbeddedServer.builder().dataDir(data).containers(2).meterRegistry(serverMetrics).build();
        client = SluiceClient.connect(ClientConfig.builder(server.controllerUri()).meterRegistry(clientMetrics).build());
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

    private static byte[] payload(int i) {
        byte[] b = new byte[PAYLOAD];
        b[0] = (byte) i;
        return b;
    }

    @Test
    void aWorkloadsAppendsReadsAndCheckpointAreCounted() {
        client.streamManager().createScope("metrics");
        client.streamManager().createStream("metrics", "orders",
                StreamConfiguration.builder().scalingPolicy(ScalingPolicy.fixed(1)).build());
        try (EventStreamWriter<byte[]> writer = client.newWriter("metrics", "orders", Serializers.bytes())) {
            for (int i = 0; i < EVENTS; i++) {
                writer.write("k", payload(i));
            }
            writer.flush();
            assertThat(gauge(clientMetrics, "sluice.client.append.inflight.events")).isZero();
            assertThat(gauge(clientMetrics, "sluice.client.append.inflight.bytes")).isZero();
        }
        DistributionSummary blockEvents = clientMetrics.get("sluice.client.append.block.events")
                .tag("stream", "metrics/orders").summary();
        DistributionSummary blockBytes = clientMetrics.get("sluice.client.append.block.bytes")
                .tag("stream", "metrics/orders").summary();
        Timer latency = clientMetrics.get("sluice.client.append.latency").tag("stream", "metrics/orders").timer();
        assertThat(blockEvents.totalAmount()).as("events in blocks").isEqualTo(EVENTS);
        assertThat(blockBytes.totalAmount()).as("bytes in blocks").isEqualTo((double) EVENTS * FRAMED);
        assertThat(blockEvents.count()).as("blocks").isBetween(1L, (long) EVENTS);
        assertThat(latency.count()).as("one latency per block, every block acknowledged").isEqualTo(blockEvents.count());
        assertThat(latency.totalTime(TimeUnit.NANOSECONDS)).isPositive();

        // the server made the same events and bytes durable
        assertThat(serverMetrics.get("sluice.server.appended.events").counter().count()).isEqualTo(EVENTS);
        assertThat(serverMetrics.get("sluice.server.appended.bytes").counter().count())
                .isEqualTo((double) EVENTS * FRAMED);
        assertThat(serverMetrics.get("sluice.server.appends").counter().count()).isBetween(1.0, (double) EVENTS);
        assertThat(serverMetrics.get("sluice.server.durable.flush").timer().count()).as("group commits").isPositive();
        assertThat(gauge(serverMetrics, "sluice.server.containers")).isEqualTo(2);
        assertThat(gauge(serverMetrics, "sluice.server.segments")).as("the stream's segment at least").isPositive();
        assertThat(gauge(serverMetrics, "sluice.server.connections")).isPositive();

        // read everything back, with a checkpoint on the way
        ReaderGroup group = client.readerGroupManager("metrics").createReaderGroup("billing",
                ReaderGroupConfig.builder().stream("metrics/orders").disableAutomaticCheckpoints().build());
        // nothing read yet: the group's lag is the whole stream (computed off the scrape's thread, then served)
        Await.until("the group's lag is computed", () -> gauge(clientMetrics, "sluice.client.reader.unread.bytes")
                == (double) EVENTS * FRAMED);
        assertThat(clientMetrics.get("sluice.client.reader.unread.bytes").tag("reader_group", "metrics/billing")
                .gauge()).isNotNull();
        int read = 0;
        boolean checkpointSeen = false;
        try (EventStreamReader<byte[]> reader = client.newReader("metrics", "billing", "r1", Serializers.bytes())) {
            while (read < EVENTS) {
                EventRead<byte[]> r = reader.readNextEvent(Duration.ofSeconds(5));
                assertThat(r.hasEvent()).as("event " + read).isTrue();
                read++;
            }
            CompletableFuture<Checkpoint> checkpoint = CompletableFuture.supplyAsync(
                    () -> group.initiateCheckpoint("cp", Duration.ofSeconds(60)), r -> Thread.ofVirtual().start(r));
            while (!checkpoint.isDone()) {
                EventRead<byte[]> r = reader.readNextEvent(Duration.ofMillis(200));
                checkpointSeen |= r.isCheckpoint();
                assertThat(r.hasEvent()).as("no event past the last").isFalse();
            }
            assertThat(checkpoint.join().name()).isEqualTo("cp");
        }
        assertThat(checkpointSeen).isTrue();
        assertThat(((ReaderGroupImpl) group).unreadBytes()).as("everything read, and the checkpoint holds it").isZero();
        group.close();
        assertThat(clientMetrics.find("sluice.client.reader.unread.bytes").gauge()).as("gone with the group").isNull();
        Timer checkpoints = clientMetrics.get("sluice.client.checkpoint.duration").tag("reader_group", "metrics/billing")
                .timer();
        assertThat(checkpoints.count()).isEqualTo(1);
        assertThat(checkpoints.totalTime(TimeUnit.NANOSECONDS)).isPositive();
        assertThat(serverMetrics.get("sluice.server.reads").counter().count()).isPositive();
        assertThat(serverMetrics.get("sluice.server.read.bytes").counter().count())
                .as("at least the stream's bytes (the group's state segment is read too)")
                .isGreaterThanOrEqualTo((double) EVENTS * FRAMED);
    }

    @Test
    void aLostConnectionCountsAReconnectAndNothingStaysInFlight() throws Exception {
        client.streamManager().createScope("metricsproxy");
        client.streamManager().createStream("metricsproxy", "s",
                StreamConfiguration.builder().scalingPolicy(ScalingPolicy.fixed(1)).build());
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (LoopbackProxy proxy = new LoopbackProxy(server.segmentStoreEndpoint());
             ConnectionPool pool = new ConnectionPool(new TcpConnectionFactory());
             EventStreamWriterImpl<byte[]> writer = new EventStreamWriterImpl<>(ScopedStream.of("metricsproxy", "s"),
                     Serializers.bytes(), WriterConfig.DEFAULT, client.controller(), SegmentStores.over(pool,
                             SegmentLocator.fixed(proxy.endpoint()), MicrometerClientMetrics.over(registry)))) {
            // the handles, which flush() promises done (a handle's toCompletableFuture() copy completes a moment
            // later, on a virtual thread of its own)
            List<WriteHandle> written = new ArrayList<>();
            for (int i = 0; i < 50; i++) {
                written.add(writer.write("k", payload(i)));
            }
            writer.flush();
            assertThat(proxy.dropAll()).isPositive();
            Await.until("the writer counted its reconnect", () -> counter(registry, "sluice.client.reconnects") >= 1);
            for (int i = 50; i < 100; i++) {
                written.add(writer.write("k", payload(i)));
            }
            writer.flush();
            assertThat(written).allMatch(WriteHandle::isDone);
            written.forEach(h -> h.await(Duration.ZERO)); // throws if one failed
            assertThat(proxy.connections()).as("the second half came over a new connection").isGreaterThan(1);
            assertThat(gauge(registry, "sluice.client.append.inflight.events")).isZero();
            assertThat(registry.get("sluice.client.append.block.events").summary().totalAmount()).isEqualTo(100);
        }
        assertThat(counter(registry, "sluice.client.reconnects")).isEqualTo(1);
        assertThat(serverMetrics.get("sluice.server.appended.events").counter().count()).isEqualTo(100);
    }

    private static double gauge(MeterRegistry registry, String name) {
        return registry.get(name).gauge().value();
    }

    private static double counter(MeterRegistry registry, String name) {
        return registry.find(name).counters().stream().mapToDouble(c -> c.count()).sum();
    }
}
