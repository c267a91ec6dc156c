package io.sluice.compat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.sluice.admin.StreamInfo;
import io.sluice.admin.StreamManager;
import io.sluice.client.ClientInternals;
import io.sluice.client.SluiceClient;
import io.sluice.common.KeyHash;
import io.sluice.errors.NoSuchScopeException;
import io.sluice.errors.NoSuchStreamException;
import io.sluice.errors.PreconditionFailedException;
import io.sluice.errors.SluiceException;
import io.sluice.stream.EventStreamWriter;
import io.sluice.stream.KeyRange;
import io.sluice.stream.ReaderGroupConfig;
import io.sluice.stream.RetentionPolicy;
import io.sluice.stream.ScalingPolicy;
import io.sluice.stream.ScopedStream;
import io.sluice.stream.Segment;
import io.sluice.stream.SegmentWithRange;
import io.sluice.stream.Serializers;
import io.sluice.stream.StreamConfiguration;
import io.sluice.stream.StreamCut;

/**
 * Sluice's {@link StreamManager} (what applications use, on top of the controller client that
 * {@link ControllerClientCompatTest} covers) against the REAL Pravega 0.13: scopes and streams through their whole
 * life, the internal streams the real controller adds left out of listings, configuration and tag updates, the
 * stream info's head and tail cuts measured on the real segment store after a Sluice writer wrote to it, a manual
 * scale that returns only once the real controller finished it, truncation to the tail, sealing, deletion, and the
 * recursive delete of a scope holding a stream and a reader group.
 */
@CompatTest
@Timeout(300)
class StreamManagerCompatTest {
    /** Each event is framed with an 8-byte header in the segment. */
    private static final int FRAME_HEADER = 8;

    private static SluiceClient client;
    private static StreamManager streams;

    @BeforeAll
    static void connect() {
        client = SluiceClient.connect(RealPravega.controllerUri().toString());
        streams = client.streamManager();
    }

    @AfterAll
    static void disconnect() {
        if (client != null) {
            client.close();
        }
    }

    @Test
    void scopesAndStreamsThroughTheirWholeLife() {
        String scope = RealPravega.uniqueName("compat-sm");
        assertThat(streams.scopeExists(scope)).isFalse();
        assertThat(streams.createScope(scope)).isTrue();
        assertThat(streams.createScope(scope)).as("second create").isFalse();
        assertThat(streams.scopeExists(scope)).isTrue();
        assertThat(streams.listScopes()).contains(scope);

        StreamConfiguration config = StreamConfiguration.builder().scalingPolicy(ScalingPolicy.fixed(3))
                .retentionPolicy(RetentionPolicy.byTime(Duration.ofHours(2))).tag("orders").tag("eu").build();
        assertThatThrownBy(() -> streams.createStream(RealPravega.uniqueName("compat-none"), "s", config))
                .isInstanceOf(NoSuchScopeException.class);
        assertThat(streams.streamExists(scope, "orders")).isFalse();
        assertThat(streams.createStream(scope, "orders", config)).isTrue();
        assertThat(streams.createStream(scope, "orders", config.toBuilder().tags(List.of()).build()))
                .as("second create, other configuration").isFalse();
        assertThat(streams.streamConfiguration(scope, "orders")).as("unchanged by the second create")
                .isEqualTo(config);
        assertThat(streams.createStream(scope, "audit", StreamConfiguration.builder().tag("eu").build())).isTrue();
        assertThat(streams.streamExists(scope, "orders")).isTrue();
        assertThat(streams.listStreams(scope)).as("without the _MARK streams the real controller lists")
                .containsExactlyInAnyOrder("orders", "audit");
        assertThat(streams.listStreams(scope, "eu")).containsExactlyInAnyOrder("orders", "audit");
        assertThat(streams.listStreams(scope, "orders")).containsExactly("orders");

        StreamConfiguration updated = config.toBuilder().tags(List.of("eu", "archived"))
                .retentionPolicy(RetentionPolicy.bySizeBytes(1L << 20, 1L << 30))
                .scalingPolicy(ScalingPolicy.byEventRate(1000, 2, 3)).build();
        streams.updateStream(scope, "orders", updated);
        assertThat(streams.streamConfiguration(scope, "orders")).isEqualTo(updated);
        assertThat(streams.listStreams(scope, "orders")).isEmpty();
        assertThat(streams.listStreams(scope, "archived")).containsExactly("orders");
        assertThatThrownBy(() -> streams.streamConfiguration(scope, "missing"))
                .isInstanceOf(NoSuchStreamException.class);
        assertThatThrownBy(() -> streams.streamInfo(scope, "missing")).isInstanceOf(NoSuchStreamException.class);

        ScopedStream orders = ScopedStream.of(scope, "orders");
        assertThat(streams.currentSegments(scope, "orders")).containsExactly(
                new SegmentWithRange(Segment.of(orders, 0, 0), 0.0, 1.0 / 3),
                new SegmentWithRange(Segment.of(orders, 1, 0), 1.0 / 3, 2.0 / 3),
                new SegmentWithRange(Segment.of(orders, 2, 0), 2.0 / 3, 1.0));

        assertThatThrownBy(() -> streams.deleteStream(scope, "orders"))
                .isInstanceOf(PreconditionFailedException.class).hasMessageContaining("is not sealed");
        assertThatThrownBy(() -> streams.deleteScope(scope)).isInstanceOf(PreconditionFailedException.class)
                .hasMessageContaining("not empty");
        streams.sealStream(scope, "orders");
        StreamInfo sealed = streams.streamInfo(scope, "orders");
        assertThat(sealed.sealed()).isTrue();
        assertThat(sealed.tail()).isEqualTo(StreamCut.UNBOUNDED);
        assertThat(sealed.configuration()).isEqualTo(updated);
        assertThatThrownBy(() -> streams.updateStream(scope, "orders", config))
                .isInstanceOf(PreconditionFailedException.class).hasMessageContaining("sealed");
        assertThat(streams.deleteStream(scope, "orders")).isTrue();
        assertThat(streams.deleteStream(scope, "orders")).as("second delete").isFalse();
        assertThat(streams.streamExists(scope, "orders")).isFalse();
        assertThat(streams.listStreams(scope)).containsExactly("audit");

        streams.sealStream(scope, "audit");
        assertThat(streams.deleteStream(scope, "audit")).isTrue();
        assertThat(streams.deleteScope(scope)).isTrue();
        assertThat(streams.deleteScope(scope)).as("second delete").isFalse();
        assertThat(streams.scopeExists(scope)).isFalse();
        assertThat(streams.listScopes()).doesNotContain(scope);
    }

    @Test
    void infoMeasuresWhatAWriterWroteThenScaleTruncateAndSeal() {
        String scope = RealPravega.uniqueName("compat-sm-info");
        assertThat(streams.createScope(scope)).isTrue();
        ScopedStream stream = ScopedStream.of(scope, "events");
        assertThat(streams.createStream(scope, stream.name(), StreamConfiguration.builder()
                .scalingPolicy(ScalingPolicy.fixed(2)).build())).isTrue();
        List<SegmentWithRange> initial = streams.currentSegments(scope, stream.name());
        Segment low = initial.get(0).segment();
        Segment high = initial.get(1).segment();

        // the tail of each segment must be exactly the framed events the writer routed to it
        Map<Segment, Long> expected = new TreeMap<>(Map.of(low, 0L, high, 0L));
        try (EventStreamWriter<String> writer = client.newWriter(scope, stream.name(), Serializers.utf8())) {
            for (int i = 0; i < 200; i++) {
                String key = "key-" + (i % 13);
                String event = "event " + i + " of " + key;
                writer.write(key, event);
                Segment to = KeyHash.routingKey(key) < initial.get(0).high() ? low : high;
                expected.merge(to, (long) FRAME_HEADER + event.length(), Long::sum);
            }
            writer.flush();
        }
        StreamInfo info = streams.streamInfo(scope, stream.name());
        assertThat(info.sealed()).isFalse();
        assertThat(info.head()).isEqualTo(StreamCut.of(Map.of(low, 0L, high, 0L)));
        assertThat(info.tail()).isEqualTo(StreamCut.of(expected));

        // scale: the low segment splits; the call returns once the real controller has finished
        double mid = initial.get(0).high() / 2;
        List<SegmentWithRange> added = streams.scaleStream(scope, stream.name(), List.of(low),
                List.of(new KeyRange(0.0, mid), new KeyRange(mid, initial.get(0).high())));
        Segment low1 = Segment.of(stream, 2, 1);
        Segment low2 = Segment.of(stream, 3, 1);
        assertThat(added).containsExactly(new SegmentWithRange(low1, 0.0, mid),
                new SegmentWithRange(low2, mid, initial.get(0).high()));
        assertThat(streams.currentSegments(scope, stream.name())).containsExactly(added.get(0), added.get(1),
                initial.get(1));
        assertThatThrownBy(() -> streams.scaleStream(scope, stream.name(), List.of(low),
                List.of(new KeyRange(0.0, initial.get(0).high())))).as("the low segment is sealed already")
                .isInstanceOf(SluiceException.class).hasMessageContaining("refused to scale");
        StreamInfo scaled = streams.streamInfo(scope, stream.name());
        assertThat(scaled.head()).as("still at the sealed segment's start").isEqualTo(info.head());
        StreamCut tail = StreamCut.of(Map.of(low1, 0L, low2, 0L, high, expected.get(high)));
        assertThat(scaled.tail()).isEqualTo(tail);

        streams.truncateStream(scope, stream.name(), tail);
        assertThat(streams.streamInfo(scope, stream.name()).head()).isEqualTo(tail);

        streams.sealStream(scope, stream.name());
        StreamInfo sealed = streams.streamInfo(scope, stream.name());
        assertThat(sealed.sealed()).isTrue();
        assertThat(sealed.head()).isEqualTo(tail);
        assertThatThrownBy(() -> streams.truncateStream(scope, stream.name(), tail))
                .isInstanceOf(PreconditionFailedException.class).hasMessageContaining("sealed");
        assertThat(streams.deleteStream(scope, stream.name())).isTrue();
        assertThat(streams.deleteScope(scope)).isTrue();
    }

    @Test
    void aScopeWithAStreamAndAReaderGroupIsDeletedRecursively() {
        String scope = RealPravega.uniqueName("compat-sm-rec");
        assertThat(streams.createScope(scope)).isTrue();
        assertThat(streams.createStream(scope, "s", StreamConfiguration.builder().build())).isTrue();
        try (EventStreamWriter<String> writer = client.newWriter(scope, "s", Serializers.utf8())) {
            writer.writeAndWait("k", "one event");
        }
        client.readerGroupManager(scope).createReaderGroup("g", ReaderGroupConfig.builder()
                .stream(ScopedStream.of(scope, "s")).build()).close();
        assertThat(ClientInternals.controller(client).listStreams(scope)).as("the real controller's internal streams")
                .extracting(ScopedStream::name).containsExactlyInAnyOrder("s", "_MARKs", "_RGg", "_MARK_RGg");
        assertThat(streams.listStreams(scope)).containsExactly("s");
        assertThat(streams.deleteScopeRecursive(scope)).isTrue();
        assertThat(streams.scopeExists(scope)).isFalse();
        assertThat(streams.deleteScopeRecursive(scope)).as("second delete").isFalse();
    }
}
