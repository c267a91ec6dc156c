package io.sluice.client;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;

import io.sluice.auth.AccessOperation;
import io.sluice.segment.DelegationTokenProvider;
import io.sluice.common.Deadline;
import io.sluice.controller.ControllerClient;
import io.sluice.controller.StreamSegments;
import io.sluice.errors.ConnectionFailedException;
import io.sluice.errors.DeadlineExceededException;
import io.sluice.errors.NoSuchStreamException;
import io.sluice.errors.ProtocolException;
import io.sluice.errors.SegmentSealedException;
import io.sluice.readergroup.GroupStateCodec;
import io.sluice.readergroup.GroupUpdate;
import io.sluice.readergroup.ReaderGroupState;
import io.sluice.segment.RevisionedSegment;
import io.sluice.segment.SegmentCalls;
import io.sluice.segment.SegmentFetcher;
import io.sluice.segment.SegmentStores;
import io.sluice.segment.StateSynchronizer;
import io.sluice.stream.ReaderGroupConfig;
import io.sluice.stream.ScopedStream;
import io.sluice.stream.Segment;
import io.sluice.stream.StreamCut;

/**
 * A reader group's shared state as one process sees it: a {@link StateSynchronizer} over the single segment of the
 * group's state stream {@code scope/_RG<group>}, plus a way to wait for others' changes without polling (a long-poll
 * read at the end of the log). Thread-safe; every method but {@link #state()} blocks for I/O.
 */
final class GroupStateClient implements AutoCloseable {
    private static final Duration UPDATE_TIMEOUT = Duration.ofSeconds(60);

    private final String scope;
    private final String group;
    private final Segment segment;
    private final SegmentFetcher changes;
    private final DelegationTokenProvider tokens;
    private final RevisionedSegment log;
    private final StateSynchronizer<ReaderGroupState, GroupUpdate> sync;

    private GroupStateClient(String scope, String group, SegmentStores stores, Segment segment,
                             DelegationTokenProvider tokens) {
        this.scope = scope;
        this.group = group;
        this.segment = segment;
        this.changes = new SegmentFetcher(stores.calls(),
                segment.qualifiedName(), tokens);
        this.tokens = tokens;
        this.log = new RevisionedSegment(segment.qualifiedName(), stores, () -> tokens,
                SegmentCalls.Config.DEFAULT);
        this.sync = new StateSynchronizer<>(log, GroupStateCodec.STATE, GroupStateCodec.UPDATE, ReaderGroupState::apply,
                UPDATE_TIMEOUT);
    }

    /**
     * Opens the state of a group and reads it. If the group is registered with the controller but its state was
     * never written (its creator stopped in between), writes the initial state from the controller's configuration.
     *
     * @throws NoSuchStreamException if there is no such group
     * @throws ProtocolException if the group's state is not in Sluice's format
     */
    static GroupStateClient open(String scope, String group, ControllerClient controller, SegmentStores stores) {
        ScopedStream stateStream = ScopedStream.of(scope, stateStreamName(group));
        StreamSegments segments;
        try {
            segments = controller.currentSegments(stateStream);
        } catch (NoSuchStreamException e) {
            throw new NoSuchStreamException("there is no reader group '" + group + "' in scope '" + scope + "'");
        }
        if (segments.ranges().size() != 1) {
            throw new NoSuchStreamException("reader group '" + scope + "/" + group + "' has no usable state stream ("
                    + segments.ranges().size() + " open segments in " + stateStream + "): is it being deleted?");
        }
        DelegationTokenProvider tokens = DelegationTokenProvider.fromController(controller, stateStream,
                AccessOperation.READ_WRITE);
        tokens.offer(segments.delegationToken());
        GroupStateClient client = new GroupStateClient(scope, group, stores, segments.segments().get(0),
                tokens);
        try {
            if (client.fetch() == null) {
                ReaderGroupConfig config = controller.readerGroupConfig(scope, group);
                client.initialize(initialState(config, controller));
            }
            return client;
        } catch (RuntimeException e) {
            client.close();
            throw e;
        }
    }

    /** @return the name of a group's state stream */
    static String stateStreamName(String group) {
        return "_RG" + group;
    }

    /**
     * Resolves a configuration into the initial state: unbounded starting cuts become the streams' heads.
     * Blocks for the controller calls.
     */
    static ReaderGroupState initialState(ReaderGroupConfig config, ControllerClient controller) {
        TreeMap<ScopedStream, StreamCut> start = new TreeMap<>();
        config.startingStreamCuts().forEach((stream, cut) ->
                start.put(stream, cut.isUnbounded() ? controller.headStreamCut(stream) : cut));
        TreeMap<Segment, Long> end = new TreeMap<>();
        config.endingStreamCuts().values().forEach(cut -> end.putAll(cut.positions()));
        ReaderGroupState.Settings settings = new ReaderGroupState.Settings(start, end, config.groupRefreshTimeMillis(),
                config.automaticCheckpointIntervalMillis(), config.maxOutstandingCheckpointRequest());
        return ReaderGroupState.initial(settings, System.currentTimeMillis());
    }

    /** @return the local copy (no I/O); null before anything was read */
    ReaderGroupState state() {
        return sync.state();
    }

    /** @return the revision the local copy reflects (no I/O) */
    long revision() {
        return sync.revision();
    }

    /** Brings the local copy up to date. @return it (null if the group has no state yet) */
    ReaderGroupState fetch() {
        sync.fetchUpdates();
        return sync.state();
    }

    /** Changes the state with optimistic concurrency; see {@link StateSynchronizer#updateState}. */
    ReaderGroupState update(Function<ReaderGroupState, List<GroupUpdate>> generator) {
        return sync.updateState(generator);
    }

    /** Writes the initial state unless the log has one. @return true if written */
    boolean initialize(ReaderGroupState initial) {
        return sync.initialize(initial);
    }

    /** Writes the full state and truncates the log before it. */
    void compact() {
        sync.compact();
    }

    /**
     * Waits until the log grows beyond the local copy's revision (someone changed the state), up to the deadline:
     * a read at the end of the log, which the segment store answers when data arrives.
     *
     * @return true if something may have changed (fetch to see it), false if the deadline passed first
     * @throws SegmentSealedException if the state stream was sealed (the group is being deleted)
     * @throws io.sluice.errors.SluiceException if the segment store refused the read for another reason
     */
    boolean awaitChange(Deadline deadline) {
        return switch (changes.awaitData(sync.revision(), deadline)) {
            case CHANGED -> true;
            case TIMED_OUT -> false;
            case SEALED -> throw new SegmentSealedException("the state of reader group '" + scope + "/" + group
                    + "' was sealed: the group is being deleted");
        };
    }

    /** @return the positions of a state grouped into stream cuts */
    static Map<ScopedStream, StreamCut> cuts(ReaderGroupState state) {
        return ReaderGroupState.byStream(state.positions());
    }

    @Override
    public void close() {
        log.close();
    }

    @Override
    public String toString() {
        return "GroupState[" + scope + "/" + group + " at " + sync.revision() + "]";
    }
}
