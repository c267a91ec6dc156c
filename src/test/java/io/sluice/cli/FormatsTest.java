package io.sluice.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;

import io.sluice.stream.RetentionPolicy;
import io.sluice.stream.ScalingPolicy;
import io.sluice.stream.ScopedStream;
import io.sluice.stream.Segment;
import io.sluice.stream.StreamCut;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** What the command line reads (durations, sizes, segments, cuts) and how it prints policies and cuts. */
@Timeout(10)
class FormatsTest {
    private static final ScopedStream STREAM = ScopedStream.of("sc", "st");

    @Test
    void durations() {
        assertThat(Formats.parseDuration("500ms")).isEqualTo(Duration.ofMillis(500));
        assertThat(Formats.parseDuration("30s")).isEqualTo(Duration.ofSeconds(30));
        assertThat(Formats.parseDuration("5m")).isEqualTo(Duration.ofMinutes(5));
        assertThat(Formats.parseDuration("12H")).isEqualTo(Duration.ofHours(12));
        assertThat(Formats.parseDuration("7d")).isEqualTo(Duration.ofDays(7));
        assertThat(Formats.parseDuration("PT1H30M")).isEqualTo(Duration.ofMinutes(90));
        assertThat(Formats.parseDuration("P2D")).isEqualTo(Duration.ofDays(2));
        assertThatThrownBy(() -> Formats.parseDuration("30")).hasMessageContaining("duration '30' has no unit");
        assertThatThrownBy(() -> Formats.parseDuration("3w")).hasMessageContaining("unknown unit 'w'");
        assertThatThrownBy(() -> Formats.parseDuration("-1s")).hasMessageContaining("'-1s' is not a duration");
        assertThatThrownBy(() -> Formats.parseDuration("PT-1S")).hasMessageContaining("negative");
        assertThatThrownBy(() -> Formats.parseDuration("P1X")).hasMessageContaining("not an ISO-8601 duration");
        assertThatThrownBy(() -> Formats.parseDuration("999999999999999999d")).hasMessageContaining("too long");
    }

    @Test
    void sizes() {
        assertThat(Formats.parseBytes("1000")).isEqualTo(1000);
        assertThat(Formats.parseBytes("1000B")).isEqualTo(1000);
        assertThat(Formats.parseBytes("512k")).isEqualTo(512 * 1024);
        assertThat(Formats.parseBytes("2KiB")).isEqualTo(2048);
        assertThat(Formats.parseBytes("3MB")).isEqualTo(3L << 20);
        assertThat(Formats.parseBytes("1G")).isEqualTo(1L << 30);
        assertThat(Formats.parseBytes("1T")).isEqualTo(1L << 40);
        assertThatThrownBy(() -> Formats.parseBytes("1P")).hasMessageContaining("unknown unit 'P'");
        assertThatThrownBy(() -> Formats.parseBytes("G")).hasMessageContaining("'G' is not a size");
        assertThatThrownBy(() -> Formats.parseBytes("99999999999T")).hasMessageContaining("too large");
    }

    @Test
    void segmentsInThreeSpellings() {
        Segment s = Segment.of(STREAM, 3, 2);
        assertThat(Formats.parseSegment(STREAM, "3.#epoch.2")).isEqualTo(s);
        assertThat(Formats.parseSegment(STREAM, "sc/st/3.#epoch.2")).isEqualTo(s);
        assertThat(Formats.parseSegment(STREAM, Long.toString((2L << 32) | 3))).isEqualTo(s);
        assertThat(Formats.parseSegment(STREAM, "7")).isEqualTo(Segment.of(STREAM, 7, 0));
        assertThat(Formats.shortName(s)).isEqualTo("3.#epoch.2");
        assertThatThrownBy(() -> Formats.parseSegment(STREAM, "3.2")).hasMessageContaining("expected N.#epoch.E");
        assertThatThrownBy(() -> Formats.parseSegment(STREAM, "x/st/3.#epoch.2"))
                .hasMessageContaining("is not a segment of stream sc/st");
        assertThatThrownBy(() -> Formats.parseSegment(STREAM, "99999999999999999999"))
                .hasMessageContaining("too large");
        assertThatThrownBy(() -> Formats.parseSegment(STREAM, Long.toString(0x80000000L)))
                .hasMessageContaining("negative segment number");
    }

    @Test
    void cutsRoundTrip() {
        StreamCut cut = Formats.parseCut(STREAM, "1.#epoch.0=7, 0=120");
        assertThat(cut).isEqualTo(StreamCut.of(Map.of(Segment.of(STREAM, 0, 0), 120L, Segment.of(STREAM, 1, 0), 7L)));
        assertThat(Formats.cut(cut)).isEqualTo("0.#epoch.0=120,1.#epoch.0=7");
        assertThat(Formats.parseCut(STREAM, Formats.cut(cut))).isEqualTo(cut);
        assertThat(Formats.cut(StreamCut.UNBOUNDED)).isEqualTo("(empty)");
        assertThatThrownBy(() -> Formats.parseCut(STREAM, "0=x")).hasMessageContaining("offset 'x'");
        assertThatThrownBy(() -> Formats.parseCut(STREAM, "")).hasMessageContaining("is not SEGMENT=OFFSET");
    }

    @Test
    void policies() {
        assertThat(Formats.scaling(ScalingPolicy.fixed(1))).isEqualTo("fixed, 1 segment");
        assertThat(Formats.scaling(ScalingPolicy.byEventRate(10, 2, 3)))
                .isEqualTo("by events/s: 10 events/s per segment, scale factor 2, at least 3 segments");
        assertThat(Formats.retention(RetentionPolicy.NONE)).isEqualTo("none");
        assertThat(Formats.retention(RetentionPolicy.byTime(Duration.ofMinutes(90), Duration.ofDays(1))))
                .isEqualTo("time: keep at least 90m, at most 1d");
        assertThat(Formats.retention(RetentionPolicy.bySizeBytes(1000, 3L << 30)))
                .isEqualTo("size: keep at least 1000 bytes, at most 3G");
        assertThat(Formats.duration(1500)).isEqualTo("1500ms");
        assertThat(Formats.duration(0)).isEqualTo("0ms");
        assertThat(Formats.bytes(1)).isEqualTo("1 byte");
        assertThat(Formats.bytes(5L << 40)).isEqualTo("5T");
    }
}
