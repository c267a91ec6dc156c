package io.sluice.cli;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

import io.sluice.stream.RetentionPolicy;
import io.sluice.stream.ScalingPolicy;
import io.sluice.stream.ScopedStream;
import io.sluice.stream.Segment;
import io.sluice.stream.SegmentWithRange;
import io.sluice.stream.StreamConfiguration;
import io.sluice.stream.StreamCut;

/**
 * What the command line reads and prints: durations, byte sizes, segment names, stream cuts, and the human and JSON
 * forms of stream configurations, segments and cuts. Stateless and thread-safe; parse methods throw
 * {@link IllegalArgumentException} with a message naming the bad text.
 */
final class Formats {
    private static final long KIB = 1024;
    private static final String EPOCH = ".#epoch.";

    private Formats() {
    }

    // ---- reading ----

    /**
     * Parses a duration: a whole number with a unit, {@code ms}, {@code s}, {@code m}, {@code h} or {@code d}
     * ({@code 500ms}, {@code 30s}, {@code 7d}), or ISO-8601 ({@code PT1H30M}, {@code P7D}).
     *
     * @param text the duration
     * @return the duration, not negative
     */
    static Duration parseDuration(String text) {
        String s = text.strip();
        if (s.length() > 1 && (s.charAt(0) == 'P' || s.charAt(0) == 'p')) {
            try {
                Duration d = Duration.parse(s);
                if (d.isNegative()) {
                    throw new IllegalArgumentException("duration '" + text + "' is negative");
                }
                return d;
            } catch (DateTimeParseException e) {
                throw new IllegalArgumentException("'" + text + "' is not an ISO-8601 duration (e.g. PT1H30M)", e);
            }
        }
        int unitAt = 0;
        while (unitAt < s.length() && Character.isDigit(s.charAt(unitAt))) {
            unitAt++;
        }
        if (unitAt == 0 || unitAt > 18) {
            throw new IllegalArgumentException("'" + text + "' is not a duration: expected a whole number and a unit "
                    + "(ms, s, m, h, d), e.g. 30s or 7d, or ISO-8601 such as PT1H30M");
        }
        long n = Long.parseLong(s.substring(0, unitAt));
        String unit = s.substring(unitAt).toLowerCase(Locale.ROOT);
        try {
            return switch (unit) {
                case "ms" -> Duration.ofMillis(n);
                case "s" -> Duration.ofSeconds(n);
                case "m", "min" -> Duration.ofMinutes(n);
                case "h" -> Duration.ofHours(n);
                case "d" -> Duration.ofDays(n);
                default -> throw new IllegalArgumentException("duration '" + text + "' has "
                        + (unit.isEmpty() ? "no unit" : "the unknown unit '" + unit + "'")
                        + ": use ms, s, m, h or d, e.g. 30s or 7d");
            };
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException("duration '" + text + "' is too long", e);
        }
    }

    /**
     * Parses a number of bytes: a whole number, optionally followed by {@code K}, {@code M}, {@code G} or {@code T}
     * (powers of 1024; {@code KiB}, {@code KB}, {@code k} mean the same).
     *
     * @param text the size
     * @return the number of bytes, not negative
     */
    static long parseBytes(String text) {
        String s = text.strip();
        int unitAt = 0;
        while (unitAt < s.length() && Character.isDigit(s.charAt(unitAt))) {
            unitAt++;
        }
        if (unitAt == 0 || unitAt > 18) {
            throw new IllegalArgumentException("'" + text + "' is not a size: expected a whole number of bytes, "
                    + "optionally with K, M, G or T (powers of 1024), e.g. 512M");
        }
        long n = Long.parseLong(s.substring(0, unitAt));
        String unit = s.substring(unitAt).strip().toUpperCase(Locale.ROOT);
        if (unit.endsWith("IB")) {
            unit = unit.substring(0, unit.length() - 2);
        } else if (unit.length() == 2 && unit.endsWith("B")) {
            unit = unit.substring(0, 1);
        }
        int shift = switch (unit) {
            case "", "B" -> 0;
            case "K" -> 10;
            case "M" -> 20;
            case "G" -> 30;
            case "T" -> 40;
            default -> throw new IllegalArgumentException("size '" + text + "' has the unknown unit '"
                    + s.substring(unitAt) + "': use K, M, G or T (powers of 1024)");
        };
        if (n > (Long.MAX_VALUE >> shift)) {
            throw new IllegalArgumentException("size '" + text + "' is too large");
        }
        return n << shift;
    }

    /**
     * Parses a segment of {@code stream}: {@code N.#epoch.E} (as {@code stream info} prints it), the qualified name
     * {@code scope/stream/N.#epoch.E}, or a 64-bit segment id ({@code (E << 32) | N}; a plain segment number for
     * epoch 0).
     *
     * @param stream the stream the segment must belong to
     * @param text the segment
     * @return the segment
     */
    static Segment parseSegment(ScopedStream stream, String text) {
        String s = text.strip();
        if (!s.isEmpty() && s.chars().allMatch(c -> c >= '0' && c <= '9')) {
            long id;
            try {
                id = Long.parseLong(s);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("segment id '" + text + "' is too large", e);
            }
            try {
                return Segment.of(stream, id);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("'" + text + "' is not a segment id: " + e.getMessage(), e);
            }
        }
        if (s.indexOf('/') < 0) {
            if (!s.contains(EPOCH)) {
                throw new IllegalArgumentException("'" + text + "' is not a segment: expected N.#epoch.E (e.g. "
                        + "0.#epoch.0), scope/stream/N.#epoch.E, or a segment id");
            }
            s = stream.scope() + "/" + stream.name() + "/" + s;
        }
        Segment segment = Segment.parse(s);
        if (!segment.scope().equals(stream.scope()) || !segment.stream().equals(stream.name())) {
            throw new IllegalArgumentException("segment '" + text + "' is not a segment of stream " + stream);
        }
        return segment;
    }

    /**
     * Parses a stream cut written as {@code SEGMENT=OFFSET,SEGMENT=OFFSET,...} (segments as
     * {@link #parseSegment(ScopedStream, String)} reads them).
     *
     * @param stream the stream of the cut
     * @param text the cut
     * @return the cut, with at least one position
     */
    static StreamCut parseCut(ScopedStream stream, String text) {
        Map<Segment, Long> positions = new TreeMap<>();
        for (String part : text.split(",", -1)) {
            int eq = part.lastIndexOf('=');
            if (eq < 0) {
                throw new IllegalArgumentException("'" + part.strip() + "' in stream cut '" + text
                        + "' is not SEGMENT=OFFSET");
            }
            Segment segment = parseSegment(stream, part.substring(0, eq));
            String offsetText = part.substring(eq + 1).strip();
            long offset;
            try {
                offset = Long.parseLong(offsetText);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("offset '" + offsetText + "' of segment " + shortName(segment)
                        + " is not a whole number", e);
            }
            if (offset < 0) {
                throw new IllegalArgumentException("offset " + offset + " of segment " + shortName(segment)
                        + " is negative");
            }
            if (positions.put(segment, offset) != null) {
                throw new IllegalArgumentException("segment " + shortName(segment) + " appears twice in stream cut '"
                        + text + "'");
            }
        }
        return StreamCut.of(positions);
    }

    // ---- human output ----

    /** @return {@code N.#epoch.E}, the segment's name within its stream */
    static String shortName(Segment segment) {
        return segment.number() + EPOCH + segment.epoch();
    }

    /** @return {@code SEGMENT=OFFSET,...}, or {@code (empty)} for a cut without positions */
    static String cut(StreamCut cut) {
        if (cut.isUnbounded()) {
            return "(empty)";
        }
        return cut.positions().entrySet().stream().map(e -> shortName(e.getKey()) + "=" + e.getValue())
                .collect(Collectors.joining(","));
    }

    /** @return e.g. {@code [0.0, 0.5)} */
    static String keyRange(SegmentWithRange range) {
        return "[" + range.low() + ", " + range.high() + ")";
    }

    /** @return a duration in the largest unit that divides it, e.g. {@code 7d}, {@code 90m}, {@code 1500ms} */
    static String duration(long millis) {
        if (millis != 0 && millis % 86_400_000L == 0) {
            return millis / 86_400_000L + "d";
        } else if (millis != 0 && millis % 3_600_000L == 0) {
            return millis / 3_600_000L + "h";
        } else if (millis != 0 && millis % 60_000L == 0) {
            return millis / 60_000L + "m";
        } else if (millis != 0 && millis % 1000L == 0) {
            return millis / 1000L + "s";
        }
        return millis + "ms";
    }

    /** @return a byte count in the largest binary unit that divides it, e.g. {@code 512M}, {@code 1000 bytes} */
    static String bytes(long bytes) {
        String[] units = {"T", "G", "M", "K"};
        for (int i = 0; i < units.length; i++) {
            long unit = KIB << (10 * (units.length - 1 - i));
            if (bytes != 0 && bytes % unit == 0) {
                return bytes / unit + units[i];
            }
        }
        return bytes + (bytes == 1 ? " byte" : " bytes");
    }

    /** @return e.g. {@code fixed, 2 segments} or {@code by events/s: 100 per segment, scale factor 2, min 1 segment} */
    static String scaling(ScalingPolicy policy) {
        String segments = policy.minNumSegments() + (policy.minNumSegments() == 1 ? " segment" : " segments");
        return switch (policy.type()) {
            case FIXED_NUM_SEGMENTS -> "fixed, " + segments;
            case BY_RATE_IN_EVENTS_PER_SEC -> "by events/s: " + policy.targetRate() + " events/s per segment, "
                    + "scale factor " + policy.scaleFactor() + ", at least " + segments;
            case BY_RATE_IN_KBYTES_PER_SEC -> "by KiB/s: " + policy.targetRate() + " KiB/s per segment, "
                    + "scale factor " + policy.scaleFactor() + ", at least " + segments;
        };
    }

    /** @return e.g. {@code none}, {@code time: keep at least 7d}, {@code size: keep at least 1G, at most 2G} */
    static String retention(RetentionPolicy policy) {
        return switch (policy.type()) {
            case NONE -> "none";
            case TIME -> "time: keep at least " + duration(policy.param())
                    + (policy.max() == Long.MAX_VALUE ? "" : ", at most " + duration(policy.max()));
            case SIZE -> "size: keep at least " + bytes(policy.param())
                    + (policy.max() == Long.MAX_VALUE ? "" : ", at most " + bytes(policy.max()));
        };
    }

    /** @return the tags separated by ", ", or {@code (none)} */
    static String tags(StreamConfiguration config) {
        return config.tags().isEmpty() ? "(none)" : String.join(", ", config.tags());
    }

    // ---- JSON output (values for JsonWriter) ----

    /** @return the configuration as a JSON object, with the controller API's names */
    static Map<String, Object> json(StreamConfiguration config) {
        Map<String, Object> scaling = new LinkedHashMap<>();
        scaling.put("type", config.scalingPolicy().type().name());
        scaling.put("targetRate", config.scalingPolicy().targetRate());
        scaling.put("scaleFactor", config.scalingPolicy().scaleFactor());
        scaling.put("minNumSegments", config.scalingPolicy().minNumSegments());
        Map<String, Object> retention = new LinkedHashMap<>();
        retention.put("type", config.retentionPolicy().type().name());
        retention.put("param", config.retentionPolicy().param());
        retention.put("max", config.retentionPolicy().max());
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("scalingPolicy", scaling);
        json.put("retentionPolicy", retention);
        json.put("tags", List.copyOf(config.tags()));
        json.put("timestampAggregationTimeoutMillis", config.timestampAggregationTimeout().toMillis());
        json.put("rolloverSizeBytes", config.rolloverSizeBytes());
        return json;
    }

    /** @return the segment as a JSON object: name, id, number, epoch */
    static Map<String, Object> json(Segment segment) {
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("segment", shortName(segment));
        json.put("id", segment.segmentId());
        json.put("number", segment.number());
        json.put("epoch", segment.epoch());
        return json;
    }

    /** @return the segment with its key range as a JSON object */
    static Map<String, Object> json(SegmentWithRange range) {
        Map<String, Object> json = json(range.segment());
        json.put("low", range.low());
        json.put("high", range.high());
        return json;
    }

    /** @return the cut as a JSON array of segment objects with an {@code offset} */
    static List<Object> json(StreamCut cut) {
        List<Object> json = new ArrayList<>();
        cut.positions().forEach((segment, offset) -> {
            Map<String, Object> position = json(segment);
            position.put("offset", offset);
            json.add(position);
        });
        return json;
    }
}
