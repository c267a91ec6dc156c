package io.sluice.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Validation and behaviour of the stream value types. */
@Timeout(30)
class StreamValuesTest {
    private static final ScopedStream STREAM = ScopedStream.of("sc", "st");

    @Test
    void segmentIdHoldsEpochHighAndNumberLow() {
        Segment s = Segment.of(STREAM, 4, 2);
        assertThat(s.segmentId()).isEqualTo((2L << 32) | 4);
        assertThat(s.number()).isEqualTo(4);
        assertThat(s.epoch()).isEqualTo(2);
        assertThat(s.qualifiedName()).isEqualTo("sc/st/4.#epoch.2");
        assertThat(s).hasToString("sc/st/4.#epoch.2");
        assertThat(s.scopedStream()).isEqualTo(STREAM);
        assertThat(Segment.segmentId(Integer.MAX_VALUE, Integer.MAX_VALUE)).isEqualTo(0x7FFFFFFF7FFFFFFFL);
    }

    @Test
    void segmentParsesQualifiedLegacyAndTransactionNames() {
        assertThat(Segment.parse("examples/s1/4.#epoch.2"))
                .isEqualTo(Segment.of(ScopedStream.of("examples", "s1"), 4, 2));
        assertThat(Segment.parse("examples/s1/4")).isEqualTo(Segment.of(ScopedStream.of("examples", "s1"), 4, 0));
        assertThat(Segment.parse("sc/st/1.#epoch.3#transaction.0000000300000007000000000000002a"))
                .isEqualTo(Segment.of(STREAM, 1, 3));
        assertThat(Segment.parse("sc/kvt_kvtable/0.#epoch.0")).isEqualTo(new Segment("sc", "kvt_kvtable", 0));
        Segment s = Segment.of(STREAM, 12, 5);
        assertThat(Segment.parse(s.qualifiedName())).isEqualTo(s);
    }

    @Test
    void segmentRejectsMalformedNames() {
        for (String bad : List.of("", "sc/st", "st/4", "a/b/c/4", "sc/st/x", "sc/st/-1", "sc/st/+1", "sc/st/4.#epoch.",
                "sc/st/4.#epoch.x", "/st/4", "sc//4", "sc/st/99999999999")) {
            assertThatThrownBy(() -> Segment.parse(bad)).as(bad).isInstanceOf(IllegalArgumentException.class);
        }
        assertThatThrownBy(() -> Segment.parse("sc/st"))
                .hasMessageContaining("'sc/st' is not a qualified segment name");
        assertThatThrownBy(() -> new Segment("sc", "st", -1L)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Segment.of(STREAM, -1, 0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void segmentsOrderByStreamThenId() {
        List<Segment> list = new ArrayList<>(List.of(Segment.of(STREAM, 0, 1), Segment.of(STREAM, 5, 0),
                Segment.of(ScopedStream.of("sc", "aa"), 9, 9)));
        list.sort(null);
        assertThat(list).containsExactly(Segment.of(ScopedStream.of("sc", "aa"), 9, 9), Segment.of(STREAM, 5, 0),
                Segment.of(STREAM, 0, 1));
    }

    @Test
    void namesFollowPravegasRules() {
        assertThat(Names.validateUserScope("Scope-1.a")).isEqualTo("Scope-1.a");
        assertThat(Names.validateUserStream("x".repeat(250))).hasSize(250);
        assertThatThrownBy(() -> Names.validateUserStream("x".repeat(251))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at most 250");
        assertThat(Names.validateUserScope("x".repeat(255))).hasSize(255);
        assertThatThrownBy(() -> Names.validateUserScope("x".repeat(256))).hasMessageContaining("at most 255");
        assertThatThrownBy(() -> Names.validateUserStream("_RGx"))
                .hasMessageContaining("stream name '_RGx' is invalid");
        assertThatThrownBy(() -> Names.validateUserStream("a b")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Names.validateUserStream("caf\u00e9")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Names.validateUserScope("")).hasMessage("scope name must not be empty");
        assertThatThrownBy(() -> Names.validateReaderGroup("r/g")).hasMessageContaining("reader group name");
        assertThatThrownBy(() -> Names.validateKeyValueTable("t_1")).hasMessageContaining("key-value table name");
        assertThat(Names.validateName("stream", "_RGgroup")).isEqualTo("_RGgroup");
        assertThatThrownBy(() -> Names.validateName("stream", "__x")).isInstanceOf(IllegalArgumentException.class);
        // what Pravega's controller names the watermark stream of a reader group's state stream
        assertThat(Names.validateName("stream", "_MARK_RGgroup")).isEqualTo("_MARK_RGgroup");
        assertThatThrownBy(() -> Names.validateName("stream", "a_b")).as("'_' only in internal names")
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void scopedStreamParsesAndValidates() {
        assertThat(ScopedStream.parse("sc/st")).isEqualTo(STREAM);
        assertThat(STREAM.scopedName()).isEqualTo("sc/st");
        assertThat(ScopedStream.of("_system", "_MARKst").name()).isEqualTo("_MARKst");
        for (String bad : List.of("sc", "sc/st/x", "/st", "sc/", "s c/st")) {
            assertThatThrownBy(() -> ScopedStream.parse(bad)).as(bad).isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void segmentRangeBounds() {
        Segment s = Segment.of(STREAM, 0, 0);
        assertThat(new SegmentWithRange(s, 0, 1.000001).contains(0.99)).isTrue();
        assertThat(new SegmentWithRange(s, 0.5, 0.5).contains(0.5)).isFalse();
        assertThatThrownBy(() -> new SegmentWithRange(s, 0.6, 0.5)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new SegmentWithRange(s, -0.1, 0.5)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new SegmentWithRange(s, 0, 1.1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new SegmentWithRange(s, 0, Double.NaN)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new KeyRange(0.5, 0.5)).isInstanceOf(IllegalArgumentException.class);
        assertThat(new KeyRange(0, 1).contains(0.999)).isTrue();
    }

    @Test
    void streamCutCoversOneStream() {
        Segment a = Segment.of(STREAM, 0, 0);
        Segment b = Segment.of(STREAM, 1, 0);
        StreamCut cut = StreamCut.of(Map.of(b, 5L, a, 3L));
        assertThat(cut.positions().keySet()).containsExactly(a, b);
        assertThat(cut.stream()).contains(STREAM);
        assertThat(cut.offsetsBySegmentId()).containsExactly(Map.entry(0L, 3L), Map.entry(1L, 5L));
        assertThat(cut.isFor(STREAM)).isTrue();
        assertThat(cut.isFor(ScopedStream.of("sc", "other"))).isFalse();
        assertThat(StreamCut.of(STREAM, Map.of(1L, 5L, 0L, 3L))).isEqualTo(cut);
        assertThat(StreamCut.of(Map.of())).isSameAs(StreamCut.UNBOUNDED);
        assertThat(StreamCut.UNBOUNDED.isUnbounded()).isTrue();
        assertThat(StreamCut.UNBOUNDED.stream()).isEmpty();
        assertThat(StreamCut.UNBOUNDED.isFor(STREAM)).isTrue();
        assertThatThrownBy(() -> StreamCut.of(Map.of(a, 1L, Segment.of(ScopedStream.of("sc", "x"), 0, 0), 1L)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("different streams");
        assertThatThrownBy(() -> StreamCut.of(Map.of(a, -1L))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> cut.positions().put(a, 1L)).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void streamConfigurationDefaultsAndLimits() {
        StreamConfiguration defaults = StreamConfiguration.builder().build();
        assertThat(defaults.scalingPolicy()).isEqualTo(ScalingPolicy.fixed(1));
        assertThat(defaults.retentionPolicy()).isEqualTo(RetentionPolicy.NONE);
        assertThat(defaults.tags()).isEmpty();
        assertThat(defaults.timestampAggregationTimeout()).isZero();
        assertThat(defaults.rolloverSizeBytes()).isZero();
        StreamConfiguration tagged = StreamConfiguration.builder().tag("b").tag("a").tag("b").build();
        assertThat(tagged.tags()).containsExactly("b", "a");
        assertThat(tagged.toBuilder().build()).isEqualTo(tagged);
        List<String> many = new ArrayList<>();
        for (int i = 0; i < 128; i++) {
            many.add("t" + i);
        }
        assertThatThrownBy(() -> StreamConfiguration.builder().tags(many).build())
                .hasMessageContaining("at most 127 tags");
        assertThat(StreamConfiguration.builder().tags(many.subList(0, 127)).build().tags()).hasSize(127);
        assertThatThrownBy(() -> StreamConfiguration.builder().tag("x".repeat(256)).build())
                .hasMessageContaining("shorter than 256");
        assertThatThrownBy(() -> StreamConfiguration.builder().rolloverSizeBytes(-1).build())
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> StreamConfiguration.builder().timestampAggregationTimeout(Duration.ofMillis(-1))
                .build()).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void policiesValidateTheirParameters() {
        assertThatThrownBy(() -> ScalingPolicy.fixed(0)).hasMessageContaining("at least one segment");
        assertThatThrownBy(() -> ScalingPolicy.byDataRate(0, 2, 1)).hasMessageContaining("target rate");
        assertThatThrownBy(() -> ScalingPolicy.byEventRate(10, 0, 1)).hasMessageContaining("scale factor");
        assertThat(RetentionPolicy.byTime(Duration.ofHours(1))).isEqualTo(new RetentionPolicy(RetentionPolicy.Type.TIME,
                3_600_000L, Long.MAX_VALUE));
        assertThat(RetentionPolicy.bySizeBytes(5, 10).max()).isEqualTo(10);
        assertThatThrownBy(() -> RetentionPolicy.bySizeBytes(10, 5)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new RetentionPolicy(RetentionPolicy.Type.NONE, 1, 1))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void readerGroupConfigDefaultsAndValidation() {
        ReaderGroupConfig config = ReaderGroupConfig.builder().stream("sc/st").build();
        assertThat(config.groupRefreshTimeMillis()).isEqualTo(3000);
        assertThat(config.automaticCheckpointIntervalMillis()).isEqualTo(30000);
        assertThat(config.automaticCheckpoints()).isTrue();
        assertThat(config.maxOutstandingCheckpointRequest()).isEqualTo(3);
        assertThat(config.retentionType()).isEqualTo(ReaderGroupConfig.StreamDataRetention.NONE);
        assertThat(config.generation()).isEqualTo(-1);
        assertThat(config.readerGroupId()).isEqualTo(new UUID(0, 0));
        assertThat(config.startingStreamCuts()).containsExactly(Map.entry(STREAM, StreamCut.UNBOUNDED));
        assertThat(config.endingStreamCuts()).containsExactly(Map.entry(STREAM, StreamCut.UNBOUNDED));
        assertThat(config.toBuilder().build()).isEqualTo(config);
        assertThat(ReaderGroupConfig.builder().stream(STREAM).disableAutomaticCheckpoints().build()
                .automaticCheckpoints()).isFalse();

        assertThatThrownBy(() -> ReaderGroupConfig.builder().build()).hasMessageContaining("at least one stream");
        assertThatThrownBy(() -> ReaderGroupConfig.builder().stream(STREAM).maxOutstandingCheckpointRequest(0).build())
                .isInstanceOf(IllegalArgumentException.class);
        Segment s = Segment.of(STREAM, 0, 0);
        assertThatThrownBy(() -> ReaderGroupConfig.builder().stream(ScopedStream.of("sc", "other"),
                StreamCut.of(Map.of(s, 0L))).build()).hasMessageContaining("does not belong to stream sc/other");
        assertThatThrownBy(() -> ReaderGroupConfig.builder().stream(STREAM, StreamCut.of(Map.of(s, 10L)),
                StreamCut.of(Map.of(s, 5L))).build()).hasMessageContaining("lies before its starting cut");
        assertThatThrownBy(() -> ReaderGroupConfig.builder().stream(STREAM)
                .endingStreamCuts(Map.of(ScopedStream.of("sc", "x"), StreamCut.UNBOUNDED)).build())
                .hasMessageContaining("does not read that stream");
    }

    @Test
    void aWritersBoundOnUnacknowledgedBytesIsSixteenMebibytesByDefaultAndAtLeast() {
        assertThat(WriterConfig.DEFAULT.maxOutstandingBytes()).isEqualTo(16L * 1024 * 1024)
                .isEqualTo(WriterConfig.DEFAULT_MAX_OUTSTANDING_BYTES);
        assertThat(WriterConfig.DEFAULT.withMaxOutstandingBytes(WriterConfig.MIN_OUTSTANDING_BYTES).maxOutstandingBytes())
                .isEqualTo(WriterConfig.MIN_OUTSTANDING_BYTES);
        assertThatThrownBy(() -> WriterConfig.DEFAULT.withMaxOutstandingBytes(WriterConfig.MIN_OUTSTANDING_BYTES - 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxOutstandingBytes must be between 16 MiB");
        assertThatThrownBy(() -> WriterConfig.DEFAULT.withMaxOutstandingBytes(Integer.MAX_VALUE + 1L))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("2 GiB");
    }

    @Test
    void txnStateFinality() {
        assertThat(TxnState.COMMITTED.isFinal()).isTrue();
        assertThat(TxnState.ABORTED.isFinal()).isTrue();
        assertThat(TxnState.COMMITTING.isFinal()).isFalse();
    }
}
