package io.sluice.wire.samples;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;

import io.sluice.wire.AuthTokenCheckFailed;
import io.sluice.wire.Bytes;
import io.sluice.wire.CreateTableSegment;
import io.sluice.wire.DeleteTableSegment;
import io.sluice.wire.ErrorMessage;
import io.sluice.wire.GetTableSegmentInfo;
import io.sluice.wire.InvalidEventNumber;
import io.sluice.wire.OperationUnsupported;
import io.sluice.wire.ReadTable;
import io.sluice.wire.ReadTableEntries;
import io.sluice.wire.ReadTableEntriesDelta;
import io.sluice.wire.ReadTableKeys;
import io.sluice.wire.RemoveTableKeys;
import io.sluice.wire.SegmentAlreadyExists;
import io.sluice.wire.SegmentIsSealed;
import io.sluice.wire.SegmentIsTruncated;
import io.sluice.wire.TableEntries;
import io.sluice.wire.TableEntriesDeltaRead;
import io.sluice.wire.TableEntriesRead;
import io.sluice.wire.TableEntriesUpdated;
import io.sluice.wire.TableEntry;
import io.sluice.wire.TableIteratorArgs;
import io.sluice.wire.TableKey;
import io.sluice.wire.TableKeyBadVersion;
import io.sluice.wire.TableKeyDoesNotExist;
import io.sluice.wire.TableKeysRead;
import io.sluice.wire.TableKeysRemoved;
import io.sluice.wire.TableRead;
import io.sluice.wire.TableSegmentInfo;
import io.sluice.wire.TableSegmentNotEmpty;
import io.sluice.wire.TableValue;
import io.sluice.wire.UpdateTableEntries;
import io.sluice.wire.WireCommand;
import io.sluice.wire.WrongHost;

/**
 * Samples of the error replies and the table-segment commands.
 *
 * <p>Two wire quirks shape the random values: an empty {@link TableKey} loses its version on the wire, so random
 * empty keys always carry {@link TableKey#NO_VERSION}; and Pravega's writer always sends an empty
 * {@code prefixFilter}, so samples keep it empty and stay comparable with Pravega's own encoding.
 */
public final class ErrorAndTableSamples {
    private static final String TABLE = "scope/_tables/table.#epoch.0";
    private static final String TRACE = "io.pravega.segmentstore.contracts.StreamSegmentNotExistsException: gone\n"
            + "\tat io.pravega.segmentstore.server.Container.get(Container.java:42)";

    private ErrorAndTableSamples() {
    }

    /** @return at least three instances of each command of the group: random, edge and typical values */
    public static List<WireCommand> samples(Random random) {
        List<WireCommand> out = new ArrayList<>();
        errors(random, out);
        tableAdmin(random, out);
        tableData(random, out);
        return out;
    }

    private static void errors(Random random, List<WireCommand> out) {
        out.add(new WrongHost(random.nextLong(), Gen.string(random), Gen.string(random), Gen.string(random)));
        out.add(new WrongHost(-1, "", "", ""));
        out.add(new WrongHost(1L << 32 | 3, "scope/stream/0.#epoch.0", "", TRACE));

        out.add(new SegmentIsSealed(random.nextLong(), Gen.string(random), Gen.string(random), random.nextLong()));
        out.add(new SegmentIsSealed(Long.MIN_VALUE, "", "", -1));
        out.add(new SegmentIsSealed(5, "scope/stream/1.#epoch.2", TRACE, 17));

        out.add(new SegmentAlreadyExists(random.nextLong(), Gen.string(random), Gen.string(random)));
        out.add(new SegmentAlreadyExists(Long.MAX_VALUE, "", ""));
        out.add(new SegmentAlreadyExists(2, "scope/stream/0.#epoch.0", TRACE));

        UUID writer = Gen.uuid(random);
        out.add(new InvalidEventNumber(writer, random.nextLong(), Gen.string(random), random.nextLong(), false));
        out.add(InvalidEventNumber.legacy(writer, random.nextLong(), Gen.string(random)));
        out.add(new InvalidEventNumber(new UUID(0, 0), Long.MIN_VALUE, "", -1, false));
        out.add(InvalidEventNumber.legacy(new UUID(-1, -1), Long.MIN_VALUE, ""));
        out.add(new InvalidEventNumber(writer, 1L << 32 | 9, TRACE, 12, false));
        out.add(InvalidEventNumber.legacy(writer, 12, TRACE));

        out.add(new SegmentIsTruncated(random.nextLong(), Gen.string(random), random.nextLong(), Gen.string(random),
                random.nextLong()));
        out.add(new SegmentIsTruncated(-1, "", Long.MIN_VALUE, "", -1));
        out.add(new SegmentIsTruncated(8, "scope/stream/0.#epoch.0", 1024, TRACE, 512));

        out.add(new OperationUnsupported(random.nextLong(), Gen.string(random), Gen.string(random)));
        out.add(new OperationUnsupported(0, "", ""));
        out.add(new OperationUnsupported(4, "mergeSegmentsBatch", TRACE));

        AuthTokenCheckFailed.ErrorCode[] codes = AuthTokenCheckFailed.ErrorCode.values();
        out.add(new AuthTokenCheckFailed(random.nextLong(), Gen.string(random), codes[random.nextInt(codes.length)]));
        out.add(new AuthTokenCheckFailed(-1, "", AuthTokenCheckFailed.ErrorCode.UNSPECIFIED));
        out.add(new AuthTokenCheckFailed(3, TRACE, AuthTokenCheckFailed.ErrorCode.TOKEN_EXPIRED));
        out.add(new AuthTokenCheckFailed(3, "", AuthTokenCheckFailed.ErrorCode.TOKEN_CHECK_FAILED));

        ErrorMessage.ErrorCode[] messageCodes = ErrorMessage.ErrorCode.values();
        out.add(new ErrorMessage(random.nextLong(), Gen.string(random), Gen.string(random),
                messageCodes[random.nextInt(messageCodes.length)]));
        out.add(new ErrorMessage(Long.MIN_VALUE, "", "", ErrorMessage.ErrorCode.UNSPECIFIED));
        out.add(new ErrorMessage(6, TABLE, "Key length mismatch: expected 8, found 3",
                ErrorMessage.ErrorCode.ILLEGAL_ARGUMENT_EXCEPTION));

        out.add(new TableSegmentNotEmpty(random.nextLong(), Gen.string(random), Gen.string(random)));
        out.add(new TableSegmentNotEmpty(-1, "", ""));
        out.add(new TableSegmentNotEmpty(10, TABLE, TRACE));

        out.add(new TableKeyDoesNotExist(random.nextLong(), Gen.string(random), Gen.string(random)));
        out.add(new TableKeyDoesNotExist(Long.MAX_VALUE, "", ""));
        out.add(new TableKeyDoesNotExist(11, TABLE, TRACE));

        out.add(new TableKeyBadVersion(random.nextLong(), Gen.string(random), Gen.string(random)));
        out.add(new TableKeyBadVersion(Long.MIN_VALUE, "", ""));
        out.add(new TableKeyBadVersion(12, TABLE, TRACE));
    }

    private static void tableAdmin(Random random, List<WireCommand> out) {
        out.add(new GetTableSegmentInfo(random.nextLong(), Gen.string(random), Gen.string(random)));
        out.add(new GetTableSegmentInfo(-1, "", ""));
        out.add(new GetTableSegmentInfo(20, TABLE, "eyJhbGciOiJIUzUxMiJ9.token"));

        out.add(new TableSegmentInfo(random.nextLong(), Gen.string(random), random.nextLong(), random.nextLong(),
                random.nextLong(), random.nextInt()));
        out.add(new TableSegmentInfo(Long.MIN_VALUE, "", Long.MIN_VALUE, Long.MAX_VALUE, -3, Integer.MAX_VALUE));
        out.add(new TableSegmentInfo(20, TABLE, 0, 78, 3, 0));

        out.add(new CreateTableSegment(random.nextLong(), Gen.string(random), random.nextBoolean(), random.nextInt(),
                Gen.string(random), random.nextLong()));
        out.add(new CreateTableSegment(-1, "", false, 0, "", 0));
        out.add(new CreateTableSegment(Long.MAX_VALUE, "", true, Integer.MIN_VALUE, "", Long.MIN_VALUE));
        out.add(new CreateTableSegment(21, "scope/kvt_kvtable/0.#epoch.0", false, 8, "token", 4L << 20));

        out.add(new DeleteTableSegment(random.nextLong(), Gen.string(random), random.nextBoolean(),
                Gen.string(random)));
        out.add(new DeleteTableSegment(-1, "", false, ""));
        out.add(new DeleteTableSegment(22, TABLE, true, "token"));
    }

    private static void tableData(Random random, List<WireCommand> out) {
        out.add(new UpdateTableEntries(random.nextLong(), Gen.string(random), Gen.string(random), entries(random),
                random.nextLong()));
        out.add(new UpdateTableEntries(-1, "", "", new TableEntries(List.of()), Long.MIN_VALUE));
        out.add(new UpdateTableEntries(Long.MAX_VALUE, "", "", edgeEntries(), -1));
        out.add(new UpdateTableEntries(30, TABLE, "token", typicalEntries(),
                UpdateTableEntries.NULL_TABLE_SEGMENT_OFFSET));

        List<Long> versions = new ArrayList<>();
        for (int i = random.nextInt(6); i > 0; i--) {
            versions.add(random.nextLong());
        }
        out.add(new TableEntriesUpdated(random.nextLong(), versions));
        out.add(new TableEntriesUpdated(-1, List.of()));
        out.add(new TableEntriesUpdated(Long.MIN_VALUE, List.of(Long.MIN_VALUE, -1L, Long.MAX_VALUE)));
        out.add(new TableEntriesUpdated(30, List.of(0L, 26L)));

        out.add(new RemoveTableKeys(random.nextLong(), Gen.string(random), Gen.string(random), keys(random),
                random.nextLong()));
        out.add(new RemoveTableKeys(-1, "", "", List.of(), Long.MIN_VALUE));
        out.add(new RemoveTableKeys(0, "", "", edgeKeys(), -1));
        out.add(new RemoveTableKeys(31, TABLE, "token", List.of(key("k1", 26), key("k2", TableKey.NO_VERSION)), 52));

        out.add(new TableKeysRemoved(random.nextLong(), Gen.string(random)));
        out.add(new TableKeysRemoved(-1, ""));
        out.add(new TableKeysRemoved(31, TABLE));

        out.add(new ReadTable(random.nextLong(), Gen.string(random), Gen.string(random), keys(random)));
        out.add(new ReadTable(-1, "", "", List.of()));
        out.add(new ReadTable(Long.MIN_VALUE, "", "", edgeKeys()));
        out.add(new ReadTable(32, TABLE, "token",
                List.of(key("k1", TableKey.NO_VERSION), key("k3", TableKey.NO_VERSION))));

        out.add(new TableRead(random.nextLong(), Gen.string(random), entries(random)));
        out.add(new TableRead(-1, "", new TableEntries(List.of())));
        out.add(new TableRead(Long.MAX_VALUE, "", edgeEntries()));
        out.add(new TableRead(32, TABLE, new TableEntries(List.of(new TableEntry(key("k1", 26), value("v1")),
                new TableEntry(key("k3", TableKey.NOT_EXISTS), TableValue.EMPTY)))));

        out.add(new ReadTableKeys(random.nextLong(), Gen.string(random), Gen.string(random), random.nextInt(),
                args(random)));
        out.add(new ReadTableKeys(-1, "", "", 0, emptyArgs()));
        out.add(new ReadTableKeys(Long.MIN_VALUE, "", "", Integer.MAX_VALUE, edgeArgs()));
        out.add(new ReadTableKeys(33, TABLE, "token", 10, new TableIteratorArgs(utf8("resume-here"), Bytes.EMPTY,
                Bytes.EMPTY, Bytes.EMPTY)));

        out.add(new TableKeysRead(random.nextLong(), Gen.string(random), keys(random), Gen.bytes(random, 64)));
        out.add(new TableKeysRead(-1, "", List.of(), Bytes.EMPTY));
        out.add(new TableKeysRead(Long.MIN_VALUE, "", edgeKeys(), Bytes.EMPTY));
        out.add(new TableKeysRead(33, TABLE, List.of(key("k1", 26), key("k2", 52)), utf8("resume-here")));

        out.add(new ReadTableEntries(random.nextLong(), Gen.string(random), Gen.string(random), random.nextInt(),
                args(random)));
        out.add(new ReadTableEntries(-1, "", "", Integer.MIN_VALUE, emptyArgs()));
        out.add(new ReadTableEntries(Long.MAX_VALUE, "", "", -1, edgeArgs()));
        out.add(new ReadTableEntries(34, "scope/kvt_kvtable/0.#epoch.0", "token", 100,
                new TableIteratorArgs(Bytes.EMPTY, Bytes.EMPTY, utf8("aaaaaaaa"), utf8("zzzzzzzz"))));

        out.add(new TableEntriesRead(random.nextLong(), Gen.string(random), entries(random), Gen.bytes(random, 64)));
        out.add(new TableEntriesRead(-1, "", new TableEntries(List.of()), Bytes.EMPTY));
        out.add(new TableEntriesRead(Long.MIN_VALUE, "", edgeEntries(), Bytes.EMPTY));
        out.add(new TableEntriesRead(34, TABLE, typicalEntries(), utf8("resume-here")));

        out.add(new ReadTableEntriesDelta(random.nextLong(), Gen.string(random), Gen.string(random), random.nextLong(),
                random.nextInt()));
        out.add(new ReadTableEntriesDelta(-1, "", "", Long.MIN_VALUE, Integer.MIN_VALUE));
        out.add(new ReadTableEntriesDelta(35, "scope/_RGgroup/0.#epoch.0", "token", 0, 100));

        out.add(new TableEntriesDeltaRead(random.nextLong(), Gen.string(random), entries(random), random.nextBoolean(),
                random.nextBoolean(), random.nextLong()));
        out.add(new TableEntriesDeltaRead(-1, "", new TableEntries(List.of()), false, true, 0));
        out.add(new TableEntriesDeltaRead(Long.MIN_VALUE, "", edgeEntries(), true, false, Long.MAX_VALUE));
        out.add(new TableEntriesDeltaRead(35, "scope/_RGgroup/0.#epoch.0", typicalEntries(), false, false, 52));
    }

    /** A random key; an empty one gets NO_VERSION, the only version an empty key can carry across the wire. */
    private static TableKey key(Random random) {
        ByteBuffer data = Gen.bytes(random, 64);
        return new TableKey(data, data.hasRemaining() ? random.nextLong() : TableKey.NO_VERSION);
    }

    private static List<TableKey> keys(Random random) {
        List<TableKey> keys = new ArrayList<>();
        for (int i = random.nextInt(6); i > 0; i--) {
            keys.add(key(random));
        }
        return keys;
    }

    private static TableEntries entries(Random random) {
        List<TableEntry> entries = new ArrayList<>();
        for (int i = random.nextInt(6); i > 0; i--) {
            entries.add(new TableEntry(key(random), new TableValue(Gen.bytes(random, 64))));
        }
        return new TableEntries(entries);
    }

    private static TableIteratorArgs args(Random random) {
        return new TableIteratorArgs(Gen.bytes(random, 64), Bytes.EMPTY, Gen.bytes(random, 64), Gen.bytes(random, 64));
    }

    private static List<TableKey> edgeKeys() {
        return List.of(TableKey.EMPTY, key("\0", Long.MIN_VALUE + 1), key("k", Long.MAX_VALUE), key("k", -1),
                TableKey.EMPTY);
    }

    private static TableEntries edgeEntries() {
        return new TableEntries(List.of(new TableEntry(TableKey.EMPTY, TableValue.EMPTY),
                new TableEntry(key("\0", TableKey.NOT_EXISTS), TableValue.EMPTY),
                new TableEntry(TableKey.EMPTY, value("\0")),
                new TableEntry(key("x", Long.MAX_VALUE), new TableValue(ByteBuffer.wrap(new byte[1000])))));
    }

    private static TableEntries typicalEntries() {
        return new TableEntries(List.of(new TableEntry(key("k1", TableKey.NOT_EXISTS), value("first")),
                new TableEntry(key("k2", 26), value("second")),
                new TableEntry(key("k3", TableKey.NO_VERSION), value("third"))));
    }

    private static TableIteratorArgs emptyArgs() {
        return new TableIteratorArgs(Bytes.EMPTY, Bytes.EMPTY, Bytes.EMPTY, Bytes.EMPTY);
    }

    private static TableIteratorArgs edgeArgs() {
        return new TableIteratorArgs(ByteBuffer.wrap(new byte[1]), Bytes.EMPTY, ByteBuffer.wrap(new byte[300]),
                Bytes.EMPTY);
    }

    private static TableKey key(String data, long version) {
        return new TableKey(utf8(data), version);
    }

    private static TableValue value(String data) {
        return new TableValue(utf8(data));
    }

    private static ByteBuffer utf8(String s) {
        return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
    }
}
