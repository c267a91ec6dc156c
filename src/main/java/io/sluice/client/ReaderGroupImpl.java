package io.sluice.client;

import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicReference;

import io.sluice.admin.ReaderGroup;
import io.sluice.common.ClientMetrics;
import io.sluice.common.Deadline;
import io.sluice.controller.ControllerClient;
import io.sluice.errors.DeadlineExceededException;
import io.sluice.errors.PreconditionFailedException;
import io.sluice.errors.SluiceException;
import io.sluice.readergroup.GroupUpdate;
import io.sluice.readergroup.ReaderGroupState;
import io.sluice.readergroup.ReaderGroupState.CheckpointProgress;
import io.sluice.readergroup.ReaderGroupState.CompletedCheckpoint;
import io.sluice.segment.SegmentStores;
import io.sluice.stream.Checkpoint;
import io.sluice.stream.Position;
import io.sluice.stream.ReaderGroupConfig;
import io.sluice.stream.ScopedStream;
import io.sluice.stream.Segment;
import io.sluice.stream.StreamCut;

/** A reader group seen from one process, over its {@link GroupStateClient}. Thread-safe. */
final class ReaderGroupImpl implements ReaderGroup {
    private final String scope;
    private final String name;
    private final ReaderGroupConfig config;
    private final GroupStateClient state;
    private final ControllerClient controller;
    private final ClientMetrics metrics;
    private final SegmentStores stores;
    /** Unregisters the lag gauge. */
    private final Runnable unregisterLag;

    ReaderGroupImpl(String scope, String name, ReaderGroupConfig config, GroupStateClient state,
                    ControllerClient controller, SegmentStores stores) {
        this.metrics = stores.metrics();
        this.stores = stores;
        this.scope = scope;
        this.name = name;
        this.config = config;
        this.state = state;
        this.controller = controller;
        this.unregisterLag = metrics.readerGroup(scope + "/" + name, this::unreadBytes);
    }

    /**
     * @return the bytes between the group's position ({@link #streamCuts()}) and the tails of its streams, as
     *     Pravega's {@code ReaderGroupMetrics.unreadBytes}: the segments between each cut and the tail (from the
     *     controller), and the length of each open one (from its segment store)
     */
    long unreadBytes() {
        BatchClientImpl batch = new BatchClientImpl(controller, stores);
        long unread = 0;
        for (Map.Entry<ScopedStream, StreamCut> e : streamCuts().entrySet()) {
            for (io.sluice.batch.SegmentRange r : batch.segments(e.getKey(), e.getValue(), StreamCut.UNBOUNDED)) {
                unread += r.length();
            }
        }
        return unread;
    }

    @Override
    public String scope() {
        return scope;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public ReaderGroupConfig config() {
        return config;
    }

    @Override
    public Checkpoint initiateCheckpoint(String checkpoint, Duration timeout) {
        Objects.requireNonNull(checkpoint, "name");
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("the checkpoint timeout must be positive: " + timeout);
        }
        if (checkpoint.isEmpty() || checkpoint.length() > 1024) {
            throw new IllegalArgumentException("checkpoint name must have 1 to 1024 characters: '" + checkpoint + "'");
        }
        Deadline deadline = Deadline.after(timeout);
        long started = System.nanoTime();
        AtomicReference<RuntimeException> refused = new AtomicReference<>();
        ReaderGroupState s = state.update(st -> {
            refused.set(null);
            if (st.checkpointInProgress(checkpoint).isPresent() || st.completedCheckpoint(checkpoint).isPresent()) {
                refused.set(new IllegalArgumentException("reader group " + this.scope + "/" + name
                        + " already has a checkpoint named '" + checkpoint + "'"));
                return List.of();
            }
            if (st.checkpoints().size() >= st.settings().maxOutstandingCheckpoints()) {
                refused.set(new PreconditionFailedException("reader group " + this.scope + "/" + name + " has "
                        + st.checkpoints().size() + " checkpoints in progress, as many as it allows "
                        + "(maxOutstandingCheckpointRequest)"));
                return List.of();
            }
            return List.of(new GroupUpdate.CreateCheckpoint(checkpoint, false, System.currentTimeMillis()));
        });
        if (refused.get() != null) {
            throw refused.get();
        }
        while (true) {
            Optional<CompletedCheckpoint> done = s.completedCheckpoint(checkpoint);
            if (done.isPresent()) {
                metrics.checkpoint(scope + "/" + name, System.nanoTime() - started);
                return Checkpoint.of(checkpoint, done.get().cuts());
            }
            Optional<CheckpointProgress> progress = s.checkpointInProgress(checkpoint);
            if (progress.isEmpty()) {
                throw new SluiceException("checkpoint '" + checkpoint + "' of reader group " + scope + "/" + name
                        + " was cancelled (the group was reset)");
            }
            if (deadline.expired()) {
                throw new DeadlineExceededException("checkpoint '" + checkpoint + "' of reader group " + scope + "/"
                        + name + ": readers " + progress.get().remaining() + " did not pass it within "
                        + timeout.toMillis() + " ms (it stays in progress)");
            }
            state.awaitChange(deadline);
            s = state.fetch();
        }
    }

    @Override
    public Optional<Checkpoint> lastCheckpoint() {
        List<CompletedCheckpoint> completed = state.fetch().completed();
        if (completed.isEmpty()) {
            return Optional.empty();
        }
        CompletedCheckpoint last = completed.get(completed.size() - 1);
        return Optional.of(Checkpoint.of(last.name(), last.cuts()));
    }

    @Override
    public void resetToCheckpoint(Checkpoint checkpoint) {
        Objects.requireNonNull(checkpoint, "checkpoint");
        reset(checkpoint.positions(), false);
    }

    @Override
    public void resetToStreamCuts(Map<ScopedStream, StreamCut> cuts) {
        Objects.requireNonNull(cuts, "cuts");
        reset(cuts, true);
    }

    private void reset(Map<ScopedStream, StreamCut> cuts, boolean validate) {
        ReaderGroupState s = state.fetch();
        SortedMap<ScopedStream, StreamCut> start = s.settings().start();
        for (Map.Entry<ScopedStream, StreamCut> e : cuts.entrySet()) {
            ScopedStream stream = Objects.requireNonNull(e.getKey(), "stream");
            StreamCut cut = Objects.requireNonNull(e.getValue(), () -> "cut of " + stream);
            if (!start.containsKey(stream)) {
                throw new IllegalArgumentException("reader group " + scope + "/" + name + " does not read stream "
                        + stream + " (it reads " + start.keySet() + ")");
            }
            if (!cut.isFor(stream)) {
                throw new IllegalArgumentException("stream cut " + cut + " does not belong to stream " + stream);
            }
            if (validate && !cut.isUnbounded() && !controller.isStreamCutValid(stream, cut)) {
                throw new IllegalArgumentException("stream cut " + cut + " is not a valid cut of stream " + stream);
            }
        }
        TreeMap<Segment, Long> positions = new TreeMap<>();
        start.forEach((stream, configured) -> {
            StreamCut cut = cuts.getOrDefault(stream, configured);
            positions.putAll(cut.isUnbounded() ? controller.headStreamCut(stream).positions() : cut.positions());
        });
        state.update(st -> List.of(new GroupUpdate.Reset(positions)));
    }

    @Override
    public Set<String> onlineReaders() {
        return Collections.unmodifiableSet(new TreeSet<>(state.fetch().readers().keySet()));
    }

    @Override
    public void readerOffline(String readerId, Position lastPosition) {
        Objects.requireNonNull(readerId, "readerId");
        if (readerId.isEmpty() || readerId.length() > 1024) {
            throw new IllegalArgumentException("readerId must have 1 to 1024 characters, not " + readerId.length());
        }
        SortedMap<Segment, Long> positions = lastPosition == null ? Collections.emptySortedMap()
                : lastPosition.segments();
        state.update(st -> st.readers().containsKey(readerId)
                ? List.of(new GroupUpdate.RemoveReader(readerId, GroupUpdate.RemoveReader.ANY_INCARNATION, positions))
                : List.of());
    }

    @Override
    public Map<ScopedStream, StreamCut> streamCuts() {
        return Collections.unmodifiableMap(GroupStateClient.cuts(state.fetch()));
    }

    @Override
    public void updateRetentionStreamCut(Map<ScopedStream, StreamCut> cuts) {
        RetentionReports.manual(controller, scope, name, state.fetch().settings().start().keySet(), cuts);
    }

    @Override
    public Map<String, Set<Segment>> segmentAssignments() {
        TreeMap<String, Set<Segment>> out = new TreeMap<>();
        state.fetch().readers().forEach((id, r) ->
                out.put(id, Collections.unmodifiableSet(new TreeSet<>(r.segments().keySet()))));
        return Collections.unmodifiableMap(out);
    }

    @Override
    public void close() {
        unregisterLag.run();
        state.close();
    }

    @Override
    public String toString() {
        return "ReaderGroup[" + scope + "/" + name + "]";
    }
}
