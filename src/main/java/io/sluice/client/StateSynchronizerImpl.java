package io.sluice.client;

import java.util.List;
import java.util.Objects;
import java.util.function.Function;

import io.sluice.segment.RevisionedSegment;
import io.sluice.segment.StateSynchronizer.Codec;
import io.sluice.state.Revision;
import io.sluice.state.StateSynchronizer;
import io.sluice.state.SynchronizerConfig;
import io.sluice.state.Update;
import io.sluice.stream.Serializer;

/**
 * {@link StateSynchronizer} over the internal {@link io.sluice.segment.StateSynchronizer} (which reader groups use
 * too, and which writes Pravega's record format). Thread-safe.
 */
final class StateSynchronizerImpl<S, U extends Update<S>> implements StateSynchronizer<S, U> {
    private final RevisionedSegment log;
    private final io.sluice.segment.StateSynchronizer<S, U> sync;

    StateSynchronizerImpl(RevisionedSegment log, Serializer<U> updateSerializer, Serializer<S> stateSerializer,
                          SynchronizerConfig config) {
        this.log = Objects.requireNonNull(log, "log");
        this.sync = new io.sluice.segment.StateSynchronizer<>(log, codec(stateSerializer, "initialSerializer"),
                codec(updateSerializer, "updateSerializer"), (state, update) -> update.applyTo(state), config.updateTimeout());
    }

    private static <T> Codec<T> codec(Serializer<T> serializer, String what) {
        Objects.requireNonNull(serializer, what);
        return Codec.of(v -> Objects.requireNonNull(serializer.serialize(v), what + " returned null"),
                b -> serializer.deserialize(b.asReadOnlyBuffer()));
    }

    @Override
    public S state() {
        return sync.state();
    }

    @Override
    public Revision revision() {
        return Revision.of(log.segment(), sync.revision());
    }

    @Override
    public void fetchUpdates() {
        sync.fetchUpdates();
    }

    @Override
    public boolean initialize(S initial) {
        return sync.initialize(initial);
    }

    @Override
    public S updateState(Function<? super S, ? extends List<? extends U>> generator) {
        return sync.updateState(generator);
    }

    @Override
    public void updateStateUnconditionally(U update) {
        Objects.requireNonNull(update, "update");
        sync.updateStateUnconditionally(List.of(update));
    }

    @Override
    public void updateStateUnconditionally(List<? extends U> updates) {
        sync.updateStateUnconditionally(updates);
    }

    @Override
    public void compact(Function<? super S, ? extends S> compactor) {
        sync.compact(compactor);
    }

    @Override
    public long bytesWrittenSinceCompaction() {
        long mark = log.mark();
        long revision = sync.revision();
        return mark == RevisionedSegment.NO_MARK ? revision : Math.max(0, revision - mark);
    }

    @Override
    public void close() {
        log.close();
    }

    @Override
    public String toString() {
        return "StateSynchronizer[" + log.segment() + " at " + sync.revision() + "]";
    }
}
