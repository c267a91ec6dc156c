package io.sluice.client;

import java.util.Map;
import java.util.Objects;
import java.util.Set;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.sluice.controller.ControllerClient;
import io.sluice.stream.ReaderGroupConfig;
import io.sluice.stream.ReaderGroupConfig.StreamDataRetention;
import io.sluice.stream.ScopedStream;
import io.sluice.stream.StreamCut;

/**
 * The client side of consumption-based retention: a subscribed reader group tells the controller how far it has read
 * ({@code updateSubscriberStreamCut}, one call per stream), by hand ({@link StreamDataRetention#MANUAL_RELEASE_AT_USER_STREAMCUT},
 * through {@link io.sluice.admin.ReaderGroup#updateRetentionStreamCut}) or at each completed checkpoint
 * ({@link StreamDataRetention#AUTOMATIC_RELEASE_AT_LAST_CHECKPOINT}, by the reader whose pass completed it), as the
 * official client does. The subscriber's name is {@code scope/group}. See docs/retention.md.
 */
final class RetentionReports {
    private static final Logger LOG = LoggerFactory.getLogger(RetentionReports.class);

    private RetentionReports() {
    }

    /**
     * Reports cuts for a group with manual release.
     *
     * @param streams the streams the group reads
     * @throws UnsupportedOperationException if the group's retention type is not manual release
     * @throws IllegalArgumentException if a cut is for a stream the group does not read, or unbounded
     */
    static void manual(ControllerClient controller, String scope, String group, Set<ScopedStream> streams,
                       Map<ScopedStream, StreamCut> cuts) {
        Objects.requireNonNull(cuts, "cuts");
        for (Map.Entry<ScopedStream, StreamCut> e : cuts.entrySet()) {
            ScopedStream stream = Objects.requireNonNull(e.getKey(), "stream");
            StreamCut cut = Objects.requireNonNull(e.getValue(), () -> "cut of " + stream);
            if (!streams.contains(stream)) {
                throw new IllegalArgumentException("reader group " + scope + "/" + group + " does not read stream "
                        + stream + " (it reads " + streams + ")");
            }
            if (!cut.isFor(stream)) {
                throw new IllegalArgumentException("stream cut " + cut + " does not belong to stream " + stream);
            }
            if (cut.isUnbounded()) {
                throw new IllegalArgumentException("the retention stream cut of " + stream
                        + " must name its segments, not be unbounded");
            }
        }
        ReaderGroupConfig config = controller.readerGroupConfig(scope, group);
        if (config.retentionType() != StreamDataRetention.MANUAL_RELEASE_AT_USER_STREAMCUT) {
            throw new UnsupportedOperationException("reader group " + scope + "/" + group + " has retention type "
                    + config.retentionType() + "; updateRetentionStreamCut needs MANUAL_RELEASE_AT_USER_STREAMCUT");
        }
        send(controller, scope, group, config, cuts);
    }

    /**
     * After a checkpoint completed: reports its cuts if the group releases at checkpoints. Failures are logged, not
     * thrown (the next checkpoint reports again).
     */
    static void checkpointCompleted(ControllerClient controller, String scope, String group, String checkpoint,
                                    Map<ScopedStream, StreamCut> cuts) {
        try {
            ReaderGroupConfig config = controller.readerGroupConfig(scope, group);
            if (config.retentionType() == StreamDataRetention.AUTOMATIC_RELEASE_AT_LAST_CHECKPOINT) {
                send(controller, scope, group, config, cuts);
            }
        } catch (RuntimeException e) {
            LOG.warn("reader group {}/{}: reporting checkpoint {} for retention failed", scope, group, checkpoint, e);
        }
    }

    private static void send(ControllerClient controller, String scope, String group, ReaderGroupConfig config,
                             Map<ScopedStream, StreamCut> cuts) {
        String subscriber = scope + "/" + group;
        cuts.forEach((stream, cut) -> controller.updateSubscriberStreamCut(stream, subscriber, config.readerGroupId(),
                config.generation(), cut));
    }
}
