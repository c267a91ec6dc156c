package io.sluice.server.controller;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;

import io.sluice.controller.grpc.v1.KeyValueTableConfig;
import io.sluice.controller.grpc.v1.ReaderGroupConfiguration;
import io.sluice.controller.grpc.v1.StreamConfig;

/**
 * One change to the controller's metadata. The controller's state is exactly what you get by applying its events, in
 * order, to an empty model; events carry every input that is not a pure function of the state (times, ids,
 * configurations), so replaying them after a restart rebuilds the same state. {@link ControllerEventCodec} turns
 * them into bytes and back.
 *
 * <p>Multi-step operations are logged as a start event and a completion event (for example {@link ScaleStarted},
 * {@link ScaleEpochCreated}, {@link ScaleCompleted}); segment store calls happen between them and are idempotent,
 * so after a crash the controller finishes what a start event began.
 *
 * <p>All records are immutable values; maps and lists are copied.
 */
public sealed interface ControllerEvent {

    /** A key range {@code [start, end)} inside {@code [0, 1]}. */
    record KeyRange(double start, double end) {
    }

    /** A scope was created. */
    record ScopeCreated(String scope) implements ControllerEvent {
        /** Checks the fields. */
        public ScopeCreated {
            Objects.requireNonNull(scope, "scope");
        }
    }

    /** A recursive scope deletion began: the scope accepts no new streams, reader groups or tables. */
    record ScopeDeleting(String scope) implements ControllerEvent {
        /** Checks the fields. */
        public ScopeDeleting {
            Objects.requireNonNull(scope, "scope");
        }
    }

    /** A scope was deleted. */
    record ScopeDeleted(String scope) implements ControllerEvent {
        /** Checks the fields. */
        public ScopeDeleted {
            Objects.requireNonNull(scope, "scope");
        }
    }

    /**
     * A stream was registered; its epoch-0 segments are being created.
     *
     * @param config the configuration (its StreamInfo is ignored)
     * @param markStream whether this is a watermark stream (which gets no watermark stream of its own)
     */
    record StreamCreating(String scope, String stream, StreamConfig config, long creationTime, boolean markStream)
            implements ControllerEvent {
        /** Checks the fields. */
        public StreamCreating {
            Objects.requireNonNull(scope, "scope");
            Objects.requireNonNull(stream, "stream");
            Objects.requireNonNull(config, "config");
        }
    }

    /** A stream's segments exist; it is active. */
    record StreamActivated(String scope, String stream) implements ControllerEvent {
        /** Checks the fields. */
        public StreamActivated {
            Objects.requireNonNull(scope, "scope");
            Objects.requireNonNull(stream, "stream");
        }
    }

    /** A stream's configuration was replaced. */
    record StreamUpdated(String scope, String stream, StreamConfig config) implements ControllerEvent {
        /** Checks the fields. */
        public StreamUpdated {
            Objects.requireNonNull(scope, "scope");
            Objects.requireNonNull(stream, "stream");
            Objects.requireNonNull(config, "config");
        }
    }

    /**
     * A scale began: the model computes the new segments (numbers after the highest so far, new epoch).
     *
     * @param sealedSegments ids of the active segments to seal
     * @param newRanges key ranges of the new segments, in the order their numbers are assigned
     * @param timestamp the scale's time (epoch creation time)
     */
    record ScaleStarted(String scope, String stream, List<Long> sealedSegments, List<KeyRange> newRanges,
                        long timestamp) implements ControllerEvent {
        /** Checks and copies the fields. */
        public ScaleStarted {
            Objects.requireNonNull(scope, "scope");
            Objects.requireNonNull(stream, "stream");
            sealedSegments = List.copyOf(sealedSegments);
            newRanges = List.copyOf(newRanges);
        }
    }

    /** A scale's new segments exist: the new epoch is active. The old segments are being sealed. */
    record ScaleEpochCreated(String scope, String stream) implements ControllerEvent {
        /** Checks the fields. */
        public ScaleEpochCreated {
            Objects.requireNonNull(scope, "scope");
            Objects.requireNonNull(stream, "stream");
        }
    }

    /** A scale's old segments are sealed; the scale is done. */
    record ScaleCompleted(String scope, String stream) implements ControllerEvent {
        /** Checks the fields. */
        public ScaleCompleted {
            Objects.requireNonNull(scope, "scope");
            Objects.requireNonNull(stream, "stream");
        }
    }

    /** Sealing a stream began. */
    record StreamSealing(String scope, String stream) implements ControllerEvent {
        /** Checks the fields. */
        public StreamSealing {
            Objects.requireNonNull(scope, "scope");
            Objects.requireNonNull(stream, "stream");
        }
    }

    /** A stream's active segments are sealed. */
    record StreamSealed(String scope, String stream) implements ControllerEvent {
        /** Checks the fields. */
        public StreamSealed {
            Objects.requireNonNull(scope, "scope");
            Objects.requireNonNull(stream, "stream");
        }
    }

    /** Deleting a stream began. */
    record StreamDeleting(String scope, String stream) implements ControllerEvent {
        /** Checks the fields. */
        public StreamDeleting {
            Objects.requireNonNull(scope, "scope");
            Objects.requireNonNull(stream, "stream");
        }
    }

    /** A stream and its segments are gone; its segment numbers stay used. */
    record StreamDeleted(String scope, String stream) implements ControllerEvent {
        /** Checks the fields. */
        public StreamDeleted {
            Objects.requireNonNull(scope, "scope");
            Objects.requireNonNull(stream, "stream");
        }
    }

    /** Truncation at a (validated) stream cut began: segment id to offset. */
    record TruncationStarted(String scope, String stream, Map<Long, Long> streamCut) implements ControllerEvent {
        /** Checks and copies the fields. */
        public TruncationStarted {
            Objects.requireNonNull(scope, "scope");
            Objects.requireNonNull(stream, "stream");
            streamCut = Map.copyOf(streamCut);
        }
    }

    /** The started truncation is done: segments truncated and deleted; the head moved. */
    record TruncationCompleted(String scope, String stream) implements ControllerEvent {
        /** Checks the fields. */
        public TruncationCompleted {
            Objects.requireNonNull(scope, "scope");
            Objects.requireNonNull(stream, "stream");
        }
    }

    /** A transaction was opened; its epoch is in its id. Times in milliseconds since the epoch. */
    record TxnCreated(String scope, String stream, UUID txnId, long creationTime, long leaseExpiry,
                      long maxExecutionExpiry) implements ControllerEvent {
        /** Checks the fields. */
        public TxnCreated {
            Objects.requireNonNull(scope, "scope");
            Objects.requireNonNull(stream, "stream");
            Objects.requireNonNull(txnId, "txnId");
        }
    }

    /** A transaction's lease was renewed. */
    record TxnPinged(String scope, String stream, UUID txnId, long leaseExpiry) implements ControllerEvent {
        /** Checks the fields. */
        public TxnPinged {
            Objects.requireNonNull(scope, "scope");
            Objects.requireNonNull(stream, "stream");
            Objects.requireNonNull(txnId, "txnId");
        }
    }

    /** Commit of a transaction was requested; the model gives it the stream's next commit order. */
    record TxnCommitting(String scope, String stream, UUID txnId, String writerId, long commitTimestamp)
            implements ControllerEvent {
        /** Checks the fields. */
        public TxnCommitting {
            Objects.requireNonNull(scope, "scope");
            Objects.requireNonNull(stream, "stream");
            Objects.requireNonNull(txnId, "txnId");
            Objects.requireNonNull(writerId, "writerId");
        }
    }

    /** A transaction's segments are merged into the stream. */
    record TxnCommitted(String scope, String stream, UUID txnId, long time) implements ControllerEvent {
        /** Checks the fields. */
        public TxnCommitted {
            Objects.requireNonNull(scope, "scope");
            Objects.requireNonNull(stream, "stream");
            Objects.requireNonNull(txnId, "txnId");
        }
    }

    /** Abort of a transaction began (requested, lease expired, or stream sealing). */
    record TxnAborting(String scope, String stream, UUID txnId) implements ControllerEvent {
        /** Checks the fields. */
        public TxnAborting {
            Objects.requireNonNull(scope, "scope");
            Objects.requireNonNull(stream, "stream");
            Objects.requireNonNull(txnId, "txnId");
        }
    }

    /** A transaction's segments are deleted. */
    record TxnAborted(String scope, String stream, UUID txnId, long time) implements ControllerEvent {
        /** Checks the fields. */
        public TxnAborted {
            Objects.requireNonNull(scope, "scope");
            Objects.requireNonNull(stream, "stream");
            Objects.requireNonNull(txnId, "txnId");
        }
    }

    /**
     * A rolling transaction began: committing transactions of an epoch whose segments were sealed by a scale. The
     * model plans two new epochs: copies of the transactions' epoch (they receive the transactions, then are sealed)
     * and copies of the active epoch (the new active epoch).
     */
    record RollingTxnStarted(String scope, String stream, long time) implements ControllerEvent {
        /** Checks the fields. */
        public RollingTxnStarted {
            Objects.requireNonNull(scope, "scope");
            Objects.requireNonNull(stream, "stream");
        }
    }

    /** The rolling transaction's copy segments exist; its two epochs are in the history. */
    record RollingTxnEpochsCreated(String scope, String stream) implements ControllerEvent {
        /** Checks the fields. */
        public RollingTxnEpochsCreated {
            Objects.requireNonNull(scope, "scope");
            Objects.requireNonNull(stream, "stream");
        }
    }

    /** The rolling transaction is done: transactions merged, copies and old active segments sealed. */
    record RollingTxnCompleted(String scope, String stream) implements ControllerEvent {
        /** Checks the fields. */
        public RollingTxnCompleted {
            Objects.requireNonNull(scope, "scope");
            Objects.requireNonNull(stream, "stream");
        }
    }

    /** A reader group was created with this configuration (id and generation assigned). */
    record ReaderGroupCreated(String scope, String readerGroup, ReaderGroupConfiguration config, long creationTime)
            implements ControllerEvent {
        /** Checks the fields. */
        public ReaderGroupCreated {
            Objects.requireNonNull(scope, "scope");
            Objects.requireNonNull(readerGroup, "readerGroup");
            Objects.requireNonNull(config, "config");
        }
    }

    /** A reader group's configuration was replaced (its generation bumped). */
    record ReaderGroupUpdated(String scope, String readerGroup, ReaderGroupConfiguration config)
            implements ControllerEvent {
        /** Checks the fields. */
        public ReaderGroupUpdated {
            Objects.requireNonNull(scope, "scope");
            Objects.requireNonNull(readerGroup, "readerGroup");
            Objects.requireNonNull(config, "config");
        }
    }

    /** Deleting a reader group began. */
    record ReaderGroupDeleting(String scope, String readerGroup) implements ControllerEvent {
        /** Checks the fields. */
        public ReaderGroupDeleting {
            Objects.requireNonNull(scope, "scope");
            Objects.requireNonNull(readerGroup, "readerGroup");
        }
    }

    /** A reader group is gone (its state stream was deleted before). */
    record ReaderGroupDeleted(String scope, String readerGroup) implements ControllerEvent {
        /** Checks the fields. */
        public ReaderGroupDeleted {
            Objects.requireNonNull(scope, "scope");
            Objects.requireNonNull(readerGroup, "readerGroup");
        }
    }

    /** A subscriber reported how far it has read. */
    record SubscriberStreamCutUpdated(String scope, String stream, String subscriber, long generation,
                                      Map<Long, Long> streamCut, long time) implements ControllerEvent {
        /** Checks and copies the fields. */
        public SubscriberStreamCutUpdated {
            Objects.requireNonNull(scope, "scope");
            Objects.requireNonNull(stream, "stream");
            Objects.requireNonNull(subscriber, "subscriber");
            streamCut = Map.copyOf(streamCut);
        }
    }

    /** A writer noted its time and position (watermarking). */
    record WriterMarkNoted(String scope, String stream, String writer, long timestamp, Map<Long, Long> position)
            implements ControllerEvent {
        /** Checks and copies the fields. */
        public WriterMarkNoted {
            Objects.requireNonNull(scope, "scope");
            Objects.requireNonNull(stream, "stream");
            Objects.requireNonNull(writer, "writer");
            position = Map.copyOf(position);
        }
    }

    /**
     * A writer shut down ({@code removeWriter}): its mark stays, no longer alive, until a watermark pass drops it (as
     * Pravega's {@code shutdownWriter} does).
     */
    record WriterShutDown(String scope, String stream, String writer) implements ControllerEvent {
        /** Checks the fields. */
        public WriterShutDown {
            Objects.requireNonNull(scope, "scope");
            Objects.requireNonNull(stream, "stream");
            Objects.requireNonNull(writer, "writer");
        }
    }

    /** A writer's mark is dropped: it shut down or timed out and counts no more for watermarks. */
    record WriterRemoved(String scope, String stream, String writer) implements ControllerEvent {
        /** Checks the fields. */
        public WriterRemoved {
            Objects.requireNonNull(scope, "scope");
            Objects.requireNonNull(stream, "stream");
            Objects.requireNonNull(writer, "writer");
        }
    }

    /** A key-value table was registered; its table segments are being created. */
    record KvtCreating(String scope, String kvt, KeyValueTableConfig config, UUID id, long creationTime)
            implements ControllerEvent {
        /** Checks the fields. */
        public KvtCreating {
            Objects.requireNonNull(scope, "scope");
            Objects.requireNonNull(kvt, "kvt");
            Objects.requireNonNull(config, "config");
            Objects.requireNonNull(id, "id");
        }
    }

    /** A key-value table's segments exist. */
    record KvtActivated(String scope, String kvt) implements ControllerEvent {
        /** Checks the fields. */
        public KvtActivated {
            Objects.requireNonNull(scope, "scope");
            Objects.requireNonNull(kvt, "kvt");
        }
    }

    /** Deleting a key-value table began. */
    record KvtDeleting(String scope, String kvt) implements ControllerEvent {
        /** Checks the fields. */
        public KvtDeleting {
            Objects.requireNonNull(scope, "scope");
            Objects.requireNonNull(kvt, "kvt");
        }
    }

    /** A key-value table and its segments are gone; its segment numbers stay used. */
    record KvtDeleted(String scope, String kvt) implements ControllerEvent {
        /** Checks the fields. */
        public KvtDeleted {
            Objects.requireNonNull(scope, "scope");
            Objects.requireNonNull(kvt, "kvt");
        }
    }
}
