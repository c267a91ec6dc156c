package io.sluice.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;

import io.sluice.wire.ConditionalAttributeUpdate;
import io.sluice.wire.CreateSegment;
import io.sluice.wire.CreateTableSegment;
import io.sluice.wire.DeleteSegment;
import io.sluice.wire.DeleteTableSegment;
import io.sluice.wire.FrameCodec;
import io.sluice.wire.InvalidWireCommandException;
import io.sluice.wire.MergeSegments;
import io.sluice.wire.MergeSegmentsBatch;
import io.sluice.wire.ReadSegment;
import io.sluice.wire.RemoveTableKeys;
import io.sluice.wire.Request;
import io.sluice.wire.SealSegment;
import io.sluice.wire.TableEntries;
import io.sluice.wire.TableEntry;
import io.sluice.wire.TableKey;
import io.sluice.wire.TableValue;
import io.sluice.wire.TruncateSegment;
import io.sluice.wire.UpdateSegmentAttribute;
import io.sluice.wire.UpdateSegmentPolicy;
import io.sluice.wire.UpdateTableEntries;
import io.sluice.wire.WireOutput;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The write log's own record format: every kind round-trips, the layout is pinned, no token is ever written. */
@Timeout(30)
class ContainerOpTest {
    /** A token with bytes that occur nowhere else in the records. */
    static final String TOKEN = "TOKEN-must-not-reach-the-disk-7f3a";
    private static final long TIME = 1_700_000_000_123L;
    private static final UUID ATTRIBUTE = new UUID(0x0102030405060708L, 0x090a0b0c0d0e0f10L);
    private static final UUID WRITER = new UUID(0x1111111111111111L, 0x2222222222222222L);

    private static ByteBuffer bytes(String s) {
        return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
    }

    /** One request of every mutating kind, each with request id {@code rid} and delegation token {@code token}. */
    static List<Request> everyRequest(String scope, long rid, String token) {
        String seg = scope + "/stream/0.#epoch.0";
        String table = scope + "/_tables/kvt_0";
        return List.of(
                new CreateSegment(rid, seg, CreateSegment.IN_EVENTS_PER_SEC, 100, token, 1L << 30),
                new CreateTableSegment(rid, table, true, 2, token, 4096),
                new UpdateSegmentPolicy(rid, seg, CreateSegment.IN_KBYTES_PER_SEC, 7, token),
                new UpdateSegmentAttribute(rid, seg, ATTRIBUTE, 42, Long.MIN_VALUE, token),
                new UpdateTableEntries(rid, table, token, new TableEntries(List.of(
                        new TableEntry(new TableKey(bytes("k1"), TableKey.NOT_EXISTS), new TableValue(bytes("v1"))),
                        new TableEntry(new TableKey(bytes("k2"), TableKey.NO_VERSION), TableValue.EMPTY))), 0),
                new RemoveTableKeys(rid, table, token, List.of(new TableKey(bytes("k2"), TableKey.NO_VERSION)),
                        UpdateTableEntries.NULL_TABLE_SEGMENT_OFFSET),
                new CreateSegment(rid, seg + "#transaction.a", CreateSegment.NO_SCALE, 0, token, 0),
                new CreateSegment(rid, seg + "#transaction.b", CreateSegment.NO_SCALE, 0, token, 0),
                new CreateSegment(rid, seg + "#transaction.c", CreateSegment.NO_SCALE, 0, token, 0),
                new MergeSegments(rid, seg, seg + "#transaction.a", token, List.of(new ConditionalAttributeUpdate(
                        ATTRIBUTE, ConditionalAttributeUpdate.REPLACE_IF_EQUALS, 43, 42))),
                new MergeSegmentsBatch(rid, seg, List.of(seg + "#transaction.b", seg + "#transaction.c"), token),
                new TruncateSegment(rid, seg, 0, token),
                new SealSegment(rid, seg, token),
                new CreateSegment(rid, scope + "/gone/0", CreateSegment.NO_SCALE, 0, token, 0),
                new DeleteSegment(rid, scope + "/gone/0", token),
                new CreateTableSegment(rid, scope + "/_tables/gone", false, 0, token, 0),
                new DeleteTableSegment(rid, scope + "/_tables/gone", true, token));
    }

    /** What decoding gives back for {@code r}: the same request with request id 0 and no token. */
    private static Request withoutWireFields(Request r) {
        return switch (r) {
            case CreateSegment c -> new CreateSegment(0, c.segment(), c.scaleType(), c.targetRate(), "",
                    c.rolloverSizeBytes());
            case CreateTableSegment c -> new CreateTableSegment(0, c.segment(), false, c.keyLength(), "",
                    c.rolloverSizeBytes());
            case SealSegment c -> new SealSegment(0, c.segment(), "");
            case DeleteSegment c -> new DeleteSegment(0, c.segment(), "");
            case TruncateSegment c -> new TruncateSegment(0, c.segment(), c.truncationOffset(), "");
            case UpdateSegmentPolicy c -> new UpdateSegmentPolicy(0, c.segment(), c.scaleType(), c.targetRate(), "");
            case UpdateSegmentAttribute c -> new UpdateSegmentAttribute(0, c.segmentName(), c.attributeId(),
                    c.newValue(), c.expectedValue(), "");
            case MergeSegments c -> new MergeSegments(0, c.target(), c.source(), "", c.attributeUpdates());
            case MergeSegmentsBatch c -> new MergeSegmentsBatch(0, c.targetSegmentId(), c.sourceSegmentIds(), "");
            case DeleteTableSegment c -> new DeleteTableSegment(0, c.segment(), c.mustBeEmpty(), "");
            case UpdateTableEntries c -> new UpdateTableEntries(0, c.segment(), "", c.tableEntries(),
                    c.tableSegmentOffset());
            case RemoveTableKeys c -> new RemoveTableKeys(0, c.segment(), "", c.keys(), c.tableSegmentOffset());
            default -> throw new AssertionError(r);
        };
    }

    private static List<ContainerOp> everyOp() {
        List<ContainerOp> ops = new ArrayList<>();
        for (Request r : everyRequest("scope", 99, TOKEN)) {
            ops.add(new ContainerOp.Wire(TIME, r, SegmentStore.segmentOf(r)));
        }
        ops.add(new ContainerOp.Append(TIME, "scope/stream/0.#epoch.0", WRITER, 17, 3, 12, 99, bytes("abc")));
        ops.add(new ContainerOp.Append(TIME, "scope/stream/0.#epoch.0", WRITER, 18, 1,
                ContainerOp.Append.UNCONDITIONAL, 99, ByteBuffer.allocate(0)));
        ops.add(new ContainerOp.CreateTransient(TIME, "scope/stream/0.#transient.x", 99));
        return ops;
    }

    @Test
    void everyKindRoundTripsWithoutItsWireFields() {
        Set<Byte> kinds = new TreeSet<>();
        for (ContainerOp op : everyOp()) {
            byte[] entry = ContainerOp.encode(op);
            kinds.add(entry[0]);
            ContainerOp expected = switch (op) {
                case ContainerOp.Wire w -> new ContainerOp.Wire(w.timestampMillis(), withoutWireFields(w.request()),
                        w.segment());
                case ContainerOp.Append a -> new ContainerOp.Append(a.timestampMillis(), a.segment(), a.writerId(),
                        a.eventNumber(), a.eventCount(), a.expectedOffset(), 0, a.data());
                case ContainerOp.CreateTransient t -> new ContainerOp.CreateTransient(t.timestampMillis(), t.segment(), 0);
            };
            assertThat(ContainerOp.decode(entry)).as(op.toString()).isEqualTo(expected);
            assertThat(ContainerOp.encode(ContainerOp.decode(entry))).as("re-encoded " + op).isEqualTo(entry);
        }
        Set<Byte> all = new TreeSet<>();
        for (byte k = 1; k <= 14; k++) {
            all.add(k);
        }
        assertThat(kinds).as("every record kind is covered").isEqualTo(all);
    }

    @Test
    void noTokenAndNoWireFrameInAnyRecord() {
        byte[] token = TOKEN.getBytes(StandardCharsets.UTF_8);
        for (ContainerOp op : everyOp()) {
            byte[] entry = ContainerOp.encode(op);
            assertThat(indexOf(entry, token)).as("token in " + op).isEqualTo(-1);
        }
    }

    @Test
    void goldenBytesPinTheLayout() {
        HexFormat hex = HexFormat.of();
        String time = "0000018bcfe5687b";
        // kind | time | segment UTF ("a/b/0")
        assertThat(hex.formatHex(ContainerOp.encode(new ContainerOp.Wire(TIME, new SealSegment(5, "a/b/0", TOKEN), "a/b/0"))))
                .isEqualTo("03" + time + "0005612f622f30");
        // CreateSegment: scaleType u8 | targetRate i32 | rollover i64
        assertThat(hex.formatHex(ContainerOp.encode(new ContainerOp.Wire(TIME,
                new CreateSegment(5, "a/b/0", (byte) 1, 100, TOKEN, 1024), "a/b/0"))))
                .isEqualTo("01" + time + "0005612f622f30" + "01" + "00000064" + "0000000000000400");
        // UpdateTableEntries: tableSegmentOffset i64 | count i32 | (key blob | version i64 | value blob) x count
        assertThat(hex.formatHex(ContainerOp.encode(new ContainerOp.Wire(TIME, new UpdateTableEntries(5, "t", TOKEN,
                new TableEntries(List.of(new TableEntry(new TableKey(bytes("k"), 7), new TableValue(bytes("vv"))))),
                -1), "t"))))
                .isEqualTo("0b" + time + "000174" + "ffffffffffffffff" + "00000001"
                        + "000000016b" + "0000000000000007" + "000000027676");
        // RemoveTableKeys: tableSegmentOffset i64 | count i32 | (key blob | version i64) x count
        assertThat(hex.formatHex(ContainerOp.encode(new ContainerOp.Wire(TIME, new RemoveTableKeys(5, "t", TOKEN,
                List.of(new TableKey(bytes("k"), TableKey.NO_VERSION)), 9), "t"))))
                .isEqualTo("0c" + time + "000174" + "0000000000000009" + "00000001" + "000000016b" + "8000000000000000");
        // MergeSegments: source UTF | count i32 | (attribute UUID | type u8 | new i64 | old i64) x count
        assertThat(hex.formatHex(ContainerOp.encode(new ContainerOp.Wire(TIME, new MergeSegments(5, "t", "s", TOKEN,
                List.of(new ConditionalAttributeUpdate(ATTRIBUTE, (byte) 4, 2, 1))), "t"))))
                .isEqualTo("08" + time + "000174" + "000173" + "00000001" + "0102030405060708090a0b0c0d0e0f10" + "04"
                        + "0000000000000002" + "0000000000000001");
        // MergeSegmentsBatch: count i32 | source UTF x count
        assertThat(hex.formatHex(ContainerOp.encode(new ContainerOp.Wire(TIME,
                new MergeSegmentsBatch(5, "t", List.of("s", "r"), TOKEN), "t"))))
                .isEqualTo("09" + time + "000174" + "00000002" + "000173" + "000172");
        // UpdateSegmentAttribute: attribute UUID | new i64 | expected i64
        assertThat(hex.formatHex(ContainerOp.encode(new ContainerOp.Wire(TIME,
                new UpdateSegmentAttribute(5, "t", ATTRIBUTE, 3, 2, TOKEN), "t"))))
                .isEqualTo("07" + time + "000174" + "0102030405060708090a0b0c0d0e0f10" + "0000000000000003"
                        + "0000000000000002");
        // Append: writer UUID | eventNumber i64 | eventCount i32 | expectedOffset i64 | data blob
        assertThat(hex.formatHex(ContainerOp.encode(new ContainerOp.Append(TIME, "t", WRITER, 17, 3, 12, 99,
                bytes("abc"))))).isEqualTo("0d" + time + "000174" + "11111111111111112222222222222222"
                        + "0000000000000011" + "00000003" + "000000000000000c" + "00000003616263");
        assertThat(hex.formatHex(ContainerOp.encode(new ContainerOp.CreateTransient(TIME, "t", 99))))
                .isEqualTo("0e" + time + "000174");
    }

    @Test
    void unknownKindsTrailingBytesAndTruncationAreRefused() {
        byte[] seal = ContainerOp.encode(new ContainerOp.Wire(TIME, new SealSegment(5, "a/b/0", ""), "a/b/0"));
        byte[] unknown = seal.clone();
        unknown[0] = 99;
        assertThatThrownBy(() -> ContainerOp.decode(unknown)).isInstanceOf(InvalidWireCommandException.class)
                .hasMessageContaining("unknown write log record kind 99");
        byte[] longer = Arrays.copyOf(seal, seal.length + 1);
        assertThatThrownBy(() -> ContainerOp.decode(longer)).isInstanceOf(InvalidWireCommandException.class)
                .hasMessageContaining("1 bytes after the end");
        byte[] shorter = Arrays.copyOf(seal, seal.length - 1);
        assertThatThrownBy(() -> ContainerOp.decode(shorter)).isInstanceOf(InvalidWireCommandException.class);
    }

    @Test
    void aRequestThatChangesNothingHasNoRecord() {
        Request read = new ReadSegment("a/b/0", 0, 10, TOKEN, 1);
        assertThatThrownBy(() -> ContainerOp.encode(new ContainerOp.Wire(TIME, read, "a/b/0")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("does not change a segment");
    }

    /** An entry as servers before record format 2 wrote it: tag 1, the time, a whole wire frame, token included. */
    static byte[] legacyEntry(Request r) {
        WireOutput out = new WireOutput();
        out.writeByte(1);
        out.writeLong(TIME);
        FrameCodec.encode(r, out);
        return out.toByteArray();
    }

    @Test
    void aLegacyEntryIsNotReadAsARecord() {
        byte[] legacy = legacyEntry(new SealSegment(5, "a/b/0", TOKEN));
        assertThatThrownBy(() -> ContainerOp.decode(legacy)).isInstanceOf(InvalidWireCommandException.class);
    }

    static int indexOf(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }
}
