package io.sluice.server.controller;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import io.sluice.controller.grpc.v1.CreateReaderGroupResponse;
import io.sluice.controller.grpc.v1.DeleteReaderGroupStatus;
import io.sluice.controller.grpc.v1.ReaderGroupConfigResponse;
import io.sluice.controller.grpc.v1.ReaderGroupConfiguration;
import io.sluice.controller.grpc.v1.SubscribersResponse;
import io.sluice.controller.grpc.v1.UpdateReaderGroupResponse;
import io.sluice.controller.grpc.v1.UpdateStreamStatus;
import io.sluice.controller.grpc.v1.UpdateSubscriberStatus;
import io.sluice.server.controller.ControllerModel.ReaderGroupMeta;
import io.sluice.server.controller.Journal.Decision;
import io.sluice.server.controller.StreamMeta.SubscriberRecord;

import static io.sluice.server.controller.ControllerContext.readerGroupKey;

/**
 * Reader groups (each with its state stream {@code _RG<group>}, created and deleted with it) and the subscribers
 * of streams: the reader groups whose stream cuts count for consumption-based retention. Changes to a group run on
 * its key, which is its state stream's. Thread-safe.
 */
final class ReaderGroups {
    private static final UUID ZERO_UUID = new UUID(0, 0);

    private final ControllerContext ctx;
    private final Journal journal;
    private final Streams streams;

    ReaderGroups(ControllerContext ctx, Streams streams) {
        this.ctx = ctx;
        this.journal = ctx.journal();
        this.streams = streams;
    }

    CreateReaderGroupResponse createReaderGroup(ReaderGroupConfiguration requested) {
        String scope = requested.getScope();
        String name = requested.getReaderGroupName();
        if (!Names.isValidUserName(name)) {
            return CreateReaderGroupResponse.newBuilder()
                    .setStatus(CreateReaderGroupResponse.Status.INVALID_RG_NAME).build();
        }
        UUID id;
        long generation;
        UUID given = parseReaderGroupId(requested.getReaderGroupId());
        if (given == null || given.equals(ZERO_UUID)) {
            id = UUID.randomUUID();
            generation = 0;
        } else {
            id = given;
            generation = requested.getGeneration();
        }
        ReaderGroupConfiguration config = requested.toBuilder().setScope(scope).setReaderGroupName(name)
                .setReaderGroupId(id.toString()).setGeneration(generation).build();
        String rgStream = Names.readerGroupStream(name);
        return ctx.onKey(readerGroupKey(scope, name), () -> {
            CreateReaderGroupResponse answer = journal.write(m -> {
                if (m.liveScope(scope) == null) {
                    return Decision.of(CreateReaderGroupResponse.newBuilder()
                            .setStatus(CreateReaderGroupResponse.Status.SCOPE_NOT_FOUND).build());
                }
                ReaderGroupMeta existing = m.readerGroup(scope, name);
                if (existing != null) {
                    return Decision.of(existing.deleting
                            ? CreateReaderGroupResponse.newBuilder()
                                    .setStatus(CreateReaderGroupResponse.Status.FAILURE).build()
                            : CreateReaderGroupResponse.newBuilder()
                                    .setStatus(CreateReaderGroupResponse.Status.SUCCESS)
                                    .setConfig(existing.config).build());
                }
                long now = ctx.clock().millis();
                List<ControllerEvent> events = new ArrayList<>();
                events.add(new ControllerEvent.ReaderGroupCreated(scope, name, config, now));
                if (m.stream(scope, rgStream) == null) {
                    events.addAll(Streams.streamCreationEvents(m, scope, rgStream, Protos.internalStreamConfig(scope,
                            rgStream, Protos.READER_GROUP_ROLLOVER_BYTES), now));
                }
                return new Decision<>(CreateReaderGroupResponse.newBuilder()
                        .setStatus(CreateReaderGroupResponse.Status.SUCCESS).setConfig(config).build(), events);
            });
            if (answer.getStatus() == CreateReaderGroupResponse.Status.SUCCESS) {
                streams.finishStreamCreation(scope, rgStream);
            }
            return answer;
        });
    }

    private static UUID parseReaderGroupId(String id) {
        if (id.isEmpty()) {
            return null;
        }
        try {
            return UUID.fromString(id);
        } catch (IllegalArgumentException e) {
            throw Protos.invalid("readerGroupId is not a UUID: '" + id + "'");
        }
    }

    ReaderGroupConfigResponse readerGroupConfig(String scope, String name) {
        return journal.read(m -> {
            ReaderGroupMeta rg = m.readerGroup(scope, name);
            if (rg == null) {
                return ReaderGroupConfigResponse.newBuilder()
                        .setConfig(ReaderGroupConfiguration.getDefaultInstance())
                        .setStatus(ReaderGroupConfigResponse.Status.RG_NOT_FOUND).build();
            }
            return ReaderGroupConfigResponse.newBuilder().setConfig(rg.config)
                    .setStatus(ReaderGroupConfigResponse.Status.SUCCESS).build();
        });
    }

    UpdateReaderGroupResponse updateReaderGroup(ReaderGroupConfiguration requested) {
        String scope = requested.getScope();
        String name = requested.getReaderGroupName();
        return ctx.onKey(readerGroupKey(scope, name), () -> journal.write(m -> {
            ReaderGroupMeta rg = m.readerGroup(scope, name);
            if (rg == null || rg.deleting) {
                return Decision.of(updateAnswer(UpdateReaderGroupResponse.Status.RG_NOT_FOUND,
                        requested.getGeneration()));
            }
            if (rg.config.getGeneration() != requested.getGeneration()
                    || !rg.config.getReaderGroupId().equals(requested.getReaderGroupId())) {
                return Decision.of(updateAnswer(UpdateReaderGroupResponse.Status.INVALID_CONFIG,
                        requested.getGeneration()));
            }
            long generation = requested.getGeneration() + 1;
            ReaderGroupConfiguration config = requested.toBuilder().setGeneration(generation).build();
            return Decision.of(updateAnswer(UpdateReaderGroupResponse.Status.SUCCESS, generation),
                    new ControllerEvent.ReaderGroupUpdated(scope, name, config));
        }));
    }

    private static UpdateReaderGroupResponse updateAnswer(UpdateReaderGroupResponse.Status status, long generation) {
        return UpdateReaderGroupResponse.newBuilder().setStatus(status).setGeneration(generation).build();
    }

    /**
     * @param readerGroupId must match the group's id; empty matches any
     */
    DeleteReaderGroupStatus.Status deleteReaderGroup(String scope, String name, String readerGroupId) {
        return ctx.onKey(readerGroupKey(scope, name), () -> finishReaderGroupDeletion(scope, name, readerGroupId));
    }

    /** Deletes a reader group and its state stream (also after a restart). Runs on the group's key. */
    DeleteReaderGroupStatus.Status finishReaderGroupDeletion(String scope, String name, String readerGroupId) {
        DeleteReaderGroupStatus.Status refused = journal.write(m -> {
            ReaderGroupMeta rg = m.readerGroup(scope, name);
            if (rg == null || (!readerGroupId.isEmpty() && !rg.config.getReaderGroupId().equals(readerGroupId))) {
                return Decision.of(DeleteReaderGroupStatus.Status.RG_NOT_FOUND);
            }
            return rg.deleting ? Decision.of(null)
                    : Decision.of(null, new ControllerEvent.ReaderGroupDeleting(scope, name));
        });
        if (refused != null) {
            return refused;
        }
        String rgStream = Names.readerGroupStream(name);
        if (streams.sealInternal(scope, rgStream) != UpdateStreamStatus.Status.STREAM_NOT_FOUND) {
            streams.deleteInternal(scope, rgStream);
        }
        journal.write(m -> Decision.of(null, new ControllerEvent.ReaderGroupDeleted(scope, name)));
        return DeleteReaderGroupStatus.Status.SUCCESS;
    }

    // ---------------------------------------------------------------- subscribers

    SubscribersResponse listSubscribers(String scope, String stream) {
        return journal.read(m -> {
            StreamMeta s = m.stream(scope, stream);
            if (s == null) {
                return SubscribersResponse.newBuilder().setStatus(SubscribersResponse.Status.STREAM_NOT_FOUND).build();
            }
            return SubscribersResponse.newBuilder().setStatus(SubscribersResponse.Status.SUCCESS)
                    .addAllSubscribers(s.subscribers.keySet()).build();
        });
    }

    UpdateSubscriberStatus.Status updateSubscriberStreamCut(String scope, String stream, String subscriber,
                                                            String readerGroupId, long generation,
                                                            Map<Long, Long> streamCut) {
        return journal.write(m -> {
            StreamMeta s = m.stream(scope, stream);
            if (s == null) {
                return Decision.of(UpdateSubscriberStatus.Status.STREAM_NOT_FOUND);
            }
            SubscriberRecord record = s.subscribers.get(subscriber);
            int slash = subscriber.indexOf('/');
            ReaderGroupMeta rg = slash < 0 ? null
                    : m.readerGroup(subscriber.substring(0, slash), subscriber.substring(slash + 1));
            if (record == null || rg == null || !rg.config.getReaderGroupId().equals(readerGroupId)) {
                return Decision.of(UpdateSubscriberStatus.Status.SUBSCRIBER_NOT_FOUND);
            }
            if (record.generation() != generation) {
                return Decision.of(UpdateSubscriberStatus.Status.GENERATION_MISMATCH);
            }
            boolean valid = s.isValidStreamCut(streamCut) && (record.streamCut().isEmpty()
                    || s.equalOrAfter(streamCut, s.span(streamCut), record.streamCut(), s.span(record.streamCut())));
            if (!valid) {
                return Decision.of(UpdateSubscriberStatus.Status.STREAM_CUT_NOT_VALID);
            }
            return Decision.of(UpdateSubscriberStatus.Status.SUCCESS, new ControllerEvent.SubscriberStreamCutUpdated(
                    scope, stream, subscriber, generation, streamCut, ctx.clock().millis()));
        });
    }
}
