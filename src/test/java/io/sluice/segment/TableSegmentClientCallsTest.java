package io.sluice.segment;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.sluice.auth.AccessOperation;
import io.sluice.common.Endpoint;
import io.sluice.common.Retry;
import io.sluice.connection.ConnectionPool;
import io.sluice.connection.TcpConnectionFactory;
import io.sluice.wire.AuthTokenCheckFailed;
import io.sluice.wire.Bytes;
import io.sluice.wire.CreateTableSegment;
import io.sluice.wire.DeleteTableSegment;
import io.sluice.wire.GetTableSegmentInfo;
import io.sluice.wire.ReadSegment;
import io.sluice.wire.ReadTable;
import io.sluice.wire.ReadTableEntries;
import io.sluice.wire.ReadTableEntriesDelta;
import io.sluice.wire.ReadTableKeys;
import io.sluice.wire.RemoveTableKeys;
import io.sluice.wire.SegmentCreated;
import io.sluice.wire.SegmentDeleted;
import io.sluice.wire.TableEntries;
import io.sluice.wire.TableEntriesDeltaRead;
import io.sluice.wire.TableEntriesRead;
import io.sluice.wire.TableEntriesUpdated;
import io.sluice.wire.TableEntry;
import io.sluice.wire.TableIteratorArgs;
import io.sluice.wire.TableKey;
import io.sluice.wire.TableKeysRead;
import io.sluice.wire.TableKeysRemoved;
import io.sluice.wire.TableRead;
import io.sluice.wire.TableSegmentInfo;
import io.sluice.wire.TableValue;
import io.sluice.wire.UpdateTableEntries;
import io.sluice.wire.WireCommand;
import io.sluice.wire.WrongHost;

/**
 * The table-segment client's requests go through the segment-call layer: each carries the delegation token the
 * provider holds, a token the segment store calls expired is replaced by a fresh one and the request sent again, and
 * a WrongHost makes the client ask where the segment lives again. Against a scripted segment store.
 */
@Timeout(30)
class TableSegmentClientCallsTest {
    private static final String TABLE = "scope/_tables/scripted";
    private static final long VERSION = 7;

    /** What the scripted segment store saw: each request's type and the token it carried. */
    private final List<String> seen = Collections.synchronizedList(new ArrayList<>());
    private final AtomicInteger deltaReads = new AtomicInteger();

    private static TableEntry entry(ByteBuffer key) {
        return new TableEntry(new TableKey(key, VERSION), new TableValue(ByteBuffer.wrap("v".getBytes(
                StandardCharsets.UTF_8))));
    }

    /** @return true for the first page of an iteration: one key; the next is empty */
    private static boolean first(TableIteratorArgs args) {
        return !args.continuationToken().hasRemaining();
    }

    /** Answers like a table segment holding one key, refusing the token "old" as expired. */
    private void answer(WireCommand request, ScriptedSegmentStore.Peer peer) throws IOException {
        String token = switch (request) {
            case CreateTableSegment r -> r.delegationToken();
            case DeleteTableSegment r -> r.delegationToken();
            case UpdateTableEntries r -> r.delegationToken();
            case RemoveTableKeys r -> r.delegationToken();
            case ReadTable r -> r.delegationToken();
            case ReadTableKeys r -> r.delegationToken();
            case ReadTableEntries r -> r.delegationToken();
            case ReadTableEntriesDelta r -> r.delegationToken();
            case GetTableSegmentInfo r -> r.delegationToken();
            case ReadSegment r -> r.delegationToken();
            default -> throw new AssertionError("unexpected request " + request);
        };
        seen.add(request.type() + " " + token);
        long id = ((io.sluice.wire.Request) request).requestId();
        if (token.equals("old")) {
            peer.send(new AuthTokenCheckFailed(id, "", AuthTokenCheckFailed.ErrorCode.TOKEN_EXPIRED));
            return;
        }
        switch (request) {
            case CreateTableSegment r -> peer.send(new SegmentCreated(id, TABLE));
            case DeleteTableSegment r -> peer.send(new SegmentDeleted(id, TABLE));
            case UpdateTableEntries r -> peer.send(new TableEntriesUpdated(id,
                    Collections.nCopies(r.tableEntries().entries().size(), VERSION)));
            case RemoveTableKeys r -> peer.send(new TableKeysRemoved(id, TABLE));
            case ReadTable r -> peer.send(new TableRead(id, TABLE, new TableEntries(r.keys().stream()
                    .map(k -> entry(k.data())).toList())));
            case ReadTableKeys r -> peer.send(new TableKeysRead(id, TABLE, first(r.args())
                    ? List.of(new TableKey(Bytes.wrap(new byte[] {1}), VERSION)) : List.of(),
                    Bytes.wrap(new byte[] {9})));
            case ReadTableEntries r -> peer.send(new TableEntriesRead(id, TABLE, new TableEntries(first(r.args())
                    ? List.of(entry(Bytes.wrap(new byte[] {1}))) : List.of()), Bytes.wrap(new byte[] {9})));
            case ReadTableEntriesDelta r -> {
                if (deltaReads.incrementAndGet() == 1) {
                    peer.send(new WrongHost(id, TABLE, "", ""));
                } else {
                    peer.send(new TableEntriesDeltaRead(id, TABLE, new TableEntries(r.fromPosition() == 0
                            ? List.of(entry(Bytes.wrap(new byte[] {1}))) : List.of()), false, true,
                            r.fromPosition() == 0 ? 100 : 0));
                }
            }
            case GetTableSegmentInfo r -> peer.send(new TableSegmentInfo(id, TABLE, 0, 100, 1, 0));
            default -> {
                // ReadSegment: the wait at the end; left unanswered
            }
        }
    }

    @Test
    void everyRequestCarriesTheCurrentTokenAndRefusalsAreRetried() throws IOException {
        AtomicInteger fetches = new AtomicInteger();
        DelegationTokenProvider tokens = new DelegationTokenProvider("scope", "stream", AccessOperation.READ_WRITE,
                () -> fetches.incrementAndGet() == 1 ? "old" : "new");
        AtomicInteger invalidations = new AtomicInteger();
        try (ScriptedSegmentStore store = new ScriptedSegmentStore((conn, request, peer) -> answer(request, peer));
             ConnectionPool pool = new ConnectionPool(new TcpConnectionFactory())) {
            SegmentLocator locator = new SegmentLocator() {
                @Override
                public Endpoint endpoint(String segment) {
                    return store.endpoint();
                }

                @Override
                public void invalidate(String segment) {
                    invalidations.incrementAndGet();
                }
            };
            SegmentCalls calls = new SegmentCalls(pool, locator, new SegmentCalls.Config(
                    Retry.withExpBackoff(Duration.ofMillis(1), 2, 5, Duration.ofMillis(20)), Duration.ofSeconds(10)));
            TableSegmentClient t = new TableSegmentClient(calls, TABLE, tokens);
            ByteBuffer k = ByteBuffer.wrap(new byte[] {1});

            assertThat(t.create()).as("sent with the expired token, then again with the fresh one").isTrue();
            assertThat(fetches.get()).isEqualTo(2);
            assertThat(t.put(k, k)).isEqualTo(VERSION);
            assertThat(t.insert(k, k)).isEqualTo(VERSION);
            assertThat(t.get(k).orElseThrow().version()).isEqualTo(VERSION);
            t.remove(TableSegmentKey.versioned(k, VERSION));
            assertThat(t.info().entryCount()).isEqualTo(1);
            assertThat(t.keys().next().version()).isEqualTo(VERSION);
            assertThat(t.entries().next().version()).isEqualTo(VERSION);
            try (TableSegmentDeltaReader r = t.deltaReader(0)) {
                TableSegmentChanges c = r.next();
                assertThat(c.entries()).singleElement().extracting(TableSegmentEntry::version).isEqualTo(VERSION);
                assertThat(c.position()).isEqualTo(100);
                assertThat(r.poll(Duration.ofMillis(50))).isEmpty();
            }
            assertThat(invalidations.get()).as("the WrongHost made the client forget the endpoint").isEqualTo(1);
            assertThat(t.delete(false)).isTrue();
        }
        assertThat(seen.getFirst()).isEqualTo("CREATE_TABLE_SEGMENT old");
        assertThat(seen.subList(1, seen.size())).as("every later request carries the fresh token")
                .allMatch(s -> s.endsWith(" new"));
        assertThat(seen.stream().map(s -> s.substring(0, s.indexOf(' '))).distinct().toList()).containsExactly(
                "CREATE_TABLE_SEGMENT", "UPDATE_TABLE_ENTRIES", "READ_TABLE", "REMOVE_TABLE_KEYS",
                "GET_TABLE_SEGMENT_INFO", "READ_TABLE_KEYS", "READ_TABLE_ENTRIES", "READ_TABLE_ENTRIES_DELTA",
                "READ_SEGMENT", "DELETE_TABLE_SEGMENT");
    }
}
