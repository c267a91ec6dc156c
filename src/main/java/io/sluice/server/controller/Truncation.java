package io.sluice.server.controller;

import java.util.Map;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.sluice.controller.grpc.v1.UpdateStreamStatus;
import io.sluice.errors.NoSuchSegmentException;
import io.sluice.server.controller.Journal.Decision;
import io.sluice.server.controller.StreamMeta.TruncationRecord;

import static io.sluice.server.controller.ControllerContext.requireStream;
import static io.sluice.server.controller.ControllerContext.streamKey;

/**
 * Truncating streams at a stream cut, and the head (truncation point) they have. A truncation truncates the cut's
 * segments and deletes the segments wholly before it; it runs on the stream's key. Thread-safe.
 */
final class Truncation {
    private static final Logger LOG = LoggerFactory.getLogger(Truncation.class);

    private final ControllerContext ctx;
    private final Journal journal;
    private final SegmentAdmin admin;

    Truncation(ControllerContext ctx) {
        this.ctx = ctx;
        this.journal = ctx.journal();
        this.admin = ctx.admin();
    }

    UpdateStreamStatus.Status truncateStream(String scope, String stream, Map<Long, Long> streamCut) {
        return ctx.onKey(streamKey(scope, stream), () -> {
            record Check(UpdateStreamStatus.Status status, TruncationRecord plan) {
            }
            Check check = journal.read(m -> {
                StreamMeta s = m.stream(scope, stream);
                if (s == null) {
                    return new Check(UpdateStreamStatus.Status.STREAM_NOT_FOUND, null);
                }
                if (s.state == StreamMeta.State.SEALED || s.state == StreamMeta.State.SEALING) {
                    return new Check(UpdateStreamStatus.Status.STREAM_SEALED, null);
                }
                if (s.state != StreamMeta.State.ACTIVE) {
                    return new Check(UpdateStreamStatus.Status.FAILURE, null);
                }
                TruncationRecord plan = s.planTruncation(streamCut);
                return new Check(plan == null ? UpdateStreamStatus.Status.FAILURE : null, plan);
            });
            if (check.status() != null) {
                return check.status();
            }
            // Check the offsets against the segments before logging anything: a truncation that cannot complete
            // must not be started.
            for (Map.Entry<Long, Long> entry : streamCut.entrySet()) {
                if (entry.getValue() <= 0) {
                    continue;
                }
                var info = admin.segmentInfo(Names.segmentName(scope, stream, entry.getKey()));
                if (info.isEmpty() || info.get().length() < entry.getValue()) {
                    LOG.warn("cannot truncate {}/{} at {}: offset beyond segment {}", scope, stream, streamCut,
                            entry.getKey());
                    return UpdateStreamStatus.Status.FAILURE;
                }
            }
            journal.write(m -> Decision.of(null, new ControllerEvent.TruncationStarted(scope, stream, streamCut)));
            finishTruncation(scope, stream);
            return UpdateStreamStatus.Status.SUCCESS;
        });
    }

    /** Carries a started truncation to its end (also after a restart). Runs on the stream's key. */
    void finishTruncation(String scope, String stream) {
        TruncationRecord pending = journal.read(m -> m.stream(scope, stream).pendingTruncation);
        if (pending == null) {
            return;
        }
        for (Map.Entry<Long, Long> entry : pending.streamCut().entrySet()) {
            if (entry.getValue() > 0) {
                String name = Names.segmentName(scope, stream, entry.getKey());
                try {
                    admin.truncateSegment(name, entry.getValue());
                } catch (NoSuchSegmentException e) {
                    LOG.warn("truncating {}: segment {} is gone", Names.scoped(scope, stream), name);
                }
            }
        }
        for (long id : pending.toDelete()) {
            admin.deleteSegment(Names.segmentName(scope, stream, id));
        }
        journal.write(m -> Decision.of(null, new ControllerEvent.TruncationCompleted(scope, stream)));
    }

    /** @return segment id to offset at the head of the stream (its truncation point) */
    Map<Long, Long> head(String scope, String stream) {
        return journal.read(m -> requireStream(m, scope, stream).head());
    }
}
