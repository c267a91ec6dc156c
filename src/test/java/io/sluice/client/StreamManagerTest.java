package io.sluice.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;

import io.sluice.admin.StreamInfo;
import io.sluice.admin.StreamManager;
import io.sluice.errors.PreconditionFailedException;
import io.sluice.errors.SluiceException;
import io.sluice.server.EmbeddedServer;
import io.sluice.stream.EventStreamWriter;
import io.sluice.stream.KeyRange;
import io.sluice.stream.ReaderGroupConfig;
import io.sluice.stream.ScalingPolicy;
import io.sluice.stream.ScopedStream;
import io.sluice.stream.SegmentWithRange;
import io.sluice.stream.Serializers;
import io.sluice.stream.StreamConfiguration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Stream management against the embedded server. */
@Timeout(60)
class StreamManagerTest {
    private EmbeddedServer server;
    private SluiceClient client;
    private StreamManager streams;

    @BeforeEach
    void start() {
        server = EmbeddedServer.builder().build();
        client = SluiceClient.connect(server.controllerUri());
        streams = client.streamManager();
    }

    @AfterEach
    void stop() {
        client.close();
        server.close();
    }

    @Test
    void scopesAndStreamsLiveAndDie() {
        assertThat(streams.createScope("shop")).isTrue();
        assertThat(streams.createScope("shop")).isFalse();
        assertThat(streams.listScopes()).contains("shop");
        StreamConfiguration config = StreamConfiguration.builder().scalingPolicy(ScalingPolicy.fixed(3)).tag("orders").build();
        assertThat(streams.createStream("shop", "orders", config)).isTrue();
        assertThat(streams.createStream("shop", "orders", config)).isFalse();
        assertThat(streams.listStreams("shop")).containsExactly("orders");
        assertThat(streams.listStreams("shop", "orders")).containsExactly("orders");
        assertThat(streams.currentSegments("shop", "orders")).hasSize(3);
        assertThatThrownBy(() -> streams.deleteScope("shop")).isInstanceOf(PreconditionFailedException.class);
        assertThatThrownBy(() -> streams.deleteStream("shop", "orders")).isInstanceOf(PreconditionFailedException.class);
        streams.sealStream("shop", "orders");
        assertThat(streams.streamInfo("shop", "orders").sealed()).isTrue();
        assertThat(streams.deleteStream("shop", "orders")).isTrue();
        assertThat(streams.streamExists("shop", "orders")).isFalse();
    }

    @Test
    void aScopeWithAReaderGroupIsListed() {
        streams.createScope("shop");
        streams.createStream("shop", "orders", StreamConfiguration.builder().build());
        client.readerGroupManager("shop").createReaderGroup("billing", ReaderGroupConfig.builder()
                .stream(ScopedStream.of("shop", "orders")).build()).close();
        // the controller lists the group's state stream _RGbilling and, as Pravega 0.13's does, its watermark
        // stream _MARK_RGbilling: both must parse
        assertThat(client.controller().listStreams("shop")).extracting(ScopedStream::name)
                .contains("orders", "_RGbilling", "_MARK_RGbilling");
        assertThat(streams.listStreams("shop")).containsExactly("orders");
        assertThat(ScopedStream.of("shop", "_MARK_RGbilling").name()).isEqualTo("_MARK_RGbilling");
    }

    @Test
    void recursiveDeleteSaysWhetherTheScopeExisted() {
        streams.createScope("gone");
        streams.createStream("gone", "s", StreamConfiguration.builder().build());
        assertThat(streams.deleteScopeRecursive("gone")).isTrue();
        assertThat(streams.scopeExists("gone")).isFalse();
        // the controller answers SUCCESS for a missing scope (as Pravega 0.13's does): the manager asks first
        assertThat(client.controller().deleteScopeRecursive("gone")).isTrue();
        assertThat(streams.deleteScopeRecursive("gone")).isFalse();
    }

    @Test
    void infoShowsHeadAndTailAndTruncationMovesTheHead() {
        streams.createScope("s");
        streams.createStream("s", "t", StreamConfiguration.builder().scalingPolicy(ScalingPolicy.fixed(1)).build());
        try (EventStreamWriter<String> w = client.newWriter("s", "t", Serializers.utf8())) {
            for (int i = 0; i < 10; i++) {
                w.write("k", "0123456789");
            }
            w.flush();
        }
        StreamInfo info = streams.streamInfo("s", "t");
        assertThat(info.tail().positions().values()).containsExactly(10L * 18);
        assertThat(info.head().positions().values()).containsExactly(0L);
        streams.truncateStream("s", "t", info.tail());
        assertThat(streams.streamInfo("s", "t").head().positions().values()).containsExactly(180L);
    }

    @Test
    void manualScaling() {
        streams.createScope("s");
        streams.createStream("s", "t", StreamConfiguration.builder().scalingPolicy(ScalingPolicy.fixed(1)).build());
        SegmentWithRange only = streams.currentSegments("s", "t").get(0);
        List<SegmentWithRange> added = streams.scaleStream("s", "t", List.of(only.segment()),
                List.of(new KeyRange(0, 0.5), new KeyRange(0.5, 1.0)));
        assertThat(added).hasSize(2);
        assertThat(streams.currentSegments("s", "t")).extracting(r -> r.segment().epoch()).containsOnly(1);
        assertThatThrownBy(() -> streams.scaleStream("s", "t", List.of(only.segment()), List.of(new KeyRange(0, 1))))
                .isInstanceOf(SluiceException.class).hasMessageContaining("are not current");
    }

    @Test
    void aScaleBelowThePolicysMinimumIsRefusedWithTheReason() {
        streams.createScope("s");
        streams.createStream("s", "t", StreamConfiguration.builder().scalingPolicy(ScalingPolicy.fixed(2)).build());
        List<SegmentWithRange> both = streams.currentSegments("s", "t");
        // Pravega 0.13 refuses this too ("Min Segment Count will not hold"): 2 -> 1 under fixed(2)
        assertThatThrownBy(() -> streams.scaleStream("s", "t", both.stream().map(SegmentWithRange::segment).toList(),
                List.of(new KeyRange(0, 1)))).isInstanceOf(SluiceException.class)
                .hasMessageContaining("would leave 1 segment(s), fewer than the minimum of 2");
        assertThat(streams.currentSegments("s", "t")).isEqualTo(both);
    }
}
