package io.sluice.compat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.sluice.client.ClientInternals;
import io.sluice.common.Deadline;
import io.sluice.connection.ConnectionPool;
import io.sluice.connection.RawClient;
import io.sluice.connection.TcpConnectionFactory;
import io.sluice.errors.SegmentTruncatedException;
import io.sluice.segment.RevisionedSegment;
import io.sluice.segment.SegmentCalls;
import io.sluice.segment.SegmentLocator;
import io.sluice.segment.StateSynchronizer;
import io.sluice.stream.Segment;
import io.sluice.wire.GetStreamSegmentInfo;
import io.sluice.wire.StreamSegmentInfo;

/**
 * The shared-state log under reader groups, against the REAL Pravega 0.13: optimistic updates from two
 * synchronizers, then compaction — a full state written, the mark attribute moved to it, the segment truncated before
 * it — after which a new synchronizer and one that lagged behind the truncation both start again from the mark, and
 * the lagging one can compact again. The segment store's own view (its head offset, a read below it) is checked too.
 */
@CompatTest
@Timeout(120)
class StateSynchronizerCompatTest {
    /** A counter: the state is a long, an update adds to it. */
    private static final StateSynchronizer.Codec<Long> LONGS = StateSynchronizer.Codec.of(
            v -> ByteBuffer.allocate(8).putLong(0, v), b -> b.getLong(b.position()));

    @RegisterExtension
    static final RealPravegaScope real = new RealPravegaScope("compat-sync");
    private static ConnectionPool pool;
    private static final List<RevisionedSegment> logs = new ArrayList<>();

    @BeforeAll
    static void connect() {
        pool = new ConnectionPool(new TcpConnectionFactory());
    }

    @AfterAll
    static void disconnect() {
        logs.forEach(RevisionedSegment::close);
        if (pool != null) {
            pool.close();
        }
    }

    private static RevisionedSegment log(Segment segment) {
        RevisionedSegment log = new RevisionedSegment(segment.qualifiedName(), pool,
                SegmentLocator.fixed(ClientInternals.controller(real.client).endpointFor(segment)), () -> null,
                SegmentCalls.Config.DEFAULT);
        logs.add(log);
        return log;
    }

    private static StateSynchronizer<Long, Long> counter(Segment segment) {
        return new StateSynchronizer<>(log(segment), LONGS, LONGS, Long::sum, StateSynchronizer.DEFAULT_UPDATE_TIMEOUT);
    }

    /** The segment's start offset as the segment store reports it (the controller knows nothing of this truncation). */
    private static long headOffset(Segment segment) {
        return new RawClient(pool).call(ClientInternals.controller(real.client).endpointFor(segment),
                id -> new GetStreamSegmentInfo(id, segment.qualifiedName(), ""), StreamSegmentInfo.class,
                Deadline.after(Duration.ofSeconds(30))).startOffset();
    }

    @Test
    void compactionTruncatesTheLogAndEverySynchronizerStartsAgainFromTheMark() {
        Segment segment = Segment.of(real.createStream("state", 1), 0, 0);
        StateSynchronizer<Long, Long> a = counter(segment);
        StateSynchronizer<Long, Long> lagging = counter(segment);
        assertThat(a.initialize(0L)).isTrue();
        assertThat(lagging.initialize(99L)).as("the second initialize finds the state there").isFalse();
        for (int i = 0; i < 10; i++) {
            a.updateState(s -> List.of(1L));
        }
        lagging.fetchUpdates();
        assertThat(lagging.state()).isEqualTo(10L);
        for (int i = 0; i < 20; i++) {
            // both write; a conflict makes the loser read and generate again, nothing is lost or applied twice
            (i % 2 == 0 ? a : lagging).updateState(s -> List.of(1L));
        }
        for (int i = 0; i < 3; i++) {
            a.updateState(s -> List.of(1L));
        }
        a.fetchUpdates();
        assertThat(a.state()).isEqualTo(33L);

        long before = a.revision();
        long mark = a.compact();
        assertThat(mark).isEqualTo(before);
        RevisionedSegment raw = log(segment);
        assertThat(raw.mark()).as("the mark attribute on the real segment").isEqualTo(mark);
        assertThat(raw.startRevision()).isEqualTo(mark);
        assertThat(headOffset(segment)).as("the segment store truncated the log at the mark").isEqualTo(mark);
        assertThatThrownBy(() -> raw.readFrom(0)).isInstanceOf(SegmentTruncatedException.class);
        for (int i = 0; i < 5; i++) {
            a.updateState(s -> List.of(1L));
        }

        StateSynchronizer<Long, Long> fresh = counter(segment);
        fresh.fetchUpdates();
        assertThat(fresh.state()).isEqualTo(38L);
        assertThat(fresh.revision()).isEqualTo(a.revision());

        assertThat(lagging.revision()).as("lagging is behind the truncation").isLessThan(mark);
        assertThat(lagging.updateState(s -> List.of(1L))).isEqualTo(39L);
        long second = lagging.compact();
        assertThat(second).isGreaterThan(mark);
        assertThat(raw.mark()).isEqualTo(second);
        assertThat(headOffset(segment)).isEqualTo(second);
        a.fetchUpdates();
        assertThat(a.state()).isEqualTo(39L);
        StateSynchronizer<Long, Long> third = counter(segment);
        third.fetchUpdates();
        assertThat(third.state()).isEqualTo(39L);
    }
}
