package io.sluice.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import io.sluice.common.Deadline;
import io.sluice.connection.ConnectionPool;
import io.sluice.connection.LoopbackProxy;
import io.sluice.connection.TcpConnectionFactory;
import io.sluice.errors.BackpressureTimeoutException;
import io.sluice.segment.SegmentLocator;
import io.sluice.segment.SegmentStores;
import io.sluice.server.EmbeddedServer;
import io.sluice.stream.EventStreamReader;
import io.sluice.stream.EventRead;
import io.sluice.stream.ReaderGroupConfig;
import io.sluice.stream.ScalingPolicy;
import io.sluice.stream.ScopedStream;
import io.sluice.stream.Serializers;
import io.sluice.stream.StreamConfiguration;
import io.sluice.stream.WriteHandle;
import io.sluice.stream.WriterConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Backpressure: while the server's acknowledgements are held back (by a proxy between writer and segment store), a
 * writer accepts events up to its outstanding-bytes bound and no further, then fails the next write with a clear
 * error after its backpressure timeout; once acknowledgements flow again, nothing accepted was lost or duplicated.
 */
@Timeout(120)
class WriterBackpressureTest {
    private static final ScopedStream STREAM = ScopedStream.of("bp", "events");
    private static final int EVENT = 64 * 1024;
    private static final long BOUND = WriterConfig.MIN_OUTSTANDING_BYTES;

    private EmbeddedServer server;
    private SluiceClient client;
    private LoopbackProxy proxy;
    private ConnectionPool pool;

    @BeforeEach
    void start() throws IOException {
        server = EmbeddedServer.builder().inMemory().build();
        client = SluiceClient.connect(server.controllerUri());
        client.controller().createScope(STREAM.scope());
        client.controller().createStream(STREAM, StreamConfiguration.builder().scalingPolicy(ScalingPolicy.fixed(1)).build());
        proxy = new LoopbackProxy(server.segmentStoreEndpoint());
        pool = new ConnectionPool(new TcpConnectionFactory());
    }

    @AfterEach
    void stop() throws IOException {
        pool.close();
        proxy.close();
        client.close();
        server.close();
    }

    private static byte[] event(int n) {
        byte[] e = new byte[EVENT];
        ByteBuffer.wrap(e).putInt(n).putInt(EVENT - n);
        return e;
    }

    @Test
    void outstandingBytesStayWithinTheBoundAndNothingAcceptedIsLost() throws Exception {
        WriterConfig config = WriterConfig.DEFAULT.withMaxOutstandingBytes(BOUND)
                .withBackpressureTimeout(Duration.ofMillis(300));
        int framed = EVENT + 8 + WriterConfig.EVENT_OVERHEAD_BYTES; // what each event holds of the bound
        List<WriteHandle> accepted = new ArrayList<>();
        try (EventStreamWriterImpl<byte[]> writer = new EventStreamWriterImpl<>(STREAM, Serializers.bytes(), config,
                client.controller(), SegmentStores.over(pool, SegmentLocator.fixed(proxy.endpoint())))) {
            writer.writeAndWait("k", event(0)); // the session is set up while replies still flow
            accepted.add(null);
            proxy.holdReplies();
            BackpressureTimeoutException full = null;
            while (full == null) {
                try {
                    accepted.add(writer.write("k", event(accepted.size())));
                } catch (BackpressureTimeoutException e) {
                    full = e;
                }
                assertThat((long) accepted.size() * framed).as("bytes accepted without acknowledgement")
                        .isLessThanOrEqualTo(BOUND + framed);
            }
            int held = accepted.size() - 1;
            assertThat((long) held * framed).isLessThanOrEqualTo(BOUND).isGreaterThan(BOUND - framed);
            assertThat(full).hasMessageContaining("bytes of unacknowledged events").hasMessageContaining("300 ms");
            assertThat(accepted.subList(1, accepted.size())).noneMatch(WriteHandle::isDone);

            proxy.release();
            writer.flush();
            assertThat(accepted.subList(1, accepted.size())).allMatch(WriteHandle::isDone);
            accepted.subList(1, accepted.size()).forEach(WriteHandle::await); // throws if one failed
            writer.writeAndWait("k", event(accepted.size()));
            accepted.add(null);
        }

        // every accepted event is in the stream exactly once, in order
        client.readerGroupManager(STREAM.scope()).createReaderGroup("check",
                ReaderGroupConfig.builder().stream(STREAM).build());
        try (EventStreamReader<byte[]> reader = client.newReader(STREAM.scope(), "check", "r", Serializers.bytes())) {
            Deadline deadline = Deadline.after(Duration.ofSeconds(60));
            for (int n = 0; n < accepted.size(); n++) {
                EventRead<byte[]> read = reader.readNextEvent(Duration.ofSeconds(10));
                assertThat(deadline.expired()).isFalse();
                if (read.event() == null) {
                    n--;
                    continue;
                }
                assertThat(ByteBuffer.wrap(read.event()).getInt()).isEqualTo(n);
            }
            assertThat(reader.readNextEvent(Duration.ofMillis(200)).event()).isNull();
        }
    }

    @Test
    void aBlockedWriteGoesOnWhenAcknowledgementsComeBack() throws Exception {
        WriterConfig config = WriterConfig.DEFAULT.withMaxOutstandingBytes(BOUND)
                .withBackpressureTimeout(Duration.ofSeconds(60));
        int framed = EVENT + 8 + WriterConfig.EVENT_OVERHEAD_BYTES; // what each event holds of the bound
        try (EventStreamWriterImpl<byte[]> writer = new EventStreamWriterImpl<>(STREAM, Serializers.bytes(), config,
                client.controller(), SegmentStores.over(pool, SegmentLocator.fixed(proxy.endpoint())))) {
            writer.writeAndWait("k", event(0));
            proxy.holdReplies();
            int fits = (int) (BOUND / framed);
            for (int n = 1; n <= fits; n++) {
                writer.write("k", event(n));
            }
            AtomicReference<WriteHandle> next = new AtomicReference<>();
            Thread blocked = Thread.ofVirtual().start(() -> next.set(writer.write("k", event(fits + 1))));
            Deadline deadline = Deadline.after(Duration.ofSeconds(30));
            while (blocked.getState() != Thread.State.TIMED_WAITING) {
                assertThat(deadline.expired()).as("the write over the bound blocks").isFalse();
                assertThat(blocked.isAlive()).as("the write over the bound blocks").isTrue();
                Thread.onSpinWait();
            }
            assertThat(next.get()).isNull();
            proxy.release();
            assertThat(blocked.join(Duration.ofSeconds(30))).isTrue();
            next.get().await();
            writer.flush();
        }
    }
}
