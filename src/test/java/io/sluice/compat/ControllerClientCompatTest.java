package io.sluice.compat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.sluice.common.Deadline;
import io.sluice.common.Endpoint;
import io.sluice.connection.ConnectionPool;
import io.sluice.connection.RawClient;
import io.sluice.connection.TcpConnectionFactory;
import io.sluice.controller.ControllerClientConfig;
import io.sluice.controller.GrpcControllerClient;
import io.sluice.controller.ScaleResult;
import io.sluice.controller.SegmentSuccessors;
import io.sluice.controller.StreamSegments;
import io.sluice.errors.NoSuchScopeException;
import io.sluice.errors.NoSuchStreamException;
import io.sluice.errors.PreconditionFailedException;
import io.sluice.stream.KeyRange;
import io.sluice.stream.RetentionPolicy;
import io.sluice.stream.ScalingPolicy;
import io.sluice.stream.ScopedStream;
import io.sluice.stream.Segment;
import io.sluice.stream.SegmentWithRange;
import io.sluice.stream.StreamConfiguration;
import io.sluice.stream.StreamCut;
import io.sluice.wire.GetStreamSegmentInfo;
import io.sluice.wire.StreamSegmentInfo;

/**
 * Sluice's {@link GrpcControllerClient} against the REAL Pravega 0.13 controller: scopes and streams created,
 * found, listed (also by tag), reconfigured and deleted; current segments, {@code getURI} (and the segment store
 * there answering for the segment), the head of a stream, a manual scale that splits one segment into two
 * (successors, epochs, segment validity), truncation, sealing, and the state rules (delete needs sealed, a sealed
 * stream cannot be truncated or updated, a non-empty scope cannot be deleted).
 */
@CompatTest
@Timeout(300)
class ControllerClientCompatTest {
    private static final Duration SCALE_TIMEOUT = Duration.ofSeconds(120);

    private static GrpcControllerClient controller;

    @BeforeAll
    static void connect() {
        controller = GrpcControllerClient.create(ControllerClientConfig.builder(RealPravega.controllerUri().toString())
                .operationTimeout(Duration.ofSeconds(90)).build());
    }

    @AfterAll
    static void disconnect() {
        if (controller != null) {
            controller.close();
        }
    }

    @Test
    void scopesAreCreatedFoundListedAndDeleted() {
        String scope = RealPravega.uniqueName("compat-scope");
        assertThat(controller.scopeExists(scope)).isFalse();
        assertThat(controller.createScope(scope)).isTrue();
        assertThat(controller.createScope(scope)).as("second create").isFalse();
        assertThat(controller.scopeExists(scope)).isTrue();
        assertThat(controller.listScopes()).contains(scope, "_system");

        ScopedStream stream = ScopedStream.of(scope, "st");
        assertThat(controller.createStream(stream, StreamConfiguration.builder().build())).isTrue();
        assertThatThrownBy(() -> controller.deleteScope(scope)).isInstanceOf(PreconditionFailedException.class)
                .hasMessage("scope '" + scope + "' is not empty");
        controller.sealStream(stream);
        assertThat(controller.deleteStream(stream)).isTrue();

        assertThat(controller.deleteScope(scope)).isTrue();
        assertThat(controller.deleteScope(scope)).as("second delete").isFalse();
        assertThat(controller.scopeExists(scope)).isFalse();
        assertThat(controller.listScopes()).doesNotContain(scope);
        assertThatThrownBy(() -> controller.listStreams(scope)).isInstanceOf(NoSuchScopeException.class)
                .hasMessage("scope '" + scope + "' does not exist");
    }

    @Test
    void streamsAreCreatedConfiguredListedSealedAndDeleted() {
        String scope = RealPravega.uniqueName("compat-streams");
        assertThat(controller.createScope(scope)).isTrue();
        ScopedStream stream = ScopedStream.of(scope, "orders");
        StreamConfiguration config = StreamConfiguration.builder().scalingPolicy(ScalingPolicy.fixed(2))
                .retentionPolicy(RetentionPolicy.byTime(Duration.ofDays(1))).tag("a").tag("b").build();

        ScopedStream noScope = ScopedStream.of(RealPravega.uniqueName("no-scope"), "s");
        assertThatThrownBy(() -> controller.createStream(noScope, config))
                .isInstanceOf(NoSuchScopeException.class);
        assertThat(controller.streamExists(stream)).isFalse();
        assertThat(controller.createStream(stream, config)).isTrue();
        assertThat(controller.createStream(stream, config)).as("second create").isFalse();
        assertThat(controller.streamExists(stream)).isTrue();
        assertThat(controller.streamConfiguration(stream)).isEqualTo(config);
        assertThat(controller.listStreams(scope)).as("with the watermark stream the controller adds")
                .containsExactlyInAnyOrder(stream, ScopedStream.of(scope, "_MARKorders"));
        assertThat(controller.listStreams(scope, "a")).containsExactly(stream);
        assertThat(controller.listStreams(scope, "c")).isEmpty();
        assertThatThrownBy(() -> controller.streamConfiguration(ScopedStream.of(scope, "missing")))
                .isInstanceOf(NoSuchStreamException.class);

        StreamConfiguration updated = config.toBuilder().tags(List.of("b", "c"))
                .retentionPolicy(RetentionPolicy.bySizeBytes(1L << 30)).build();
        controller.updateStream(stream, updated);
        assertThat(controller.streamConfiguration(stream)).isEqualTo(updated);
        assertThat(controller.listStreams(scope, "a")).isEmpty();
        assertThat(controller.listStreams(scope, "c")).containsExactly(stream);

        StreamSegments current = controller.currentSegments(stream);
        assertThat(current.ranges()).containsExactly(new SegmentWithRange(Segment.of(stream, 0, 0), 0.0, 0.5),
                new SegmentWithRange(Segment.of(stream, 1, 0), 0.5, 1.0));
        assertThat(controller.headStreamCut(stream)).isEqualTo(StreamCut.of(Map.of(Segment.of(stream, 0, 0), 0L,
                Segment.of(stream, 1, 0), 0L)));

        Endpoint endpoint = controller.endpointFor(Segment.of(stream, 1, 0));
        assertThat(endpoint.host()).isEqualTo("127.0.0.1");
        try (ConnectionPool pool = new ConnectionPool(new TcpConnectionFactory())) {
            StreamSegmentInfo info = new RawClient(pool).call(endpoint, id -> new GetStreamSegmentInfo(id,
                    Segment.of(stream, 1, 0).qualifiedName(), current.delegationToken()), StreamSegmentInfo.class,
                    Deadline.after(Duration.ofSeconds(30)));
            assertThat(info.exists()).as("the segment store getURI named serves the segment").isTrue();
            assertThat(info.writeOffset()).isZero();
        }

        assertThatThrownBy(() -> controller.deleteStream(stream)).isInstanceOf(PreconditionFailedException.class)
                .hasMessageContaining("is not sealed");
        controller.sealStream(stream);
        controller.sealStream(stream); // sealing a sealed stream succeeds
        assertThat(controller.currentSegments(stream).ranges()).as("a sealed stream has no current segments")
                .isEmpty();
        assertThatThrownBy(() -> controller.updateStream(stream, config))
                .isInstanceOf(PreconditionFailedException.class).hasMessage("stream '" + stream + "' is sealed");
        assertThatThrownBy(() -> controller.truncateStream(stream, controller.headStreamCut(stream)))
                .isInstanceOf(PreconditionFailedException.class).hasMessage("stream '" + stream + "' is sealed");
        assertThat(controller.deleteStream(stream)).isTrue();
        assertThat(controller.deleteStream(stream)).as("second delete").isFalse();
        assertThat(controller.streamExists(stream)).isFalse();
        assertThatThrownBy(() -> controller.currentSegments(stream)).isInstanceOf(NoSuchStreamException.class)
                .hasMessage("stream '" + stream + "' does not exist");
        assertThat(controller.deleteScope(scope)).isTrue();
    }

    @Test
    void manualScaleSplitsASegmentThenTheStreamIsTruncatedPastIt() {
        String scope = RealPravega.uniqueName("compat-scale");
        assertThat(controller.createScope(scope)).isTrue();
        ScopedStream stream = ScopedStream.of(scope, "st");
        assertThat(controller.createStream(stream, StreamConfiguration.builder().build())).isTrue();
        Segment first = Segment.of(stream, 0, 0);
        assertThat(controller.currentSegments(stream).segments()).containsExactly(first);

        ScaleResult scale = controller.scale(stream, List.of(first),
                List.of(new KeyRange(0.0, 0.5), new KeyRange(0.5, 1.0)));
        assertThat(scale.started()).isTrue();
        assertThat(scale.epoch()).as("the epoch the scale leaves; the new segments are of epoch 1").isZero();
        Segment low = Segment.of(stream, 1, 1);
        Segment high = Segment.of(stream, 2, 1);
        assertThat(scale.newSegments()).containsExactly(new SegmentWithRange(low, 0.0, 0.5),
                new SegmentWithRange(high, 0.5, 1.0));
        awaitScale(stream, scale.epoch());
        assertThat(controller.checkScale(stream, 1)).as("epoch 1 is the active one: no scale out of it yet")
                .isFalse();
        assertThatThrownBy(() -> controller.checkScale(stream, 2)).as("an epoch after the active one")
                .isInstanceOf(IllegalArgumentException.class);

        assertThat(controller.currentSegments(stream).ranges()).containsExactly(new SegmentWithRange(low, 0.0, 0.5),
                new SegmentWithRange(high, 0.5, 1.0));
        SegmentSuccessors successors = controller.successors(first);
        assertThat(successors.successors()).containsOnlyKeys(new SegmentWithRange(low, 0.0, 0.5),
                new SegmentWithRange(high, 0.5, 1.0));
        assertThat(successors.successors().values()).allSatisfy(p -> assertThat(p).containsExactly(first));
        assertThat(controller.successors(low).successors()).as("an open segment has no successors").isEmpty();
        assertThat(controller.epochSegments(stream, 0).segments()).containsExactly(first);
        assertThat(controller.epochSegments(stream, 1).segments()).containsExactly(low, high);
        assertThat(controller.isSegmentValid(first)).as("sealed by the scale").isFalse();
        assertThat(controller.isSegmentValid(high)).isTrue();
        assertThat(controller.scale(stream, List.of(first), List.of(new KeyRange(0.0, 1.0))).started())
                .as("a sealed segment cannot be scaled again").isFalse();

        assertThat(controller.headStreamCut(stream)).isEqualTo(StreamCut.of(Map.of(first, 0L)));
        StreamCut afterScale = StreamCut.of(Map.of(low, 0L, high, 0L));
        assertThat(controller.isStreamCutValid(stream, afterScale)).isTrue();
        assertThat(controller.isStreamCutValid(stream, StreamCut.of(Map.of(low, 0L)))).as("half the key space")
                .isFalse();
        controller.truncateStream(stream, afterScale);
        assertThat(controller.headStreamCut(stream)).as("the head moved past the sealed segment")
                .isEqualTo(afterScale);

        controller.sealStream(stream);
        assertThat(controller.deleteStream(stream)).isTrue();
        assertThat(controller.deleteScope(scope)).isTrue();
    }

    /**
     * Polls checkScale until the scale is done. The controller offers no notification, so each round trip is the
     * wait between polls; the deadline bounds the whole.
     */
    private static void awaitScale(ScopedStream stream, int epoch) {
        Deadline deadline = Deadline.after(SCALE_TIMEOUT);
        while (!controller.checkScale(stream, epoch)) {
            assertThat(deadline.expired()).as("scale of " + stream + " to epoch " + epoch + " done within "
                    + SCALE_TIMEOUT).isFalse();
        }
    }
}
