package io.sluice.segment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import io.sluice.common.Retry;
import io.sluice.connection.ConnectionPool;
import io.sluice.connection.TcpConnectionFactory;
import io.sluice.errors.InvalidRequestException;
import io.sluice.errors.NoSuchSegmentException;
import io.sluice.errors.SegmentSealedException;
import io.sluice.server.EmbeddedServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Every operation of the metadata client against the embedded server, error answers included. */
@Timeout(60)
class SegmentMetadataClientTest {
    private static final SegmentCalls.Config FAST = new SegmentCalls.Config(
            Retry.withExpBackoff(Duration.ofMillis(1), 2, 10, Duration.ofMillis(20)), Duration.ofSeconds(10));
    private static final SegmentCalls.Config WRITES = new SegmentCalls.Config(FAST.retry(),
            Duration.ofSeconds(10));
    private static final AtomicInteger NAMES = new AtomicInteger();

    private static EmbeddedServer server;
    private static ConnectionPool pool;
    private static SegmentCalls calls;
    private final List<RevisionedSegment> writers = new ArrayList<>();

    @BeforeAll
    static void start() {
        server = EmbeddedServer.builder().inMemory().build();
        pool = new ConnectionPool(new TcpConnectionFactory());
        calls = new SegmentCalls(pool, SegmentLocator.fixed(server.segmentStoreEndpoint()), FAST);
    }

    @AfterAll
    static void stop() {
        pool.close();
        server.close();
    }

    @AfterEach
    void closeWriters() {
        writers.forEach(RevisionedSegment::close);
    }

    /** @return a client of a segment no other test uses (not created yet) */
    private static SegmentMetadataClient fresh() {
        return new SegmentMetadataClient(calls, "meta/s" + NAMES.incrementAndGet() + "/0.#epoch.0", null);
    }

    private static SegmentMetadataClient created() {
        SegmentMetadataClient c = fresh();
        assertThat(c.create()).isTrue();
        return c;
    }

    /** Appends {@code events} events of {@code payload}, each framed (8 header bytes + payload). */
    private void append(SegmentMetadataClient segment, String payload, int events) {
        RevisionedSegment w = new RevisionedSegment(segment.segment(), pool,
                SegmentLocator.fixed(server.segmentStoreEndpoint()), () -> null, WRITES);
        writers.add(w);
        for (int i = 0; i < events; i++) {
            w.writeUnconditionally(ByteBuffer.wrap(payload.getBytes(StandardCharsets.UTF_8)));
        }
    }

    @Test
    void createsOnceAndReportsTheInfoOfANewSegment() {
        SegmentMetadataClient c = fresh();
        assertThat(c.create()).isTrue();
        assertThat(c.create()).as("created twice").isFalse();
        SegmentInfo info = c.info();
        assertThat(info.segment()).isEqualTo(c.segment());
        assertThat(info.sealed()).isFalse();
        assertThat(info.startOffset()).isZero();
        assertThat(info.length()).isZero();
        assertThat(info.lastModified()).isPositive();
        assertThat(c.length()).isZero();
        assertThat(c.startOffset()).isZero();
    }

    @Test
    void lengthFollowsAppends() {
        SegmentMetadataClient c = created();
        append(c, "abc", 3);
        assertThat(c.length()).isEqualTo(3 * 11);
        assertThat(c.info().startOffset()).isZero();
    }

    @Test
    void aMissingSegmentIsAnErrorExceptToDelete() {
        SegmentMetadataClient c = fresh();
        assertThatThrownBy(c::info).isInstanceOf(NoSuchSegmentException.class).hasMessageContaining(c.segment());
        assertThatThrownBy(c::length).isInstanceOf(NoSuchSegmentException.class);
        assertThatThrownBy(() -> c.attribute(UUID.randomUUID())).isInstanceOf(NoSuchSegmentException.class);
        assertThatThrownBy(() -> c.compareAndSetAttribute(UUID.randomUUID(), SegmentMetadataClient.NO_VALUE, 1))
                .isInstanceOf(NoSuchSegmentException.class);
        assertThatThrownBy(c::seal).isInstanceOf(NoSuchSegmentException.class);
        assertThatThrownBy(() -> c.truncate(0)).isInstanceOf(NoSuchSegmentException.class);
        assertThatThrownBy(() -> c.locateOffset(0)).isInstanceOf(NoSuchSegmentException.class);
        assertThat(c.delete()).isFalse();
    }

    @Test
    void deleteRemovesTheSegmentOnce() {
        SegmentMetadataClient c = created();
        append(c, "x", 1);
        assertThat(c.delete()).isTrue();
        assertThat(c.delete()).as("deleted twice").isFalse();
        assertThatThrownBy(c::info).isInstanceOf(NoSuchSegmentException.class);
        assertThat(c.create()).as("the name is free again").isTrue();
        assertThat(c.length()).isZero();
    }

    @Test
    void attributesAreComparedAndSet() {
        SegmentMetadataClient c = created();
        UUID a = UUID.randomUUID();
        assertThat(c.attribute(a)).isEqualTo(SegmentMetadataClient.NO_VALUE);
        assertThat(c.compareAndSetAttribute(a, SegmentMetadataClient.NO_VALUE, 5)).isTrue();
        assertThat(c.compareAndSetAttribute(a, SegmentMetadataClient.NO_VALUE, 6)).as("not unset any more").isFalse();
        assertThat(c.compareAndSetAttribute(a, 4, 6)).as("wrong expected value").isFalse();
        assertThat(c.attribute(a)).isEqualTo(5);
        assertThat(c.compareAndSetAttribute(a, 5, 6)).isTrue();
        assertThat(c.attribute(a)).isEqualTo(6);
        assertThat(c.compareAndSetAttribute(a, 6, SegmentMetadataClient.NO_VALUE)).as("removed").isTrue();
        assertThat(c.attribute(a)).isEqualTo(SegmentMetadataClient.NO_VALUE);
        assertThat(c.attribute(UUID.randomUUID())).as("another attribute").isEqualTo(SegmentMetadataClient.NO_VALUE);
    }

    @Test
    void sealingTwiceGivesTheSameLengthAndBlocksAttributeChanges() {
        SegmentMetadataClient c = created();
        append(c, "abcd", 2);
        assertThat(c.seal()).isEqualTo(24);
        assertThat(c.seal()).as("sealed twice").isEqualTo(24);
        assertThat(c.info().sealed()).isTrue();
        assertThatThrownBy(() -> c.compareAndSetAttribute(UUID.randomUUID(), SegmentMetadataClient.NO_VALUE, 1))
                .isInstanceOf(SegmentSealedException.class);
    }

    @Test
    void truncationMovesTheStartAndRefusesOffsetsBeyondTheEnd() {
        SegmentMetadataClient c = created();
        append(c, "abc", 3); // 33 bytes
        c.truncate(11);
        assertThat(c.info().startOffset()).isEqualTo(11);
        assertThat(c.length()).isEqualTo(33);
        c.truncate(11);
        c.truncate(5); // below the start: nothing to do
        assertThat(c.startOffset()).isEqualTo(11);
        assertThatThrownBy(() -> c.truncate(34)).isInstanceOf(InvalidRequestException.class)
                .hasMessageContaining(c.segment()).hasMessageContaining("34").hasMessageContaining("beyond its end");
        assertThat(c.startOffset()).isEqualTo(11);
        assertThatThrownBy(() -> c.truncate(-1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("-1");
        c.truncate(33);
        assertThat(c.info()).extracting(SegmentInfo::startOffset, SegmentInfo::length).containsExactly(33L, 33L);
    }

    @Test
    void mergeAppendsTheSourceAndDeletesIt() {
        SegmentMetadataClient target = created();
        SegmentMetadataClient source = created();
        append(target, "t", 1); // 9 bytes
        append(source, "ss", 2); // 20 bytes
        source.seal();

        assertThat(target.mergeFrom(source.segment())).isEqualTo(29);
        assertThat(target.length()).isEqualTo(29);
        assertThatThrownBy(source::info).isInstanceOf(NoSuchSegmentException.class);
        assertThatThrownBy(() -> target.mergeFrom(source.segment())).as("merged already")
                .isInstanceOf(NoSuchSegmentException.class);
    }

    @Test
    void mergeIntoASealedSegmentIsRefused() {
        SegmentMetadataClient target = created();
        SegmentMetadataClient source = created();
        source.seal();
        target.seal();
        assertThatThrownBy(() -> target.mergeFrom(source.segment())).isInstanceOf(SegmentSealedException.class);
        assertThat(source.info().sealed()).as("the source is still there").isTrue();
    }

    @Test
    void locateOffsetFindsTheNextEventBoundary() {
        SegmentMetadataClient c = created();
        append(c, "abc", 3); // events at 0, 11, 22; length 33
        assertThat(c.locateOffset(0)).isZero();
        assertThat(c.locateOffset(1)).isEqualTo(11);
        assertThat(c.locateOffset(11)).isEqualTo(11);
        assertThat(c.locateOffset(12)).isEqualTo(22);
        assertThat(c.locateOffset(40)).as("beyond the end: the end").isEqualTo(33);
        assertThatThrownBy(() -> c.locateOffset(-1)).isInstanceOf(IllegalArgumentException.class);
    }
}
