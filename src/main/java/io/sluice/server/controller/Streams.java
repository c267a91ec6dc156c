package io.sluice.server.controller;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.function.Predicate;

import io.sluice.controller.grpc.v1.CreateStreamStatus;
import io.sluice.controller.grpc.v1.DeleteStreamStatus;
import io.sluice.controller.grpc.v1.StreamConfig;
import io.sluice.controller.grpc.v1.UpdateStreamStatus;
import io.sluice.server.controller.ControllerModel.ScopeMeta;
import io.sluice.server.controller.Journal.Decision;

import static io.sluice.server.controller.ControllerContext.requireStream;
import static io.sluice.server.controller.ControllerContext.streamKey;

/**
 * The lifecycle of streams: create (with the stream's watermark stream {@code _MARK<stream>}), update, seal, delete,
 * and the read-only questions about one (exists, configuration, listing). Each change runs on the stream's key;
 * the {@code ...Internal} and {@code finish...} steps are for callers already on it (scope and reader group
 * deletion, recovery). Thread-safe.
 */
final class Streams {
    private final ControllerContext ctx;
    private final Journal journal;
    private final SegmentAdmin admin;
    private final Scaling scaling;
    private final TxnCompletion completion;

    Streams(ControllerContext ctx, Scaling scaling, TxnCompletion completion) {
        this.ctx = ctx;
        this.journal = ctx.journal();
        this.admin = ctx.admin();
        this.scaling = scaling;
        this.completion = completion;
    }

    CreateStreamStatus.Status createStream(String scope, String stream, StreamConfig requested) {
        if (!Names.isValidStreamOrScopeName(stream)) {
            return CreateStreamStatus.Status.INVALID_STREAM_NAME;
        }
        Protos.checkStreamConfig(scope, stream, requested);
        StreamConfig config = Protos.normalize(scope, stream, requested);
        return ctx.onKey(streamKey(scope, stream), () -> {
            CreateStreamStatus.Status status = journal.write(m -> {
                if (m.liveScope(scope) == null) {
                    return Decision.of(CreateStreamStatus.Status.SCOPE_NOT_FOUND);
                }
                StreamMeta existing = m.stream(scope, stream);
                if (existing != null) {
                    return Decision.of(existing.state == StreamMeta.State.CREATING
                            ? CreateStreamStatus.Status.SUCCESS : CreateStreamStatus.Status.STREAM_EXISTS);
                }
                return new Decision<>(CreateStreamStatus.Status.SUCCESS,
                        streamCreationEvents(m, scope, stream, config, ctx.clock().millis()));
            });
            if (status == CreateStreamStatus.Status.SUCCESS) {
                finishStreamCreation(scope, stream);
            }
            return status;
        });
    }

    /** The events that register a stream and, unless it is a watermark stream, its watermark stream. */
    static List<ControllerEvent> streamCreationEvents(ControllerModel m, String scope, String stream,
                                                      StreamConfig config, long now) {
        List<ControllerEvent> events = new ArrayList<>();
        events.add(new ControllerEvent.StreamCreating(scope, stream, config, now, false));
        String mark = Names.markStream(stream);
        if (m.stream(scope, mark) == null) {
            events.add(new ControllerEvent.StreamCreating(scope, mark, Protos.internalStreamConfig(scope, mark, 0),
                    now, true));
        }
        return events;
    }

    /** Creates the epoch-0 segments of a stream (and of its watermark stream) that is still being created. */
    void finishStreamCreation(String scope, String stream) {
        activate(scope, stream);
        activate(scope, Names.markStream(stream));
    }

    /** Finishes creating a stream after a restart, registering its watermark stream if that was not logged. */
    void resumeStreamCreation(String scope, String stream) {
        journal.write(m -> {
            StreamMeta s = m.stream(scope, stream);
            String mark = Names.markStream(stream);
            if (s == null || s.markStream || m.stream(scope, mark) != null) {
                return Decision.of(null);
            }
            return Decision.of(null, new ControllerEvent.StreamCreating(scope, mark,
                    Protos.internalStreamConfig(scope, mark, 0), s.creationTime, true));
        });
        boolean markStream = journal.read(m -> m.stream(scope, stream) != null && m.stream(scope, stream).markStream);
        if (markStream) {
            activate(scope, stream);
        } else {
            finishStreamCreation(scope, stream);
        }
    }

    private void activate(String scope, String stream) {
        record Plan(List<SegmentRecord> segments, StreamConfig config) {
        }
        Plan plan = journal.read(m -> {
            StreamMeta s = m.stream(scope, stream);
            return s == null || s.state != StreamMeta.State.CREATING ? null
                    : new Plan(s.epochs.getFirst().segments(), s.config);
        });
        if (plan == null) {
            return;
        }
        for (SegmentRecord segment : plan.segments()) {
            ctx.createStreamSegment(Names.segmentName(scope, stream, segment.id()), plan.config());
        }
        journal.write(m -> {
            StreamMeta s = m.stream(scope, stream);
            return s != null && s.state == StreamMeta.State.CREATING
                    ? Decision.of(null, new ControllerEvent.StreamActivated(scope, stream)) : Decision.of(null);
        });
    }

    boolean streamExists(String scope, String stream) {
        return journal.read(m -> m.stream(scope, stream) != null);
    }

    StreamConfig streamConfig(String scope, String stream) {
        return journal.read(m -> requireStream(m, scope, stream).config);
    }

    /** @return one page of stream names, or null if the scope does not exist */
    ControllerCore.Page listStreams(String scope, String token, String tag, Predicate<String> filter) {
        return journal.read(m -> {
            ScopeMeta s = m.scope(scope);
            if (s == null) {
                return null;
            }
            List<String> names = new ArrayList<>();
            for (StreamMeta stream : s.streams.values()) {
                if (tag == null || stream.config.getTags().getTagList().contains(tag)) {
                    names.add(stream.name);
                }
            }
            return ctx.page(names, token, filter);
        });
    }

    UpdateStreamStatus.Status updateStream(String scope, String stream, StreamConfig requested) {
        Protos.checkStreamConfig(scope, stream, requested);
        StreamConfig config = Protos.normalize(scope, stream, requested);
        return ctx.onKey(streamKey(scope, stream), () -> {
            UpdateStreamStatus.Status status = journal.write(m -> {
                StreamMeta s = m.stream(scope, stream);
                if (s == null) {
                    return Decision.of(UpdateStreamStatus.Status.STREAM_NOT_FOUND);
                }
                if (s.state == StreamMeta.State.SEALED || s.state == StreamMeta.State.SEALING) {
                    return Decision.of(UpdateStreamStatus.Status.STREAM_SEALED);
                }
                if (s.state != StreamMeta.State.ACTIVE) {
                    return Decision.of(UpdateStreamStatus.Status.FAILURE);
                }
                return Decision.of(UpdateStreamStatus.Status.SUCCESS,
                        new ControllerEvent.StreamUpdated(scope, stream, config));
            });
            if (status == UpdateStreamStatus.Status.SUCCESS) {
                scaling.rescaleToMinimum(scope, stream);
            }
            return status;
        });
    }

    UpdateStreamStatus.Status sealStream(String scope, String stream) {
        return ctx.onKey(streamKey(scope, stream), () -> sealInternal(scope, stream));
    }

    /**
     * Seals a stream: finishes committing transactions, aborts open ones, seals the active segments. Runs on the
     * stream's key.
     */
    UpdateStreamStatus.Status sealInternal(String scope, String stream) {
        UpdateStreamStatus.Status status = journal.write(m -> {
            StreamMeta s = m.stream(scope, stream);
            if (s == null) {
                return Decision.of(UpdateStreamStatus.Status.STREAM_NOT_FOUND);
            }
            return switch (s.state) {
                case SEALED -> Decision.of(UpdateStreamStatus.Status.SUCCESS);
                case SEALING -> Decision.of(null);
                case ACTIVE -> Decision.of(null, new ControllerEvent.StreamSealing(scope, stream));
                case CREATING, DELETING -> Decision.of(UpdateStreamStatus.Status.FAILURE);
            };
        });
        if (status != null) {
            return status;
        }
        completion.processCommits(scope, stream);
        List<UUID> open = journal.write(m -> {
            StreamMeta s = m.stream(scope, stream);
            List<UUID> ids = new ArrayList<>();
            List<ControllerEvent> events = new ArrayList<>();
            for (TxnRecord t : s.txns.values()) {
                if (t.state() == TxnPhase.OPEN || t.state() == TxnPhase.ABORTING) {
                    ids.add(t.id());
                    if (t.state() == TxnPhase.OPEN) {
                        events.add(new ControllerEvent.TxnAborting(scope, stream, t.id()));
                    }
                }
            }
            return new Decision<>(ids, events);
        });
        if (!open.isEmpty()) {
            completion.processAborts(scope, stream);
        }
        List<SegmentRecord> active = journal.read(m -> m.stream(scope, stream).activeEpoch().segments());
        for (SegmentRecord segment : active) {
            ctx.sealSegment(Names.segmentName(scope, stream, segment.id()));
        }
        journal.write(m -> Decision.of(null, new ControllerEvent.StreamSealed(scope, stream)));
        return UpdateStreamStatus.Status.SUCCESS;
    }

    DeleteStreamStatus.Status deleteStream(String scope, String stream) {
        return ctx.onKey(streamKey(scope, stream), () -> deleteInternal(scope, stream));
    }

    /**
     * Deletes a sealed stream: all its segments, its watermark stream, its metadata (segment numbers stay used).
     * Runs on the stream's key.
     */
    DeleteStreamStatus.Status deleteInternal(String scope, String stream) {
        record Start(DeleteStreamStatus.Status refused, boolean markStream) {
        }
        Start start = journal.write(m -> {
            StreamMeta s = m.stream(scope, stream);
            if (s == null) {
                return Decision.of(new Start(DeleteStreamStatus.Status.STREAM_NOT_FOUND, false));
            }
            return switch (s.state) {
                case SEALED, CREATING -> Decision.of(new Start(null, s.markStream),
                        new ControllerEvent.StreamDeleting(scope, stream));
                case DELETING -> Decision.of(new Start(null, s.markStream));
                case ACTIVE, SEALING -> Decision.of(new Start(DeleteStreamStatus.Status.STREAM_NOT_SEALED, false));
            };
        });
        if (start.refused() != null) {
            return start.refused();
        }
        String mark = Names.markStream(stream);
        boolean hasMark = !start.markStream() && journal.write(m -> {
            StreamMeta s = m.stream(scope, mark);
            if (s == null) {
                return Decision.of(false);
            }
            return s.state == StreamMeta.State.DELETING ? Decision.of(true)
                    : Decision.of(true, new ControllerEvent.StreamDeleting(scope, mark));
        });
        if (hasMark) {
            removeStream(scope, mark);
        }
        removeStream(scope, stream);
        return DeleteStreamStatus.Status.SUCCESS;
    }

    private void removeStream(String scope, String stream) {
        Set<Long> segments = journal.read(m -> new HashSet<>(m.stream(scope, stream).liveSegmentIds()));
        for (long id : segments) {
            admin.deleteSegment(Names.segmentName(scope, stream, id));
        }
        journal.write(m -> Decision.of(null, new ControllerEvent.StreamDeleted(scope, stream)));
    }
}
