package io.sluice.segment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.Random;

import io.sluice.common.Retry;
import io.sluice.connection.ConnectionPool;
import io.sluice.connection.TcpConnectionFactory;
import io.sluice.errors.SegmentSealedException;
import io.sluice.wire.AppendSetup;
import io.sluice.wire.ConditionalBlockEnd;
import io.sluice.wire.ConditionalCheckFailed;
import io.sluice.wire.CreateTransientSegment;
import io.sluice.wire.DataAppended;
import io.sluice.wire.DeleteSegment;
import io.sluice.wire.MergeSegments;
import io.sluice.wire.SegmentCreated;
import io.sluice.wire.SegmentDeleted;
import io.sluice.wire.SegmentIsSealed;
import io.sluice.wire.SegmentsMerged;
import io.sluice.wire.SetupAppend;
import io.sluice.wire.WireCommand;
import io.sluice.wire.WireOutput;
import io.sluice.wire.WireProtocol;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The large-event writer's requests, in the order and shape of Pravega 0.13's {@code LargeEventWriter}, against a
 * scripted segment store: retried with a fresh transient segment, the abandoned one deleted, a sealed parent
 * reported.
 */
@Timeout(60)
class LargeEventWriterTest {
    private static final String PARENT = "scope/stream/0.#epoch.0";
    private static final int MIB = 1024 * 1024;
    private static final SegmentCalls.Config FAST = new SegmentCalls.Config(
            Retry.withExpBackoff(Duration.ofMillis(1), 2, 5, Duration.ofMillis(20)), Duration.ofSeconds(10));

    private ConnectionPool pool;

    @BeforeEach
    void start() {
        pool = new ConnectionPool(new TcpConnectionFactory());
    }

    @AfterEach
    void stop() {
        pool.close();
    }

    private LargeEventWriter writer(ScriptedSegmentStore fake) {
        return new LargeEventWriter(new SegmentCalls(pool, SegmentLocator.fixed(fake.endpoint()), FAST));
    }

    private static String transientOf(CreateTransientSegment c, int n) {
        return c.parentSegment() + "#transient." + n;
    }

    /** Answers like a real segment store; {@code failFirstPiece} refuses piece 0 of the first transient segment. */
    private static ScriptedSegmentStore.Script store(boolean failFirstPiece, boolean sealedParent) {
        return store(failFirstPiece, sealedParent, false);
    }

    /** As above; {@code hangUpOnFirstPiece} closes the connection on piece 0 of the first transient segment. */
    private static ScriptedSegmentStore.Script store(boolean failFirstPiece, boolean sealedParent,
                                                     boolean hangUpOnFirstPiece) {
        int[] created = new int[1];
        return (conn, request, peer) -> {
            switch (request) {
                case ConditionalBlockEnd b when hangUpOnFirstPiece && created[0] == 1 && b.eventNumber() == 0 ->
                        peer.hangUp();
                case CreateTransientSegment c -> peer.send(new SegmentCreated(c.requestId(),
                        transientOf(c, ++created[0])));
                case SetupAppend s -> peer.send(new AppendSetup(s.requestId(), s.segment(), s.writerId(),
                        WireProtocol.NULL_ATTRIBUTE_VALUE));
                case ConditionalBlockEnd b when failFirstPiece && created[0] == 1 && b.eventNumber() == 0 ->
                        peer.send(new ConditionalCheckFailed(b.writerId(), b.eventNumber(), b.requestId()));
                case ConditionalBlockEnd b -> peer.send(new DataAppended(b.requestId(), b.writerId(), b.eventNumber(),
                        b.eventNumber() - 1, b.expectedOffset() + b.data().remaining()));
                case MergeSegments m when sealedParent -> peer.send(new SegmentIsSealed(m.requestId(), m.source(), "",
                        -1));
                case MergeSegments m -> peer.send(new SegmentsMerged(m.requestId(), m.target(), m.source(), 12345));
                case DeleteSegment d -> peer.send(new SegmentDeleted(d.requestId(), d.segment()));
                default -> throw new AssertionError("unexpected " + request);
            }
        };
    }

    private static List<WireCommand> ofType(List<WireCommand> commands, Class<?> type) {
        return commands.stream().filter(type::isInstance).toList();
    }

    private static ByteBuffer event(int n) {
        byte[] b = new byte[n];
        new Random(n).nextBytes(b);
        return ByteBuffer.wrap(b);
    }

    @Test
    void sendsTheSequenceOfPravegasClient() throws IOException {
        ByteBuffer event = event(20 * MIB);
        try (ScriptedSegmentStore fake = new ScriptedSegmentStore(store(false, false))) {
            assertThat(writer(fake).write(PARENT, null, List.of(event))).isEqualTo(12345);
            List<WireCommand> got = fake.received();
            assertThat(got).extracting(c -> c.getClass().getSimpleName()).containsExactly("CreateTransientSegment",
                    "SetupAppend", "ConditionalBlockEnd", "ConditionalBlockEnd", "ConditionalBlockEnd",
                    "MergeSegments");
            CreateTransientSegment create = (CreateTransientSegment) got.get(0);
            assertThat(create.parentSegment()).isEqualTo(PARENT);
            SetupAppend setup = (SetupAppend) got.get(1);
            assertThat(setup.segment()).isEqualTo(transientOf(create, 1));
            assertThat(setup.writerId()).isEqualTo(create.writerId());
            WireOutput joined = new WireOutput(21 * MIB);
            for (int i = 0; i < 3; i++) {
                ConditionalBlockEnd b = (ConditionalBlockEnd) got.get(2 + i);
                assertThat(b.writerId()).isEqualTo(create.writerId());
                assertThat(b.eventNumber()).isEqualTo(i);
                assertThat(b.expectedOffset()).isEqualTo(8L * MIB * i);
                assertThat(b.data().remaining()).isEqualTo(i < 2 ? 8 * MIB : 4 * MIB + 8);
                joined.writeBytes(b.data());
            }
            WireOutput expected = new WireOutput(21 * MIB);
            expected.writeEventFrame(event);
            assertThat(joined.buffer()).isEqualTo(expected.buffer());
            MergeSegments merge = (MergeSegments) got.get(5);
            assertThat(merge.target()).isEqualTo(PARENT);
            assertThat(merge.source()).isEqualTo(transientOf(create, 1));
        }
    }

    @Test
    void aRefusedPieceStartsOverWithAFreshTransientSegmentAndDeletesTheOldOne() throws IOException {
        try (ScriptedSegmentStore fake = new ScriptedSegmentStore(store(true, false))) {
            writer(fake).write(PARENT, null, List.of(event(9 * MIB)));
            List<WireCommand> got = fake.received();
            List<WireCommand> creates = ofType(got, CreateTransientSegment.class);
            assertThat(creates).hasSize(2);
            CreateTransientSegment first = (CreateTransientSegment) creates.get(0);
            CreateTransientSegment second = (CreateTransientSegment) creates.get(1);
            assertThat(second.writerId()).isNotEqualTo(first.writerId());
            assertThat(ofType(got, DeleteSegment.class)).singleElement()
                    .extracting(d -> ((DeleteSegment) d).segment()).isEqualTo(transientOf(first, 1));
            assertThat(ofType(got, MergeSegments.class)).singleElement()
                    .extracting(m -> ((MergeSegments) m).source()).isEqualTo(transientOf(second, 2));
        }
    }

    @Test
    void aSealedParentIsReportedAndNothingIsLeftBehind() throws IOException {
        try (ScriptedSegmentStore fake = new ScriptedSegmentStore(store(false, true))) {
            assertThatThrownBy(() -> writer(fake).write(PARENT, null, List.of(event(9 * MIB))))
                    .isInstanceOf(SegmentSealedException.class).hasMessageContaining(PARENT);
            List<WireCommand> got = fake.received();
            assertThat(ofType(got, CreateTransientSegment.class)).as("not retried").hasSize(1);
            assertThat(ofType(got, DeleteSegment.class)).hasSize(1);
        }
    }

    @Test
    void aTransientSegmentWhoseConnectionWasLostIsDeletedOverTheNextOne() throws IOException {
        try (ScriptedSegmentStore fake = new ScriptedSegmentStore(store(false, false, true))) {
            writer(fake).write(PARENT, null, List.of(event(9 * MIB)));
            assertThat(fake.connections()).isEqualTo(2);
            List<WireCommand> got = fake.received();
            List<WireCommand> creates = ofType(got, CreateTransientSegment.class);
            assertThat(creates).hasSize(2);
            String first = transientOf((CreateTransientSegment) creates.get(0), 1);
            WireCommand delete = ofType(got, DeleteSegment.class).stream().filter(d -> ((DeleteSegment) d).segment()
                    .equals(first)).findFirst().orElseThrow();
            assertThat(got.indexOf(delete)).as("deleted before the second attempt").isLessThan(got.indexOf(
                    creates.get(1)));
            assertThat(ofType(got, MergeSegments.class)).singleElement()
                    .extracting(m -> ((MergeSegments) m).source()).isEqualTo(transientOf(
                            (CreateTransientSegment) creates.get(1), 2));
        }
    }
}
