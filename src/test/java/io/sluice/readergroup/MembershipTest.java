package io.sluice.readergroup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

import io.sluice.readergroup.GroupUpdate.Acquire;
import io.sluice.readergroup.GroupUpdate.AddReader;
import io.sluice.readergroup.GroupUpdate.CreateCheckpoint;
import io.sluice.readergroup.GroupUpdate.Heartbeat;
import io.sluice.readergroup.GroupUpdate.Release;
import io.sluice.readergroup.GroupUpdate.RemoveReader;
import io.sluice.readergroup.GroupUpdate.Reset;
import io.sluice.readergroup.Membership.Held;
import io.sluice.readergroup.Membership.Liveness;
import io.sluice.readergroup.Membership.Rebalance;
import io.sluice.readergroup.Membership.Sighting;
import io.sluice.readergroup.ReaderGroupState.Settings;
import io.sluice.stream.ScopedStream;
import io.sluice.stream.Segment;
import io.sluice.stream.StreamCut;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The membership decisions as pure functions of the group state: no threads, no server, the time passed in. */
@Timeout(30)
class MembershipTest {
    private static final ScopedStream STREAM = ScopedStream.of("sc", "st");
    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

    private static Segment seg(int number, int epoch) {
        return Segment.of(STREAM, number, epoch);
    }

    private static ReaderGroupState group(int segments, long checkpointIntervalMillis) {
        TreeMap<Segment, Long> start = new TreeMap<>();
        for (int i = 0; i < segments; i++) {
            start.put(seg(i, 0), 0L);
        }
        Settings settings = new Settings(new TreeMap<>(Map.of(STREAM, StreamCut.of(start))), new TreeMap<>(), 100,
                checkpointIntervalMillis, 3);
        return ReaderGroupState.initial(settings, 1000);
    }

    private static ReaderGroupState group(int segments) {
        return group(segments, -1);
    }

    private static ReaderGroupState apply(ReaderGroupState s, List<GroupUpdate> updates) {
        for (GroupUpdate u : updates) {
            s = ReaderGroupState.apply(s, u);
        }
        return s;
    }

    private static ReaderGroupState apply(ReaderGroupState s, GroupUpdate... updates) {
        return apply(s, List.of(updates));
    }

    private static AddReader add(String id, long incarnation) {
        return new AddReader(id, incarnation, false, 1000, 0);
    }

    private static SortedMap<Segment, Long> at(Object... pairs) {
        TreeMap<Segment, Long> m = new TreeMap<>();
        for (int i = 0; i < pairs.length; i += 2) {
            m.put((Segment) pairs[i], ((Number) pairs[i + 1]).longValue());
        }
        return m;
    }

    private static SortedSet<Segment> set(Segment... segments) {
        return new TreeSet<>(List.of(segments));
    }

    private static Set<Segment> owned(ReaderGroupState s, String reader) {
        return s.readers().get(reader).segments().keySet();
    }

    /** What a reader holds, where it stands as the state last heard (no events handed out since). */
    private static Map<Segment, Held> held(ReaderGroupState s, String reader) {
        TreeMap<Segment, Held> out = new TreeMap<>();
        s.readers().get(reader).segments().forEach((segment, o) -> out.put(segment, new Held(o.offset(), o.offset())));
        return out;
    }

    /** One reader acting on one decision, as the consumer does: release (at its positions) before acquire. */
    private static ReaderGroupState act(ReaderGroupState s, String reader) {
        long inc = s.readers().get(reader).incarnation();
        Rebalance decision = Membership.rebalance(s, reader);
        if (decision.release() > 0) {
            SortedMap<Segment, Long> give = Membership.segmentsToRelease(held(s, reader), decision.release(), false);
            return apply(s, Membership.release(s, reader, inc, s.generation(), give));
        }
        return apply(s, Membership.acquire(s, reader, inc, s.generation()));
    }

    /** Lets every reader act in turn until no reader has anything to do. @return the rounds it took */
    private static int settle(ReaderGroupState[] state) {
        for (int round = 1; round <= 20; round++) {
            boolean acted = false;
            for (String reader : state[0].readers().keySet()) {
                if (!Membership.rebalance(state[0], reader).balanced()) {
                    state[0] = act(state[0], reader);
                    acted = true;
                }
            }
            if (!acted) {
                return round;
            }
        }
        throw new AssertionError("the readers did not settle within 20 rounds: " + state[0].readers());
    }

    @Test
    void severalReadersShareTheSegmentsEvenly() {
        ReaderGroupState[] s = {apply(group(10), add("a", 1), add("b", 2), add("c", 3))};
        assertThat(Membership.acquireCount(s[0], "a")).as("the ceiling of 10 over 3").isEqualTo(4);
        assertThat(Membership.segmentsToAcquire(s[0], "a")).containsExactly(seg(0, 0), seg(1, 0), seg(2, 0),
                seg(3, 0));
        settle(s);
        assertThat(s[0].unassigned()).isEmpty();
        assertThat(s[0].readers().values()).extracting(r -> r.segments().size()).containsExactlyInAnyOrder(4, 3, 3);

        // a fourth reader: nobody holds more than the ceiling (3), nobody less than the floor (2)
        s[0] = apply(s[0], add("d", 4));
        int rounds = settle(s);
        assertThat(s[0].readers().values()).extracting(r -> r.segments().size()).containsExactlyInAnyOrder(3, 3, 2, 2);
        assertThat(rounds).as("no ping-pong").isLessThanOrEqualTo(4);
        for (String id : s[0].readers().keySet()) {
            assertThat(Membership.rebalance(s[0], id).balanced()).isTrue();
            assertThat(Membership.needsAttention(s[0], id, s[0].readers().get(id).incarnation(), 0, owned(s[0], id)))
                    .isFalse();
        }
    }

    @Test
    void aNewReaderTakesItsShareOnceTheOthersGaveItBack() {
        ReaderGroupState s = apply(group(6), add("a", 1));
        s = apply(s, Membership.acquire(s, "a", 1, 0));
        assertThat(owned(s, "a")).hasSize(6);
        s = apply(s, new Heartbeat("a", 1, 1, at(seg(3, 0), 30, seg(4, 0), 40, seg(5, 0), 50)));

        s = apply(s, add("b", 2));
        // b must wait: nothing is unassigned; a gives back its last three segments where it stands
        assertThat(Membership.rebalance(s, "b")).isEqualTo(new Rebalance(0, set()));
        assertThat(Membership.rebalance(s, "a")).isEqualTo(new Rebalance(3, set()));
        assertThat(Membership.needsAttention(s, "a", 1, 0, owned(s, "a"))).isTrue();
        SortedMap<Segment, Long> give = Membership.segmentsToRelease(held(s, "a"), 3, false);
        assertThat(give).isEqualTo(at(seg(3, 0), 30, seg(4, 0), 40, seg(5, 0), 50));
        s = apply(s, Membership.release(s, "a", 1, 0, give));

        assertThat(Membership.rebalance(s, "a").balanced()).isTrue();
        assertThat(Membership.rebalance(s, "b").acquire()).containsExactly(seg(3, 0), seg(4, 0), seg(5, 0));
        s = apply(s, Membership.acquire(s, "b", 2, 0));
        assertThat(s.readers().get("b").segments()).containsOnlyKeys(seg(3, 0), seg(4, 0), seg(5, 0));
        assertThat(s.readers().get("b").segments().get(seg(4, 0)).offset()).as("b resumes where a stood")
                .isEqualTo(40);
        // a release that no longer fits (a already gave them back) does nothing
        assertThat(Membership.release(s, "a", 1, 0, give)).isEmpty();
    }

    @Test
    void aReaderWithACheckpointToPassTakesNothing() {
        ReaderGroupState s = apply(group(4), add("a", 1));
        s = apply(s, new Acquire("a", 1, set(seg(0, 0))), add("b", 2), new CreateCheckpoint("cp", false, 5));
        assertThat(Membership.segmentsToAcquire(s, "b")).isEmpty();
        assertThat(Membership.acquire(s, "b", 2, 0)).isEmpty();
        assertThat(Membership.passCheckpoint(s, "b", 2, 0, "other", at())).as("only its oldest").isEmpty();
        s = apply(s, Membership.passCheckpoint(s, "b", 2, 0, "cp", at()));
        assertThat(Membership.segmentsToAcquire(s, "b")).hasSize(2);
    }

    @Test
    void aReaderGoesOfflineOnlyAfterItsHeartbeatStoodStillForItsTimeout() {
        ReaderGroupState s = apply(group(2), add("a", 1), new AddReader("b", 2, false, 1000, 0));
        s = apply(s, new Acquire("a", 1, set(seg(0, 0))), new Acquire("b", 2, set(seg(1, 0))),
                new Heartbeat("b", 2, 7, at(seg(1, 0), 70)));
        long t0 = 1_000_000 * MS;

        Liveness first = Membership.watch(s, "a", Map.of(), t0);
        assertThat(first.sightings()).containsOnlyKeys("b").containsEntry("b", new Sighting(2, 7, t0));
        assertThat(first.offline()).isEmpty();
        Liveness still = Membership.watch(s, "a", first.sightings(), t0 + 1000 * MS);
        assertThat(still.offline()).as("exactly the timeout is not past it").isEmpty();
        assertThat(still.sightings()).isEqualTo(first.sightings());

        // b's heartbeat changes: its clock starts again (b's own clock value means nothing, only that it changed)
        s = apply(s, new Heartbeat("b", 2, 3, at()));
        long t1 = t0 + 1500 * MS;
        Liveness alive = Membership.watch(s, "a", still.sightings(), t1);
        assertThat(alive.offline()).isEmpty();
        assertThat(alive.sightings()).containsEntry("b", new Sighting(2, 3, t1));

        Liveness gone = Membership.watch(s, "a", alive.sightings(), t1 + 1001 * MS);
        assertThat(gone.offline()).containsOnlyKeys("b");
        assertThat(gone.sightings()).as("an offline reader is forgotten").isEmpty();
        // nobody judges themselves: b sees a for the first time
        assertThat(Membership.watch(s, "b", Map.of(), t1 + 5000 * MS).sightings()).containsOnlyKeys("a");

        // b is removed if it is still as seen; its segment goes back where it last reported, and a takes it
        Sighting last = gone.offline().get("b");
        assertThat(Membership.removeOffline(s, "b", last)).containsExactly(new RemoveReader("b", 2, at()));
        ReaderGroupState beatAgain = apply(s, new Heartbeat("b", 2, 4, at()));
        assertThat(Membership.removeOffline(beatAgain, "b", last)).as("it came back meanwhile").isEmpty();
        ReaderGroupState restarted = apply(s, add("b", 9));
        assertThat(Membership.removeOffline(restarted, "b", last)).as("another incarnation").isEmpty();
        assertThat(Membership.watch(restarted, "a", gone.sightings(), t1 + 1002 * MS).offline()).isEmpty();

        s = apply(s, Membership.removeOffline(s, "b", last));
        assertThat(s.readers()).containsOnlyKeys("a");
        assertThat(s.unassigned()).isEqualTo(at(seg(1, 0), 70));
        assertThat(Membership.rebalance(s, "a").acquire()).containsExactly(seg(1, 0));
    }

    @Test
    void aReaderGivesBackWhatTheApplicationReleasedWhateverItsShare() {
        // a holds its fair share (both segments, alone): Membership.release refuses, giveBack does not
        ReaderGroupState s = apply(group(2), add("a", 1));
        s = apply(s, new Acquire("a", 1, set(seg(0, 0), seg(1, 0))));
        assertThat(Membership.release(s, "a", 1, 0, at(seg(1, 0), 40))).as("within its share").isEmpty();
        assertThat(Membership.giveBack(s, "a", 1, 0, at(seg(1, 0), 40)))
                .containsExactly(new Release("a", 1, at(seg(1, 0), 40)));
        assertThat(Membership.giveBack(s, "a", 2, 0, at(seg(1, 0), 40))).as("another instance").isEmpty();
        assertThat(Membership.giveBack(s, "a", 1, 1, at(seg(1, 0), 40))).as("another generation").isEmpty();
        assertThat(Membership.giveBack(s, "a", 1, 0, at())).as("nothing to give").isEmpty();
        s = apply(s, Membership.giveBack(s, "a", 1, 0, at(seg(1, 0), 40)));
        assertThat(s.unassigned()).isEqualTo(at(seg(1, 0), 40));
        assertThat(Membership.giveBack(s, "a", 1, 0, at(seg(1, 0), 40))).as("no longer its own").isEmpty();
    }

    @Test
    void aReaderReleasesBeforeItAcquires() {
        // a holds 4 of 6 while 2 are unassigned and b just joined: a gives one back and takes nothing, b takes 2
        ReaderGroupState s = apply(group(6), add("a", 1));
        s = apply(s, new Acquire("a", 1, set(seg(0, 0), seg(1, 0), seg(2, 0), seg(3, 0))), add("b", 2));
        assertThat(Membership.acquireCount(s, "a")).isZero();
        assertThat(Membership.rebalance(s, "a")).isEqualTo(new Rebalance(1, set()));
        assertThat(Membership.rebalance(s, "b")).isEqualTo(new Rebalance(0, set(seg(4, 0), seg(5, 0))));
        assertThatThrownBy(() -> new Rebalance(1, set(seg(4, 0)))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("releases before it acquires");

        s = apply(s, Membership.release(s, "a", 1, 0, Membership.segmentsToRelease(held(s, "a"), 1, false)));
        assertThat(owned(s, "a")).containsExactlyInAnyOrder(seg(0, 0), seg(1, 0), seg(2, 0));
        assertThat(Membership.rebalance(s, "a").balanced()).as("after its release, nothing to take").isTrue();
        s = apply(s, Membership.acquire(s, "b", 2, 0));
        assertThat(owned(s, "b")).containsExactlyInAnyOrder(seg(3, 0), seg(4, 0), seg(5, 0));
    }

    @Test
    void anAckOnCheckpointReaderGivesBackOnlyWhatItHandedNothingOutOf() {
        Map<Segment, Held> held = Map.of(seg(0, 0), new Held(5, 5), seg(1, 0), new Held(9, 4), seg(2, 0),
                new Held(0, 0), seg(3, 0), new Held(8, 2));
        assertThat(Membership.segmentsToRelease(held, 2, false)).isEqualTo(at(seg(3, 0), 8, seg(2, 0), 0));
        assertThat(Membership.segmentsToRelease(held, 2, true)).isEqualTo(at(seg(2, 0), 0, seg(0, 0), 5));
        assertThat(Membership.segmentsToRelease(held, 9, true)).hasSize(2);
        assertThat(Membership.segmentsToRelease(Map.of(seg(1, 0), new Held(9, 4)), 1, true)).isEmpty();
    }

    @Test
    void successorsOfASealedSegmentWaitForAllTheirPredecessors() {
        ReaderGroupState s = apply(group(2), add("a", 1), add("b", 2));
        s = apply(s, Membership.acquire(s, "a", 1, 0));
        s = apply(s, Membership.acquire(s, "b", 2, 0));
        assertThat(owned(s, "a")).containsExactly(seg(0, 0));
        assertThat(owned(s, "b")).containsExactly(seg(1, 0));

        // 0 and 1 merge into 2: a finishes 0 first, and 2 is nobody's until b finished 1 too
        Segment merged = seg(2, 1);
        SortedMap<Segment, SortedSet<Segment>> merge = new TreeMap<>(Map.of(merged, set(seg(0, 0), seg(1, 0))));
        assertThat(Membership.completeSegment(s, "a", 1, 0, seg(1, 0), 10, merge)).as("not a's segment").isEmpty();
        s = apply(s, Membership.completeSegment(s, "a", 1, 0, seg(0, 0), 100, merge));
        assertThat(Membership.segmentsToAcquire(s, "a")).isEmpty();
        assertThat(Membership.rebalance(s, "a").balanced()).isTrue();
        assertThat(Membership.needsAttention(s, "a", 1, 0, Set.of())).isFalse();
        s = apply(s, Membership.completeSegment(s, "b", 2, 0, seg(1, 0), 70, merge));
        assertThat(s.unassigned()).isEqualTo(at(merged, 0));
        assertThat(Membership.needsAttention(s, "a", 1, 0, Set.of())).isTrue();
        s = apply(s, Membership.acquire(s, "a", 1, 0));
        assertThat(owned(s, "a")).containsExactly(merged);
        assertThat(Membership.acquire(s, "b", 2, 0)).isEmpty();

        // 2 splits into 3 and 4: both readable at once, one for each reader
        SortedMap<Segment, SortedSet<Segment>> split = new TreeMap<>(Map.of(seg(3, 2), set(merged), seg(4, 2),
                set(merged)));
        s = apply(s, Membership.completeSegment(s, "a", 1, 0, merged, 5, split));
        s = apply(s, Membership.acquire(s, "a", 1, 0));
        s = apply(s, Membership.acquire(s, "b", 2, 0));
        assertThat(owned(s, "a")).containsExactly(seg(3, 2));
        assertThat(owned(s, "b")).containsExactly(seg(4, 2));

        // the stream is sealed: nothing follows, and once both are read the group is at its end
        s = apply(s, Membership.completeSegment(s, "a", 1, 0, seg(3, 2), 6, new TreeMap<>()));
        assertThat(s.isEndOfData()).isFalse();
        s = apply(s, Membership.completeSegment(s, "b", 2, 0, seg(4, 2), 7, new TreeMap<>()));
        assertThat(s.isEndOfData()).isTrue();
        assertThat(Membership.needsAttention(s, "a", 1, 0, Set.of())).as("end of data to hand out").isTrue();
    }

    @Test
    void decisionsForAnotherGenerationOrInstanceDoNothing() {
        ReaderGroupState s = apply(group(2), add("a", 1));
        assertThat(Membership.acquire(s, "a", 2, 0)).as("another incarnation").isEmpty();
        assertThat(Membership.acquire(s, "a", 1, 1)).as("another generation").isEmpty();
        assertThat(Membership.heartbeat(s, "a", 2, 5, at())).isEmpty();
        assertThat(Membership.heartbeat(s, "a", 1, 5, at())).containsExactly(new Heartbeat("a", 1, 5, at()));
        assertThat(Membership.leave(s, "a", 2, at())).isEmpty();
        assertThat(Membership.leave(s, "a", 1, at(seg(0, 0), 1)))
                .containsExactly(new RemoveReader("a", 1, at(seg(0, 0), 1)));
        s = apply(s, Membership.acquire(s, "a", 1, 0));
        s = apply(s, new Reset(at(seg(0, 0), 3, seg(1, 0), 4)));
        assertThat(Membership.needsAttention(s, "a", 1, 0, Set.of(seg(0, 0), seg(1, 0)))).isTrue();
        assertThat(Membership.completeSegment(s, "a", 1, 0, seg(0, 0), 9, new TreeMap<>())).isEmpty();
        assertThat(Membership.needsAttention(s, "x", 1, 1, Set.of())).as("not in the group").isTrue();
        assertThat(Membership.acquire(s, "a", 1, 1)).containsExactly(new Acquire("a", 1, set(seg(0, 0), seg(1, 0))));
    }

    @Test
    void theFirstReaderByIdLeadsAndStartsAutomaticCheckpointsWhenDue() {
        ReaderGroupState s = apply(group(1, 500), add("b", 2), add("a", 1));
        assertThat(Membership.isLeader(s, "a")).isTrue();
        assertThat(Membership.isLeader(s, "b")).isFalse();
        assertThat(Membership.isLeader(group(1), "a")).isFalse();
        // the group was created at 1000 with an interval of 500
        assertThat(Membership.automaticCheckpointDue(s, 1499)).isFalse();
        assertThat(Membership.startAutomaticCheckpoint(s, "auto-1", 1499)).isEmpty();
        assertThat(Membership.startAutomaticCheckpoint(s, "auto-1", 1500))
                .containsExactly(new CreateCheckpoint("auto-1", true, 1500));
        s = apply(s, Membership.startAutomaticCheckpoint(s, "auto-1", 1500));
        assertThat(Membership.automaticCheckpointDue(s, 9999)).as("one in progress").isFalse();
        s = apply(s, Membership.passCheckpoint(s, "a", 1, 0, "auto-1", at()));
        s = apply(s, Membership.passCheckpoint(s, "b", 2, 0, "auto-1", at()));
        assertThat(s.completedCheckpoint("auto-1")).isPresent();
        assertThat(Membership.automaticCheckpointDue(s, 1999)).isFalse();
        assertThat(Membership.automaticCheckpointDue(s, 2000)).isTrue();
        assertThat(Membership.automaticCheckpointDue(group(1, -1), Long.MAX_VALUE)).as("disabled").isFalse();
    }
}
