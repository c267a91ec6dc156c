package io.sluice.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import io.sluice.common.Deadline;
import io.sluice.server.auth.AccessLevel;
import io.sluice.server.auth.DelegationTokens;
import io.sluice.wire.AppendBlockEnd;
import io.sluice.wire.AuthTokenCheckFailed;
import io.sluice.wire.Bytes;
import io.sluice.wire.CreateTransientSegment;
import io.sluice.wire.DataAppended;
import io.sluice.wire.ErrorMessage;
import io.sluice.wire.Hello;
import io.sluice.wire.KeepAlive;
import io.sluice.wire.MergeSegments;
import io.sluice.wire.MergeSegmentsBatch;
import io.sluice.wire.ReadSegment;
import io.sluice.wire.ReadTable;
import io.sluice.wire.ReadTableEntriesDelta;
import io.sluice.wire.ReadTableKeys;
import io.sluice.wire.Reply;
import io.sluice.wire.SegmentRead;
import io.sluice.wire.SetupAppend;
import io.sluice.wire.TableEntries;
import io.sluice.wire.TableEntriesDeltaRead;
import io.sluice.wire.TableEntriesUpdated;
import io.sluice.wire.TableEntry;
import io.sluice.wire.TableIteratorArgs;
import io.sluice.wire.TableKey;
import io.sluice.wire.TableKeysRead;
import io.sluice.wire.TableValue;
import io.sluice.wire.UpdateTableEntries;
import io.sluice.wire.WireCommandType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Regression tests for the defects an adversarial test of the segment store found: raw frames over a real socket.
 * Each failed on the server as it was before the fix it names.
 */
@Timeout(60)
class ServerHardeningTest {
    private static final String BOB = "bob/secret/0.#epoch.0";
    private static final String ALICE = "alice/mine/0.#epoch.0";
    private static final String TABLE = "_system/_tables/t";

    private final DelegationTokens tokens = new DelegationTokens(DelegationTokens.randomSecret(),
            Duration.ofMinutes(10), Clock.systemUTC());
    private final List<AutoCloseable> open = new ArrayList<>();
    private SegmentStore store;
    private SegmentStoreServer server;

    private SegmentStoreServer start(boolean auth, ServerLimits limits) throws IOException {
        store = SegmentStore.inMemory(1);
        server = new SegmentStoreServer(store, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), null,
                auth ? EmbeddedServer.verifierOf(tokens) : TokenVerifier.ACCEPT_ALL, limits);
        open.add(server);
        return server;
    }

    private RawWire connect() throws IOException {
        RawWire w = new RawWire(server.endpoint());
        open.add(w);
        return w.send(Hello.current());
    }

    @AfterEach
    void closeAll() throws Exception {
        for (AutoCloseable c : open.reversed()) {
            c.close();
        }
    }

    private String aliceToken() {
        return tokens.create("alice", "alice/mine", AccessLevel.READ_UPDATE);
    }

    private static ByteBuffer event(String text) {
        byte[] b = text.getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(8 + b.length).putInt(WireCommandType.EVENT.code()).putInt(b.length).put(b).flip();
    }

    private long length(String segment) {
        return store.segmentInfo(segment).orElseThrow().length();
    }

    /** Appends one event of {@code bytes} bytes (frame included) on a connection of its own and waits for the ack. */
    private void appendOneEvent(String segment, int bytes) throws IOException {
        RawWire writer = connect();
        UUID id = UUID.randomUUID();
        writer.send(new SetupAppend(1, id, segment, ""));
        writer.next(io.sluice.wire.AppendSetup.class);
        ByteBuffer frame = ByteBuffer.allocate(bytes).putInt(WireCommandType.EVENT.code()).putInt(bytes - 8);
        writer.send(new AppendBlockEnd(id, 0, frame.position(bytes).flip(), 1, 0, 2));
        writer.next(DataAppended.class);
    }

    /** Waits (on the condition, with a deadline) until the server has let go of every connection. */
    private void awaitNoConnections() {
        Deadline d = Deadline.after(Duration.ofSeconds(20));
        while (server.connectionCount() > 0 && !d.expired()) {
            Thread.onSpinWait();
            Thread.yield();
        }
        assertThat(server.connectionCount()).isZero();
    }

    // ---------------------------------------------------------------- defect 1

    @Test
    void aRefusedAppendSetupRegistersNoWriterSoItsAppendsAreNeverWritten() throws Exception {
        start(true, ServerLimits.DEFAULTS);
        store.createSegment(BOB, (byte) 0, 0, 0);
        UUID writer = UUID.randomUUID();
        RawWire w = connect();
        w.send(new SetupAppend(1, writer, BOB, ""));
        assertThat(w.next(AuthTokenCheckFailed.class).requestId()).isEqualTo(1);
        w.send(new SetupAppend(2, writer, BOB, aliceToken()));
        assertThat(w.next(AuthTokenCheckFailed.class).requestId()).isEqualTo(2);

        w.send(new AppendBlockEnd(writer, 0, event("forged"), 1, 0, 3));
        assertThat(w.closedByServer()).as("an append of a writer that was refused closes the connection").isTrue();
        assertThat(length(BOB)).isZero();
    }

    // ---------------------------------------------------------------- defect 2

    @Test
    void aMergeNeedsRightsOnItsSourceAsWellAsItsTarget() throws Exception {
        start(true, ServerLimits.DEFAULTS);
        store.createSegment(BOB, (byte) 0, 0, 0);
        store.createSegment(ALICE, (byte) 0, 0, 0);
        String bobTxn = BOB + "#transaction.00000000000000000000000000000001";
        store.createSegment(bobTxn, (byte) 0, 0, 0);
        RawWire w = connect();

        w.send(new MergeSegments(7, ALICE, BOB, aliceToken()));
        AuthTokenCheckFailed refused = w.next(AuthTokenCheckFailed.class);
        assertThat(refused.requestId()).isEqualTo(7);
        assertThat(refused.errorCode()).isEqualTo(AuthTokenCheckFailed.ErrorCode.TOKEN_CHECK_FAILED);

        w.send(new MergeSegmentsBatch(8, ALICE, List.of(bobTxn), aliceToken()));
        assertThat(w.next(AuthTokenCheckFailed.class).requestId()).isEqualTo(8);

        assertThat(store.segmentInfo(BOB)).isPresent();
        assertThat(store.segmentInfo(bobTxn)).isPresent();
        assertThat(store.segmentInfo(BOB).orElseThrow().sealed()).isFalse();
    }

    // ---------------------------------------------------------------- defect 3

    @Test
    void aFrameHeaderAloneDoesNotMakeTheServerAllocateTheFrame() throws Exception {
        start(false, ServerLimits.DEFAULTS);
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        System.gc();
        long before = memory.getHeapMemoryUsage().getUsed();
        int attackers = 24;
        for (int i = 0; i < attackers; i++) {
            // 16 MiB declared, nothing sent: the old server allocated all of it at once, 384 MiB in all
            connect().sendHeader(WireCommandType.CREATE_SEGMENT.code(), 16 * 1024 * 1024 - 16);
        }
        // every attacking connection has been read up to its header once a request after them is answered
        RawWire probe = connect();
        probe.send(new KeepAlive());
        assertThat(probe.next(KeepAlive.class)).isNotNull();
        awaitConnections(attackers + 1);
        System.gc();
        long grown = memory.getHeapMemoryUsage().getUsed() - before;
        assertThat(grown).as("heap held for %d frame headers", attackers).isLessThan(96L * 1024 * 1024);
    }

    private void awaitConnections(int n) {
        Deadline d = Deadline.after(Duration.ofSeconds(20));
        while (server.connectionCount() < n && !d.expired()) {
            Thread.yield();
        }
        assertThat(server.connectionCount()).isEqualTo(n);
    }

    @Test
    void beforeAnyValidTokenALargeFrameClosesTheConnectionUnlessItIsATableRequestWithAValidToken() throws Exception {
        start(true, new ServerLimits(64 << 20, 16 << 20, 64 * 1024));
        store.createTableSegment(TABLE, 0);
        String tableToken = tokens.create("t", "_system/_tables", AccessLevel.READ_UPDATE);

        RawWire attacker = connect();
        attacker.sendHeader(WireCommandType.CREATE_SEGMENT.code(), 1024 * 1024);
        assertThat(attacker.closedByServer()).as("a 1 MiB CreateSegment before authentication").isTrue();

        // a well-behaved client's big first request passes, and one with a bad token is refused like any request
        byte[] value = new byte[512 * 1024];
        TableEntries big = new TableEntries(List.of(new TableEntry(new TableKey(Bytes.wrap("k".getBytes()),
                TableKey.NO_VERSION), new TableValue(ByteBuffer.wrap(value)))));
        RawWire forged = connect();
        forged.send(new UpdateTableEntries(1, TABLE, "forged", big, -1));
        assertThat(forged.next(AuthTokenCheckFailed.class).requestId()).isEqualTo(1);
        forged.send(new KeepAlive());
        assertThat(forged.next(KeepAlive.class)).as("the connection still serves after the refusal").isNotNull();

        RawWire client = connect();
        client.send(new UpdateTableEntries(2, TABLE, tableToken, big, -1));
        assertThat(client.next(TableEntriesUpdated.class).requestId()).isEqualTo(2);
    }

    // ---------------------------------------------------------------- defect 4

    @Test
    void aClientThatDoesNotReadItsRepliesIsStoppedAtTheQueueLimitAndLosesNothing() throws Exception {
        start(false, ServerLimits.DEFAULTS);
        String segment = "s/t/0.#epoch.0";
        store.createSegment(segment, (byte) 0, 0, 0);
        appendOneEvent(segment, 2 * 1024 * 1024);

        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        System.gc();
        long before = memory.getHeapMemoryUsage().getUsed();
        RawWire reader = connect();
        reader.next(Hello.class);
        int requests = 200; // 400 MiB of replies
        ByteBuffer frames = ByteBuffer.allocate(requests * 64);
        for (int i = 0; i < requests; i++) {
            frames.put(io.sluice.wire.FrameCodec.encode(new ReadSegment(segment, 0, 2 * 1024 * 1024, "", 100 + i)));
        }
        reader.sendRaw(java.util.Arrays.copyOf(frames.array(), frames.position()));
        // the server reads the requests as it will: watch its heap for a while (the old server held every reply)
        Deadline window = Deadline.after(Duration.ofSeconds(3));
        do {
            System.gc();
            long grown = memory.getHeapMemoryUsage().getUsed() - before;
            assertThat(grown).as("heap held for %d unread 2 MiB replies", requests).isLessThan(128L * 1024 * 1024);
        } while (!window.expired());

        int first = -1;
        for (int i = 0; i < requests; i++) {
            SegmentRead r = reader.next(SegmentRead.class);
            assertThat(r.requestId()).isEqualTo(100 + i);
            assertThat(r.offset()).isZero();
            first = first < 0 ? r.data().remaining() : first;
            assertThat(r.data().remaining()).as("every reply of the same read").isEqualTo(first).isPositive();
        }
    }

    @Test
    void readsParkedAtTheTailShareTheDataThatWakesThem() throws Exception {
        start(false, ServerLimits.DEFAULTS);
        String segment = "s/t/1.#epoch.0";
        store.createSegment(segment, (byte) 0, 0, 0);
        RawWire reader = connect();
        reader.next(Hello.class);
        int parked = 300;
        ByteBuffer frames = ByteBuffer.allocate(parked * 64);
        for (int i = 0; i < parked; i++) {
            frames.put(io.sluice.wire.FrameCodec.encode(new ReadSegment(segment, 0, 2 * 1024 * 1024, "", 100 + i)));
        }
        reader.sendRaw(java.util.Arrays.copyOf(frames.array(), frames.position()));
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        System.gc();
        long before = memory.getHeapMemoryUsage().getUsed();
        // one 1 MiB append wakes all of them: the old server made a copy of it for each, 300 MiB
        appendOneEvent(segment, 1024 * 1024);
        System.gc();
        long grown = memory.getHeapMemoryUsage().getUsed() - before;
        assertThat(grown).as("heap held for %d woken reads of 1 MiB", parked).isLessThan(128L * 1024 * 1024);
        for (int i = 0; i < parked; i++) {
            SegmentRead r = reader.next(SegmentRead.class);
            assertThat(r.offset()).isZero();
            assertThat(r.data().remaining()).isPositive();
        }
    }

    // ---------------------------------------------------------------- defect 5

    @Test
    void aTransientNameThatCannotBeEncodedIsRefusedAndTheConnectionIsCleanedUp() throws Exception {
        start(false, ServerLimits.DEFAULTS);
        String parent = "p".repeat(65_535);
        try (RawWire w = new RawWire(server.endpoint())) {
            w.send(Hello.current());
            w.send(new CreateTransientSegment(1, UUID.randomUUID(), parent, ""));
            ErrorMessage refused = w.next(ErrorMessage.class);
            assertThat(refused.requestId()).isEqualTo(1);
            assertThat(refused.errorCode()).isEqualTo(ErrorMessage.ErrorCode.ILLEGAL_ARGUMENT_EXCEPTION);
            // a reply whose message names an over-long segment is still sent
            w.send(new ReadTable(2, parent, "", List.of()));
            assertThat(w.next(Reply.class)).isNotNull();
        }
        awaitNoConnections();
    }

    @Test
    void aRefusalNamingAnOverLongSegmentIsStillSent() throws Exception {
        start(true, ServerLimits.DEFAULTS);
        RawWire w = connect();
        w.send(new ReadSegment("a/b/" + "x".repeat(65_500), 0, 10, "", 5));
        assertThat(w.next(AuthTokenCheckFailed.class).requestId()).isEqualTo(5);
    }

    // ---------------------------------------------------------------- defect 6

    @Test
    void badTableIterationArgumentsGetAnErrorReplyAndTheConnectionStaysOpen() throws Exception {
        start(false, ServerLimits.DEFAULTS);
        store.createTableSegment(TABLE, 0);
        RawWire w = connect();
        List<TableEntry> entries = new ArrayList<>();
        for (String k : List.of("a", "b", "c", "d")) {
            entries.add(new TableEntry(new TableKey(Bytes.wrap(k.getBytes()), TableKey.NO_VERSION),
                    new TableValue(Bytes.wrap(k.getBytes()))));
        }
        w.send(new UpdateTableEntries(1, TABLE, "", new TableEntries(entries), -1));
        w.next(TableEntriesUpdated.class);

        ByteBuffer b = Bytes.wrap("b".getBytes());
        ByteBuffer c = Bytes.wrap("c".getBytes());
        w.send(new ReadTableKeys(2, TABLE, "", 10, new TableIteratorArgs(Bytes.EMPTY, Bytes.EMPTY, c, b)));
        ErrorMessage inverted = w.next(ErrorMessage.class);
        assertThat(inverted.requestId()).isEqualTo(2);
        assertThat(inverted.errorCode()).isEqualTo(ErrorMessage.ErrorCode.ILLEGAL_ARGUMENT_EXCEPTION);

        // continuation tokens outside [from, to] are positions: before the range it starts at from, after it ends
        w.send(new ReadTableKeys(3, TABLE, "", 10, new TableIteratorArgs(Bytes.wrap("a".getBytes()), Bytes.EMPTY,
                b, c)));
        assertThat(w.next(TableKeysRead.class).keys()).hasSize(2);
        w.send(new ReadTableKeys(4, TABLE, "", 10, new TableIteratorArgs(Bytes.wrap("d".getBytes()), Bytes.EMPTY,
                b, c)));
        assertThat(w.next(TableKeysRead.class).keys()).isEmpty();

        w.send(new ReadTableEntriesDelta(5, TABLE, "", 0, Integer.MAX_VALUE));
        TableEntriesDeltaRead delta = w.next(TableEntriesDeltaRead.class);
        assertThat(delta.entries().entries()).hasSize(4);
        assertThat(delta.reachedEnd()).isTrue();
    }
}
