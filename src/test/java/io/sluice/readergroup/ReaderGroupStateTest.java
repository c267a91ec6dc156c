package io.sluice.readergroup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

import io.sluice.errors.ProtocolException;
import io.sluice.readergroup.GroupUpdate.Acquire;
import io.sluice.readergroup.GroupUpdate.AddReader;
import io.sluice.readergroup.GroupUpdate.CheckpointReached;
import io.sluice.readergroup.GroupUpdate.CreateCheckpoint;
import io.sluice.readergroup.GroupUpdate.Heartbeat;
import io.sluice.readergroup.GroupUpdate.Release;
import io.sluice.readergroup.GroupUpdate.RemoveReader;
import io.sluice.readergroup.GroupUpdate.Reset;
import io.sluice.readergroup.GroupUpdate.SegmentCompleted;
import io.sluice.readergroup.ReaderGroupState.Settings;
import io.sluice.stream.ScopedStream;
import io.sluice.stream.Segment;
import io.sluice.stream.StreamCut;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The reader group state as a pure function of its updates, and its binary format. */
@Timeout(30)
class ReaderGroupStateTest {
    private static final ScopedStream STREAM = ScopedStream.of("sc", "st");

    private static Segment seg(int number, int epoch) {
        return Segment.of(STREAM, number, epoch);
    }

    private static ReaderGroupState group(int segments) {
        TreeMap<Segment, Long> start = new TreeMap<>();
        for (int i = 0; i < segments; i++) {
            start.put(seg(i, 0), 0L);
        }
        Settings settings = new Settings(new TreeMap<>(Map.of(STREAM, StreamCut.of(start))), new TreeMap<>(), 100, -1,
                3);
        return ReaderGroupState.initial(settings, 1000);
    }

    private static ReaderGroupState apply(ReaderGroupState s, GroupUpdate... updates) {
        for (GroupUpdate u : updates) {
            s = ReaderGroupState.apply(s, u);
            // every state and update survives the codec unchanged
            assertThat(GroupStateCodec.decodeUpdate(GroupStateCodec.encodeUpdate(u))).isEqualTo(u);
            assertThat(GroupStateCodec.decodeState(GroupStateCodec.encodeState(s))).isEqualTo(s);
        }
        return s;
    }

    private static AddReader add(String id, long incarnation) {
        return new AddReader(id, incarnation, false, 1000, 5);
    }

    private static SortedSet<Segment> set(Segment... segments) {
        return new TreeSet<>(List.of(segments));
    }

    private static SortedMap<Segment, Long> at(Object... pairs) {
        TreeMap<Segment, Long> m = new TreeMap<>();
        for (int i = 0; i < pairs.length; i += 2) {
            m.put((Segment) pairs[i], ((Number) pairs[i + 1]).longValue());
        }
        return m;
    }

    private static SortedSet<Segment> first(ReaderGroupState s, int n) {
        TreeSet<Segment> out = new TreeSet<>();
        for (Segment segment : s.unassigned().keySet()) {
            if (out.size() < n) {
                out.add(segment);
            }
        }
        return out;
    }

    @Test
    void segmentsAreSharedFairlyAndRebalanceWhenReadersJoinAndLeave() {
        ReaderGroupState s = apply(group(6), add("a", 1));
        assertThat(Membership.acquireCount(s, "a")).isEqualTo(6);
        s = apply(s, new Acquire("a", 1, first(s, 6)));
        assertThat(s.readers().get("a").segments()).hasSize(6);
        assertThat(s.unassigned()).isEmpty();

        s = apply(s, add("b", 2), add("c", 3));
        assertThat(Membership.releaseCount(s, "a")).isEqualTo(4);
        assertThat(Membership.acquireCount(s, "b")).isZero();
        s = apply(s, new Release("a", 1, at(seg(2, 0), 7, seg(3, 0), 8, seg(4, 0), 9, seg(5, 0), 10)));
        assertThat(s.unassigned()).containsEntry(seg(5, 0), 10L).hasSize(4);
        assertThat(Membership.acquireCount(s, "b")).isEqualTo(2);
        s = apply(s, new Acquire("b", 2, first(s, 2)));
        assertThat(s.readers().get("b").segments().get(seg(2, 0)).offset()).isEqualTo(7);
        s = apply(s, new Acquire("c", 3, first(s, 2)));
        assertThat(s.readers().values()).allSatisfy(r -> assertThat(r.segments()).hasSize(2));
        assertThat(Membership.releaseCount(s, "a")).isZero();

        // c leaves at a position: its segments go back there, the others take them
        s = apply(s, new RemoveReader("c", 3, at(seg(4, 0), 40, seg(5, 0), 50)));
        assertThat(s.unassigned()).isEqualTo(at(seg(4, 0), 40, seg(5, 0), 50));
        assertThat(Membership.acquireCount(s, "a")).isEqualTo(1);
        assertThat(Membership.acquireCount(s, "b")).isEqualTo(1);
    }

    @Test
    void anUnevenSplitEvensOutWithoutPingPong() {
        ReaderGroupState s = apply(group(7), add("a", 1), add("b", 2), add("c", 3));
        s = apply(s, new Acquire("a", 1, first(s, 3)));
        s = apply(s, new Acquire("b", 2, first(s, 3)));
        s = apply(s, new Acquire("c", 3, first(s, 3)));
        assertThat(s.readers().get("c").segments()).hasSize(1);
        // c has less than the floor share (2): the fuller readers give one each, c takes up to the ceiling
        assertThat(Membership.releaseCount(s, "a")).isEqualTo(1);
        assertThat(Membership.releaseCount(s, "c")).isZero();
        Segment fromA = s.readers().get("a").segments().lastKey();
        s = apply(s, new Release("a", 1, at(fromA, 0)));
        assertThat(Membership.releaseCount(s, "b")).isZero();   // something is unassigned: nobody else releases
        s = apply(s, new Acquire("c", 3, first(s, 1)));
        assertThat(s.readers().values()).extracting(r -> r.segments().size()).containsExactlyInAnyOrder(2, 3, 2);
        for (String id : s.readers().keySet()) {
            assertThat(Membership.releaseCount(s, id)).isZero();
            assertThat(Membership.acquireCount(s, id)).isZero();
        }
    }

    @Test
    void aSuccessorIsReadableOnlyOnceAllItsPredecessorsEnded() {
        ReaderGroupState s = apply(group(2), add("a", 1));
        s = apply(s, new Acquire("a", 1, first(s, 2)));
        Segment merged = seg(2, 1);
        SortedMap<Segment, SortedSet<Segment>> successors = new TreeMap<>(Map.of(merged, set(seg(0, 0), seg(1, 0))));
        s = apply(s, new SegmentCompleted("a", 1, seg(0, 0), 100, successors));
        assertThat(s.unassigned()).isEmpty();
        assertThat(s.future()).containsKey(merged);
        assertThat(s.ended()).containsEntry(seg(0, 0), 100L);
        assertThat(s.positions()).containsEntry(seg(0, 0), 100L).containsEntry(seg(1, 0), 0L);
        assertThat(s.isEndOfData()).isFalse();

        s = apply(s, new SegmentCompleted("a", 1, seg(1, 0), 70, successors));
        assertThat(s.unassigned()).isEqualTo(at(merged, 0));
        assertThat(s.future()).isEmpty();
        assertThat(s.ended()).isEmpty();

        // a split: both successors readable at once; then the stream is sealed
        s = apply(s, new Acquire("a", 1, set(merged)));
        SortedMap<Segment, SortedSet<Segment>> split = new TreeMap<>(Map.of(seg(3, 2), set(merged),
                seg(4, 2), set(merged)));
        s = apply(s, new SegmentCompleted("a", 1, merged, 10, split));
        assertThat(s.unassigned()).isEqualTo(at(seg(3, 2), 0, seg(4, 2), 0));
        s = apply(s, new Acquire("a", 1, first(s, 2)));
        s = apply(s, new SegmentCompleted("a", 1, seg(3, 2), 5, new TreeMap<>()),
                new SegmentCompleted("a", 1, seg(4, 2), 6, new TreeMap<>()));
        assertThat(s.isEndOfData()).isTrue();
        assertThat(s.finished()).isEqualTo(at(seg(3, 2), 5, seg(4, 2), 6));
        assertThat(s.positions()).isEqualTo(at(seg(3, 2), 5, seg(4, 2), 6));
    }

    @Test
    void aCheckpointRecordsAConsistentCut() {
        ReaderGroupState s = apply(group(4), add("a", 1), add("b", 2));
        s = apply(s, new Acquire("a", 1, first(s, 2)));
        s = apply(s, new Acquire("b", 2, first(s, 1)));
        // one segment still unassigned: recorded at creation
        s = apply(s, new CreateCheckpoint("cp", false, 2000));
        assertThat(s.lastCheckpointMillis()).isEqualTo(2000);
        assertThat(s.pendingFor("a")).extracting(ReaderGroupState.CheckpointProgress::name).containsExactly("cp");
        assertThat(Membership.acquireCount(s, "b")).as("no acquiring before passing").isZero();
        // a reader that joins now does not take part, and may take the unassigned segment
        s = apply(s, add("c", 3));
        assertThat(s.pendingFor("c")).isEmpty();
        s = apply(s, new Acquire("c", 3, first(s, 1)));
        assertThat(s.readers().get("c").segments()).containsKey(seg(3, 0));
        // a passes at its offsets
        s = apply(s, new CheckpointReached("a", 1, "cp", at(seg(0, 0), 10, seg(1, 0), 11)));
        assertThat(s.readers().get("a").segments().get(seg(0, 0)).recoverFrom()).isEqualTo(10);
        // b ends its segment before passing: recorded at its end
        s = apply(s, new SegmentCompleted("b", 2, seg(2, 0), 33, new TreeMap<>()));
        assertThat(s.completedCheckpoint("cp")).isEmpty();
        s = apply(s, new CheckpointReached("b", 2, "cp", at()));
        assertThat(s.checkpoints()).isEmpty();
        assertThat(s.completedCheckpoint("cp")).get().extracting(ReaderGroupState.CompletedCheckpoint::positions)
                .isEqualTo(at(seg(0, 0), 10, seg(1, 0), 11, seg(2, 0), 33, seg(3, 0), 0));
        // names are unique
        ReaderGroupState again = apply(s, new CreateCheckpoint("cp", false, 3000));
        assertThat(again.checkpoints()).isEmpty();
    }

    @Test
    void aReaderLeavingDuringACheckpointCountsAsPassedAtItsReturnedPositions() {
        ReaderGroupState s = apply(group(2), new AddReader("a", 1, true, 1000, 0), add("b", 2));
        s = apply(s, new Acquire("a", 1, first(s, 1)));
        s = apply(s, new Acquire("b", 2, first(s, 1)));
        s = apply(s, new CreateCheckpoint("one", true, 0));
        s = apply(s, new CheckpointReached("a", 1, "one", at(seg(0, 0), 5)));
        s = apply(s, new CheckpointReached("b", 2, "one", at(seg(1, 0), 6)));
        assertThat(s.completedCheckpoint("one")).isPresent();
        // a reads on and reports, then a second checkpoint starts; a times out without passing it
        s = apply(s, new Heartbeat("a", 1, 9, at(seg(0, 0), 50)), new CreateCheckpoint("two", false, 1));
        assertThat(s.readers().get("a").segments().get(seg(0, 0)).offset()).isEqualTo(50);
        s = apply(s, new RemoveReader("a", 1, at()));
        // ack-on-checkpoint: its segment goes back to where it stood at checkpoint "one"
        assertThat(s.unassigned()).isEqualTo(at(seg(0, 0), 5));
        assertThat(s.checkpointInProgress("two")).get().extracting(c -> c.positions().get(seg(0, 0))).isEqualTo(5L);
        s = apply(s, new CheckpointReached("b", 2, "two", at(seg(1, 0), 60)));
        assertThat(s.completedCheckpoint("two")).get().extracting(ReaderGroupState.CompletedCheckpoint::positions)
                .isEqualTo(at(seg(0, 0), 5, seg(1, 0), 60));
    }

    @Test
    void staleUpdatesDoNothing() {
        ReaderGroupState s = apply(group(2), add("a", 1));
        s = apply(s, new Acquire("a", 1, first(s, 2)));
        ReaderGroupState before = s;
        s = apply(s, new Release("a", 99, at(seg(0, 0), 3)), new Heartbeat("a", 99, 1, at(seg(0, 0), 3)),
                new SegmentCompleted("a", 99, seg(0, 0), 3, new TreeMap<>()), new Acquire("x", 1, set(seg(0, 0))));
        assertThat(s.readers()).isEqualTo(before.readers());
        assertThat(s.unassigned()).isEqualTo(before.unassigned());
        // heartbeats never move an offset back
        s = apply(s, new Heartbeat("a", 1, 2, at(seg(0, 0), 30)), new Heartbeat("a", 1, 3, at(seg(0, 0), 20)));
        assertThat(s.readers().get("a").segments().get(seg(0, 0)).offset()).isEqualTo(30);
        assertThat(s.readers().get("a").heartbeat()).isEqualTo(3);
        // re-adding a reader replaces its earlier incarnation, whose segments go back to the group
        s = apply(s, add("a", 7));
        assertThat(s.readers().get("a").incarnation()).isEqualTo(7);
        assertThat(s.unassigned()).isEqualTo(at(seg(0, 0), 30, seg(1, 0), 0));
    }

    @Test
    void aResetStartsANewGeneration() {
        ReaderGroupState s = apply(group(2), add("a", 1));
        s = apply(s, new Acquire("a", 1, first(s, 2)), new CreateCheckpoint("cp", false, 0));
        s = apply(s, new Reset(at(seg(0, 0), 4, seg(1, 0), 5)));
        assertThat(s.generation()).isEqualTo(1);
        assertThat(s.readers().get("a").segments()).isEmpty();
        assertThat(s.unassigned()).isEqualTo(at(seg(0, 0), 4, seg(1, 0), 5));
        assertThat(s.checkpoints()).isEmpty();
    }

    @Test
    void foreignOrDamagedStateIsRefusedClearly() {
        // Pravega's Java client writes its own serialization, which does not start with Sluice's magic
        assertThatThrownBy(() -> GroupStateCodec.decodeState(ByteBuffer.wrap(new byte[] {0, 1, 2, 3, 4, 5})))
                .isInstanceOf(ProtocolException.class).hasMessageContaining("not in Sluice's format");
        ByteBuffer good = GroupStateCodec.encodeState(group(3));
        ByteBuffer cut = good.duplicate().limit(good.limit() - 3);
        assertThatThrownBy(() -> GroupStateCodec.decodeState(cut)).isInstanceOf(ProtocolException.class)
                .hasMessageContaining("malformed");
        assertThatThrownBy(() -> GroupStateCodec.decodeUpdate(ByteBuffer.wrap(new byte[] {1, 42, 0})))
                .isInstanceOf(ProtocolException.class).hasMessageContaining("unknown reader group update type 42");
    }

    @Test
    void theFormatIsCompact() {
        ReaderGroupState s = apply(group(1000), add("reader-1", 1));
        s = apply(s, new Acquire("reader-1", 1, first(s, 1000)));
        int bytes = GroupStateCodec.encodeState(s).remaining();
        // about a dozen bytes per owned segment: stream index, number, epoch, two offsets
        assertThat(bytes).isLessThan(1000 * 12);
    }
}
