package io.sluice.readergroup;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;

import io.sluice.readergroup.GroupUpdate.Acquire;
import io.sluice.readergroup.GroupUpdate.AddReader;
import io.sluice.readergroup.GroupUpdate.CheckpointReached;
import io.sluice.readergroup.GroupUpdate.CreateCheckpoint;
import io.sluice.readergroup.GroupUpdate.Heartbeat;
import io.sluice.readergroup.GroupUpdate.Release;
import io.sluice.readergroup.GroupUpdate.RemoveReader;
import io.sluice.readergroup.GroupUpdate.Reset;
import io.sluice.readergroup.GroupUpdate.SegmentCompleted;
import io.sluice.readergroup.ReaderGroupState.CheckpointProgress;
import io.sluice.readergroup.ReaderGroupState.CompletedCheckpoint;
import io.sluice.readergroup.ReaderGroupState.Owned;
import io.sluice.readergroup.ReaderGroupState.ReaderInfo;
import io.sluice.readergroup.ReaderGroupState.Settings;
import io.sluice.stream.ScopedStream;
import io.sluice.stream.Segment;
import io.sluice.stream.StreamCut;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Golden bytes of the reader group state format: group states already written (by the embedded server's clients or
 * on a real Pravega) must keep decoding, so the bytes below were written by the codec as it stood when they were
 * taken and must never change. Every field kind is covered: the stream table (two streams), varints of one to nine
 * bytes, negative i64s, and modified UTF-8 (NUL, two- and three-byte characters, a surrogate pair).
 */
@Timeout(30)
class GroupStateCodecTest {
    private static final ScopedStream A = ScopedStream.of("scope", "orders");
    private static final ScopedStream B = ScopedStream.of("scope-2", "events.v1");
    private static final Segment A0 = Segment.of(A, 0, 0);
    private static final Segment A1 = Segment.of(A, 1, 0);
    private static final Segment A2 = Segment.of(A, 2, 1);
    private static final Segment A3 = Segment.of(A, 3, 1);
    private static final Segment B0 = Segment.of(B, 0, 0);
    private static final Segment B1 = Segment.of(B, 1, 0);
    private static final Segment B5 = Segment.of(B, 5, 3);
    private static final Segment B200 = Segment.of(B, 200, 70000);
    /** é, NUL, €, and U+1F600 as a surrogate pair: every case of modified UTF-8. */
    private static final String ODD_ID = "r\u00e9\u0000\u20ac\ud83d\ude00";

    private static final String STATE =
            "534c52470102000573636f706500066f7264657273000773636f70652d3200096576656e74732e7631020002" +
            "00000000000100ac0201020100007f010503800102000100808001010503ffffffffffffffff7fb817ffffff" +
            "ffffffffff03050200087265616465722d31fffffffffffffff901b0ea010000018bcfe5687b010000006332" +
            "000e72c3a9c080e282aceda0bdedb88080000000000000000001000000000000000002010000808080808020" +
            "0001c801f0a204000001000100ac02020002010200000000010000030101000100010105038020010101000c" +
            "01000563702dc3bc000200087265616465722d31000e72c3a9c080e282aceda0bdedb88001000100ac020200" +
            "076175746f2d316601020000000701000008000000000000018bcfe56800";

    private static final String EMPTY_STATE =
            "534c5247010000000000000000000000000100000000000000000000000000000000";

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

    private static SortedMap<Segment, SortedSet<Segment>> successors() {
        return new TreeMap<>(Map.of(A2, set(A0, A1), A3, set(A1)));
    }

    /** A state with something in every part. */
    private static ReaderGroupState rich() {
        TreeMap<ScopedStream, StreamCut> start = new TreeMap<>();
        start.put(A, StreamCut.of(at(A0, 0, A1, 300)));
        start.put(B, StreamCut.of(at(B0, 127, B5, 128)));
        Settings settings = new Settings(start, at(B5, Long.MAX_VALUE, A1, 16384), 3000, -1, 3);
        TreeMap<String, ReaderInfo> readers = new TreeMap<>();
        readers.put("reader-1", new ReaderInfo(-7L, true, 30000, 1700000000123L, new TreeMap<>(Map.of(A0,
                new Owned(99, 50)))));
        readers.put(ODD_ID, new ReaderInfo(Long.MIN_VALUE, false, 1, 0, new TreeMap<>(Map.of(
                B0, new Owned(1L << 40, 0), B200, new Owned(0, 0)))));
        return ReaderGroupState.frozen(settings, 5, readers, at(A1, 300), successors(), at(B5, 4096), at(B1, 12),
                List.of(new CheckpointProgress("cp-\u00fc", false, new TreeSet<>(List.of("reader-1", ODD_ID)),
                        at(A1, 300))),
                List.of(new CompletedCheckpoint("auto-1f", true, at(A0, 7, B0, 8)),
                        new CompletedCheckpoint("", false, at())),
                1700000000000L);
    }

    private static ReaderGroupState empty() {
        return ReaderGroupState.initial(new Settings(new TreeMap<>(), new TreeMap<>(), 0, 0, 1), 0);
    }

    private static String hex(ByteBuffer bytes) {
        byte[] a = new byte[bytes.remaining()];
        bytes.duplicate().get(a);
        return HexFormat.of().formatHex(a);
    }

    private static ByteBuffer bytes(String hex) {
        return ByteBuffer.wrap(HexFormat.of().parseHex(hex));
    }

    @Test
    void aStateIsWrittenAsItAlwaysWas() {
        assertThat(hex(GroupStateCodec.encodeState(rich()))).isEqualTo(STATE);
        assertThat(hex(GroupStateCodec.encodeState(empty()))).isEqualTo(EMPTY_STATE);
    }

    @Test
    void aStateWrittenEarlierStillDecodes() {
        assertThat(GroupStateCodec.decodeState(bytes(STATE))).isEqualTo(rich());
        assertThat(GroupStateCodec.decodeState(bytes(EMPTY_STATE))).isEqualTo(empty());
    }

    static Stream<Arguments> updates() {
        return Stream.of(
                Arguments.of(new AddReader(ODD_ID, -2, true, 60000, 1700000000999L),
                        "010100000e72c3a9c080e282aceda0bdedb880fffffffffffffffe01e0d4030000018bcfe56be7"),
                Arguments.of(new RemoveReader("reader-1", RemoveReader.ANY_INCARNATION, at(A0, 5, B0, 6)),
                        "010202000573636f706500066f7264657273000773636f70652d3200096576656e74732e7631000872656164" +
                        "65722d310000000000000000020000000501000006"),
                Arguments.of(new Heartbeat("reader-1", 42, 1700000001000L, at(B200, 1L << 62)),
                        "010301000773636f70652d3200096576656e74732e763100087265616465722d31000000000000002a000001" +
                        "8bcfe56be80100c801f0a204808080808080808040"),
                Arguments.of(new Acquire("reader-1", 42, set(A3, B5, A2)),
                        "010402000573636f706500066f7264657273000773636f70652d3200096576656e74732e7631000872656164" +
                        "65722d31000000000000002a03000201000301010503"),
                Arguments.of(new Release("reader-1", 42, at(A1, 0)),
                        "010501000573636f706500066f726465727300087265616465722d31000000000000002a0100010000"),
                Arguments.of(new SegmentCompleted("reader-1", 42, A1, 777, successors()),
                        "010601000573636f706500066f726465727300087265616465722d31000000000000002a0001008906020002" +
                        "010200000000010000030101000100"),
                Arguments.of(new CreateCheckpoint("auto-\u4e2d", true, -1),
                        "01070000086175746f2de4b8ad01ffffffffffffffff"),
                Arguments.of(new CheckpointReached("reader-1", 42, "cp", at(A0, 10)),
                        "010801000573636f706500066f726465727300087265616465722d31000000000000002a0002637001000000" +
                        "0a"),
                Arguments.of(new Reset(at(A0, 0, B5, 129)),
                        "010902000573636f706500066f7264657273000773636f70652d3200096576656e74732e7631020000000001" +
                        "05038101"),
                Arguments.of(new Reset(at()),
                        "01090000"));
    }

    @ParameterizedTest
    @MethodSource("updates")
    void anUpdateIsWrittenAsItAlwaysWasAndStillDecodes(GroupUpdate update, String golden) {
        assertThat(hex(GroupStateCodec.encodeUpdate(update))).isEqualTo(golden);
        assertThat(GroupStateCodec.decodeUpdate(bytes(golden))).isEqualTo(update);
    }

    @Test
    void everyUpdateTypeHasAGoldenRecord() {
        List<Class<?>> covered = updates().<Class<?>>map(a -> a.get()[0].getClass()).distinct().toList();
        assertThat(covered).containsExactlyInAnyOrder(GroupUpdate.class.getPermittedSubclasses());
    }

    @Test
    void stringsAreJavasModifiedUtf8() throws IOException {
        ByteArrayOutputStream expected = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(expected)) {
            out.writeByte(1);
            out.writeByte(7);
            out.writeByte(0);
            out.writeUTF(ODD_ID);
            out.writeBoolean(false);
            out.writeLong(9);
        }
        assertThat(hex(GroupStateCodec.encodeUpdate(new CreateCheckpoint(ODD_ID, false, 9))))
                .isEqualTo(HexFormat.of().formatHex(expected.toByteArray()));
    }
}
