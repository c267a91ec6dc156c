package io.sluice.server.controller;

import java.util.Map;

import io.sluice.controller.grpc.v1.RemoveWriterResponse;
import io.sluice.controller.grpc.v1.TimestampResponse;
import io.sluice.server.controller.Journal.Decision;
import io.sluice.server.controller.StreamMeta.WriterMark;

import static io.sluice.server.controller.ControllerContext.requireStream;

/**
 * Writers' marks, the input of watermarking: {@code noteTimestampFromWriter} (and each committed transaction that
 * names its writer) records a writer's time and position; {@code removeWriter} marks a writer shut down.
 * {@link Watermarks} turns the marks into watermarks. Thread-safe.
 */
final class WriterMarks {
    private final Journal journal;

    WriterMarks(ControllerContext ctx) {
        this.journal = ctx.journal();
    }

    TimestampResponse.Status noteTimestampFromWriter(String scope, String stream, String writer, long timestamp,
                                                     Map<Long, Long> position) {
        return journal.write(m -> {
            StreamMeta s = requireStream(m, scope, stream);
            WriterMark mark = s.writers.get(writer);
            if (mark != null) {
                if (mark.timestamp() > timestamp) {
                    return Decision.of(TimestampResponse.Status.INVALID_TIME);
                }
                if (!positionAdvances(mark.position(), position)) {
                    return Decision.of(TimestampResponse.Status.INVALID_POSITION);
                }
            }
            return Decision.of(TimestampResponse.Status.SUCCESS,
                    new ControllerEvent.WriterMarkNoted(scope, stream, writer, timestamp, position));
        });
    }

    /** Pravega's {@code compareWriterPositions}: is position 2 at or after position 1? (A cheap approximation.) */
    static boolean positionAdvances(Map<Long, Long> position1, Map<Long, Long> position2) {
        long max2 = position2.keySet().stream().filter(position1::containsKey).max(Long::compare)
                .orElse(Long.MIN_VALUE);
        long max1 = position1.keySet().stream().filter(position2::containsKey).max(Long::compare)
                .orElse(Long.MIN_VALUE);
        if (max2 < max1) {
            return false;
        }
        return position2.entrySet().stream().filter(e -> position1.containsKey(e.getKey()))
                .allMatch(e -> e.getValue() >= position1.get(e.getKey()));
    }

    RemoveWriterResponse.Status removeWriter(String scope, String stream, String writer) {
        return journal.write(m -> {
            StreamMeta s = m.stream(scope, stream);
            if (s == null || !s.writers.containsKey(writer)) {
                return Decision.of(RemoveWriterResponse.Status.UNKNOWN_WRITER);
            }
            // as Pravega's shutdownWriter: the mark stays, no longer alive, until a watermark pass drops it
            return Decision.of(RemoveWriterResponse.Status.SUCCESS,
                    new ControllerEvent.WriterShutDown(scope, stream, writer));
        });
    }
}
