package io.sluice.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;

import io.sluice.wire.InvalidWireCommandException.Problem;
import io.sluice.wire.samples.SegmentSamples;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Byte layouts of the conditional-append, segment management, merge and admin commands, written out by hand from
 * Pravega's {@code WireCommands}, and the traps of the group (docs/protocol.md §4).
 *
 * <p>Recognisable values: requestId {@code 0102030405060708}, writer {@code 1112..18 2122..28}, attribute
 * {@code 3132..38 4142..48}, longs {@code 5152..58}, {@code 6162..68}, {@code 7172..78}, {@code 8182..88},
 * {@code 9192..98}, int {@code 0a0b0c0d}; strings "seg" = {@code 0003 736567}, "tok" = {@code 0003 746f6b},
 * "src" = {@code 0003 737263}, "tgt" = {@code 0003 746774}.
 */
@Timeout(10)
class SegmentLayoutTest {
    private static final long RID = 0x0102030405060708L;
    private static final UUID W = new UUID(0x1112131415161718L, 0x2122232425262728L);
    private static final UUID ATTR = new UUID(0x3132333435363738L, 0x4142434445464748L);
    private static final long L5 = 0x5152535455565758L;
    private static final long L6 = 0x6162636465666768L;
    private static final long L7 = 0x7172737475767778L;
    private static final long L8 = 0x8182838485868788L;
    private static final long L9 = 0x9192939495969798L;
    private static final int I = 0x0a0b0c0d;

    private static byte[] hex(String s) {
        return HexFormat.of().parseHex(s.replaceAll("[\\s|]", ""));
    }

    private static String hexOf(byte[] b) {
        return HexFormat.of().formatHex(b);
    }

    private static ByteBuffer ascii(String s) {
        return ByteBuffer.wrap(s.getBytes(StandardCharsets.US_ASCII));
    }

    /** @return the frame with {@code extraHex} appended to its payload and its length field patched */
    private static byte[] withTrailing(byte[] frame, String extraHex) {
        byte[] extra = hex(extraHex);
        byte[] out = Arrays.copyOf(frame, frame.length + extra.length);
        System.arraycopy(extra, 0, out, frame.length, extra.length);
        ByteBuffer.wrap(out).putInt(4, ByteBuffer.wrap(frame).getInt(4) + extra.length);
        return out;
    }

    /** Encodes to exactly {@code expectedHex}, decodes back from it, and ignores trailing bytes it does not know. */
    private static void assertLayout(WireCommand command, String expectedHex) {
        byte[] expected = hex(expectedHex);
        assertThat(hexOf(FrameCodec.encode(command))).as("encoding of %s", command).isEqualTo(hexOf(expected));
        assertThat(FrameCodec.decodeOne(expected)).isEqualTo(command);
        assertThat(FrameCodec.decodeOne(withTrailing(expected, "c0ffee"))).as("with 3 extra trailing bytes")
                .isEqualTo(command);
    }

    /** Decodes a hand-written frame, after checking its hand-written length field matches its payload. */
    private static WireCommand decode(String frameHex) {
        byte[] frame = hex(frameHex);
        assertThat(ByteBuffer.wrap(frame).getInt(4)).as("hand-written length field").isEqualTo(frame.length - 8);
        return FrameCodec.decodeOne(frame);
    }

    private static Problem problemOf(String frameHex) {
        try {
            WireCommand c = decode(frameHex);
            throw new AssertionError("decoded " + c + " instead of failing");
        } catch (InvalidWireCommandException e) {
            return e.problem();
        }
    }

    // ---------------------------------------------------------------- conditional appends

    @Test
    void conditionalAppend() {
        assertLayout(new ConditionalAppend(W, L5, L6, new Event(ascii("abc")), RID),
                "00000005 00000033 | 11121314151617182122232425262728 | 5152535455565758 | 6162636465666768"
                        + " | 00000000 00000003 616263 | 0102030405060708");
    }

    @Test
    void conditionalAppendRejectsANestedFrameThatIsNotAnEvent() {
        // nested type 1 (SETUP_APPEND) instead of 0 (EVENT)
        assertThat(problemOf("00000005 00000033 | 11121314151617182122232425262728 | 5152535455565758"
                + " | 6162636465666768 | 00000001 00000003 616263 | 0102030405060708"))
                .isEqualTo(Problem.INVALID_FIELD);
        // nested PARTIAL_EVENT (-2)
        assertThat(problemOf("00000005 00000033 | 11121314151617182122232425262728 | 5152535455565758"
                + " | 6162636465666768 | fffffffe 00000003 616263 | 0102030405060708"))
                .isEqualTo(Problem.INVALID_FIELD);
    }

    @Test
    void conditionalAppendRejectsANestedLengthThatDoesNotFit() {
        // nested length 0x10 but only 3 bytes follow; then a negative nested length
        assertThat(problemOf("00000005 0000002b | 11121314151617182122232425262728 | 5152535455565758"
                + " | 6162636465666768 | 00000000 00000010 616263")).isEqualTo(Problem.TRUNCATED);
        assertThat(problemOf("00000005 0000002b | 11121314151617182122232425262728 | 5152535455565758"
                + " | 6162636465666768 | 00000000 ffffffff 616263")).isEqualTo(Problem.INVALID_FIELD);
    }

    @Test
    void conditionalAppendWithoutRequestIdDefaultsToMinusOne() {
        assertThat(decode("00000005 0000002b | 11121314151617182122232425262728 | 5152535455565758"
                + " | 6162636465666768 | 00000000 00000003 616263"))
                .isEqualTo(new ConditionalAppend(W, L5, L6, new Event(ascii("abc")), -1));
    }

    @Test
    void conditionalCheckFailed() {
        assertLayout(new ConditionalCheckFailed(W, L5, RID),
                "00000008 00000020 | 11121314151617182122232425262728 | 5152535455565758 | 0102030405060708");
        assertThat(decode("00000008 00000018 | 11121314151617182122232425262728 | 5152535455565758"))
                .isEqualTo(new ConditionalCheckFailed(W, L5, -1));
    }

    @Test
    void conditionalBlockEnd() {
        assertLayout(new ConditionalBlockEnd(W, L5, L6, ascii("abcd"), RID),
                "00000059 00000030 | 11121314151617182122232425262728 | 5152535455565758 | 6162636465666768"
                        + " | 00000004 61626364 | 0102030405060708");
        assertLayout(new ConditionalBlockEnd(W, L5, L6, Bytes.EMPTY, RID),
                "00000059 0000002c | 11121314151617182122232425262728 | 5152535455565758 | 6162636465666768"
                        + " | 00000000 | 0102030405060708");
    }

    @Test
    void conditionalBlockEndRequiresItsRequestId() {
        assertThat(problemOf("00000059 00000028 | 11121314151617182122232425262728 | 5152535455565758"
                + " | 6162636465666768 | 00000004 61626364")).isEqualTo(Problem.TRUNCATED);
    }

    @Test
    void conditionalBlockEndHandsOutCopiesOfItsData() {
        ConditionalBlockEnd c = new ConditionalBlockEnd(W, 1, 0, ascii("abcd"), 2);
        c.data().get();
        assertThat(c.data().remaining()).isEqualTo(4);
        assertThat(c.toString()).contains("4 bytes").doesNotContain("abcd");
    }

    // ---------------------------------------------------------------- reads and metadata

    @Test
    void readSegmentPutsTheSegmentFirst() {
        assertLayout(new ReadSegment("seg", L7, I, "tok", RID),
                "00000009 0000001e | 0003736567 | 7172737475767778 | 0a0b0c0d | 0003746f6b | 0102030405060708");
        assertThat(decode("00000009 00000016 | 0003736567 | 7172737475767778 | 0a0b0c0d | 0003746f6b"))
                .isEqualTo(new ReadSegment("seg", L7, I, "tok", -1));
    }

    @Test
    void getStreamSegmentInfo() {
        assertLayout(new GetStreamSegmentInfo(RID, "seg", "tok"),
                "0000000b 00000012 | 0102030405060708 | 0003736567 | 0003746f6b");
    }

    @Test
    void streamSegmentInfo() {
        assertLayout(new StreamSegmentInfo(RID, "seg", true, false, true, L7, L8, L9),
                "0000000c 00000028 | 0102030405060708 | 0003736567 | 01 00 01 | 7172737475767778"
                        + " | 8182838485868788 | 9192939495969798");
    }

    @Test
    void streamSegmentInfoWithoutStartOffsetDefaultsToZero() {
        assertThat(decode("0000000c 00000020 | 0102030405060708 | 0003736567 | 00 01 00 | 7172737475767778"
                + " | 8182838485868788")).isEqualTo(new StreamSegmentInfo(RID, "seg", false, true, false, L7, L8, 0));
    }

    @Test
    void streamSegmentInfoReadsAnyNonZeroByteAsTrue() {
        assertThat(decode("0000000c 00000028 | 0102030405060708 | 0003736567 | 02 ff 00 | 7172737475767778"
                + " | 8182838485868788 | 9192939495969798"))
                .isEqualTo(new StreamSegmentInfo(RID, "seg", true, true, false, L7, L8, L9));
    }

    // ---------------------------------------------------------------- segment management

    @Test
    void createSegment() {
        assertLayout(new CreateSegment(RID, "seg", (byte) 2, I, "tok", L7),
                "00000014 0000001f | 0102030405060708 | 0003736567 | 0a0b0c0d | 02 | 0003746f6b | 7172737475767778");
    }

    @Test
    void createSegmentWritesTargetRateBeforeScaleType() {
        // the components follow Pravega's constructor (scaleType, targetRate); the wire has targetRate first
        CreateSegment c = new CreateSegment(1, "s", CreateSegment.IN_KBYTES_PER_SEC, 2, "", 0);
        byte[] frame = FrameCodec.encode(c);
        assertThat(hexOf(Arrays.copyOfRange(frame, 8 + 8 + 3, 8 + 8 + 3 + 5))).isEqualTo("0000000201");
        CreateSegment back = (CreateSegment) FrameCodec.decodeOne(frame);
        assertThat(back.scaleType()).isEqualTo((byte) 1);
        assertThat(back.targetRate()).isEqualTo(2);
    }

    @Test
    void createSegmentWithoutRolloverSizeDefaultsToZero() {
        assertThat(decode("00000014 00000017 | 0102030405060708 | 0003736567 | 0a0b0c0d | 02 | 0003746f6b"))
                .isEqualTo(new CreateSegment(RID, "seg", (byte) 2, I, "tok", 0));
    }

    @Test
    void scaleTypeConstants() {
        assertThat(CreateSegment.NO_SCALE).isEqualTo((byte) 0);
        assertThat(CreateSegment.IN_KBYTES_PER_SEC).isEqualTo((byte) 1);
        assertThat(CreateSegment.IN_EVENTS_PER_SEC).isEqualTo((byte) 2);
    }

    @Test
    void segmentCreated() {
        assertLayout(new SegmentCreated(RID, "seg"), "00000015 0000000d | 0102030405060708 | 0003736567");
    }

    @Test
    void sealSegment() {
        assertLayout(new SealSegment(RID, "seg", "tok"),
                "0000001c 00000012 | 0102030405060708 | 0003736567 | 0003746f6b");
    }

    @Test
    void segmentSealed() {
        assertLayout(new SegmentSealed(RID, "seg"), "0000001d 0000000d | 0102030405060708 | 0003736567");
    }

    @Test
    void deleteSegment() {
        assertLayout(new DeleteSegment(RID, "seg", "tok"),
                "0000001e 00000012 | 0102030405060708 | 0003736567 | 0003746f6b");
    }

    @Test
    void segmentDeleted() {
        assertLayout(new SegmentDeleted(RID, "seg"), "0000001f 0000000d | 0102030405060708 | 0003736567");
    }

    @Test
    void updateSegmentPolicyWritesTargetRateBeforeScaleType() {
        assertLayout(new UpdateSegmentPolicy(RID, "seg", (byte) 1, I, "tok"),
                "00000020 00000017 | 0102030405060708 | 0003736567 | 0a0b0c0d | 01 | 0003746f6b");
    }

    @Test
    void segmentPolicyUpdated() {
        assertLayout(new SegmentPolicyUpdated(RID, "seg"), "00000021 0000000d | 0102030405060708 | 0003736567");
    }

    @Test
    void getSegmentAttribute() {
        assertLayout(new GetSegmentAttribute(RID, "seg", ATTR, "tok"),
                "00000022 00000022 | 0102030405060708 | 0003736567 | 31323334353637384142434445464748 | 0003746f6b");
    }

    @Test
    void segmentAttribute() {
        assertLayout(new SegmentAttribute(RID, L7), "00000023 00000010 | 0102030405060708 | 7172737475767778");
        assertLayout(new SegmentAttribute(RID, WireProtocol.NULL_ATTRIBUTE_VALUE),
                "00000023 00000010 | 0102030405060708 | 8000000000000000");
    }

    @Test
    void updateSegmentAttribute() {
        assertLayout(new UpdateSegmentAttribute(RID, "seg", ATTR, L7, L8, "tok"),
                "00000024 00000032 | 0102030405060708 | 0003736567 | 31323334353637384142434445464748"
                        + " | 7172737475767778 | 8182838485868788 | 0003746f6b");
    }

    @Test
    void segmentAttributeUpdated() {
        assertLayout(new SegmentAttributeUpdated(RID, true), "00000025 00000009 | 0102030405060708 | 01");
        assertLayout(new SegmentAttributeUpdated(RID, false), "00000025 00000009 | 0102030405060708 | 00");
    }

    @Test
    void truncateSegment() {
        assertLayout(new TruncateSegment(RID, "seg", L7, "tok"),
                "00000026 0000001a | 0102030405060708 | 0003736567 | 7172737475767778 | 0003746f6b");
    }

    @Test
    void segmentTruncated() {
        assertLayout(new SegmentTruncated(RID, "seg"), "00000027 0000000d | 0102030405060708 | 0003736567");
    }

    @Test
    void createTransientSegment() {
        assertLayout(new CreateTransientSegment(RID, W, "seg", "tok"),
                "00000028 00000022 | 0102030405060708 | 11121314151617182122232425262728 | 0003736567 | 0003746f6b");
    }

    @Test
    void locateOffset() {
        assertLayout(new LocateOffset(RID, "seg", L7, "tok"),
                "00000029 0000001a | 0102030405060708 | 0003736567 | 7172737475767778 | 0003746f6b");
    }

    @Test
    void offsetLocated() {
        assertLayout(new OffsetLocated(RID, "seg", L7),
                "0000002a 00000015 | 0102030405060708 | 0003736567 | 7172737475767778");
    }

    // ---------------------------------------------------------------- merges

    @Test
    void mergeSegmentsWithAttributeUpdates() {
        assertLayout(new MergeSegments(RID, "tgt", "src", "tok", List.of(
                        new ConditionalAttributeUpdate(ATTR, ConditionalAttributeUpdate.REPLACE_IF_EQUALS, L7, L8),
                        new ConditionalAttributeUpdate(W, ConditionalAttributeUpdate.REPLACE, 1, -1))),
                "0000003a 0000005d | 0102030405060708 | 0003746774 | 0003737263 | 0003746f6b | 00000002"
                        + " | 31323334353637384142434445464748 04 7172737475767778 8182838485868788"
                        + " | 11121314151617182122232425262728 01 0000000000000001 ffffffffffffffff");
    }

    @Test
    void mergeSegmentsWritesAnEmptyListAsCountZero() {
        // as Pravega 0.13 does: the count is always written
        assertLayout(new MergeSegments(RID, "tgt", "src", "tok"),
                "0000003a 0000001b | 0102030405060708 | 0003746774 | 0003737263 | 0003746f6b | 00000000");
        assertThat(new MergeSegments(RID, "tgt", "src", "tok")).isEqualTo(new MergeSegments(RID, "tgt", "src", "tok",
                List.of()));
    }

    @Test
    void mergeSegmentsWithoutCountHasNoUpdates() {
        assertThat(decode("0000003a 00000017 | 0102030405060708 | 0003746774 | 0003737263 | 0003746f6b"))
                .isEqualTo(new MergeSegments(RID, "tgt", "src", "tok", List.of()));
    }

    @Test
    void mergeSegmentsRejectsCountsThatCannotFit() {
        // 2 updates announced, only one (33 bytes) present
        assertThat(problemOf("0000003a 0000003c | 0102030405060708 | 0003746774 | 0003737263 | 0003746f6b | 00000002"
                + " | 31323334353637384142434445464748 04 7172737475767778 8182838485868788"))
                .isEqualTo(Problem.INVALID_FIELD);
        assertThat(problemOf("0000003a 0000001b | 0102030405060708 | 0003746774 | 0003737263 | 0003746f6b | 7fffffff"))
                .isEqualTo(Problem.INVALID_FIELD);
        assertThat(problemOf("0000003a 0000001b | 0102030405060708 | 0003746774 | 0003737263 | 0003746f6b | ffffffff"))
                .isEqualTo(Problem.INVALID_FIELD);
        // a count cut short is a truncated field, not an absent one (Pravega reads an int as soon as a byte is left)
        assertThat(problemOf("0000003a 00000019 | 0102030405060708 | 0003746774 | 0003737263 | 0003746f6b | 0000"))
                .isEqualTo(Problem.TRUNCATED);
    }

    @Test
    void conditionalAttributeUpdateConstants() {
        assertThat(ConditionalAttributeUpdate.LENGTH).isEqualTo(33);
        assertThat(ConditionalAttributeUpdate.NONE).isEqualTo((byte) 0);
        assertThat(ConditionalAttributeUpdate.REPLACE).isEqualTo((byte) 1);
        assertThat(ConditionalAttributeUpdate.REPLACE_IF_GREATER).isEqualTo((byte) 2);
        assertThat(ConditionalAttributeUpdate.ACCUMULATE).isEqualTo((byte) 3);
        assertThat(ConditionalAttributeUpdate.REPLACE_IF_EQUALS).isEqualTo((byte) 4);
        WireOutput out = new WireOutput();
        new ConditionalAttributeUpdate(ATTR, ConditionalAttributeUpdate.ACCUMULATE, L5, L6).writeFields(out);
        assertThat(hexOf(out.toByteArray()))
                .isEqualTo("31323334353637384142434445464748" + "03" + "5152535455565758" + "6162636465666768");
    }

    @Test
    void segmentsMerged() {
        assertLayout(new SegmentsMerged(RID, "tgt", "src", L7),
                "0000003b 0000001a | 0102030405060708 | 0003746774 | 0003737263 | 7172737475767778");
    }

    @Test
    void segmentsMergedWithoutOffsetDefaultsToMinusOne() {
        assertThat(decode("0000003b 00000012 | 0102030405060708 | 0003746774 | 0003737263"))
                .isEqualTo(new SegmentsMerged(RID, "tgt", "src", -1));
        // like Pravega: any byte after the source means the offset is there, so 4 bytes are a truncated field
        assertThat(problemOf("0000003b 00000016 | 0102030405060708 | 0003746774 | 0003737263 | 71727374"))
                .isEqualTo(Problem.TRUNCATED);
    }

    @Test
    void mergeSegmentsBatchPutsTheTokenAfterTheSources() {
        assertLayout(new MergeSegmentsBatch(RID, "tgt", List.of("src", "seg"), "tok"),
                "0000005a 00000020 | 0102030405060708 | 0003746774 | 00000002 | 0003737263 | 0003736567 | 0003746f6b");
        assertLayout(new MergeSegmentsBatch(RID, "tgt", List.of(), "tok"),
                "0000005a 00000016 | 0102030405060708 | 0003746774 | 00000000 | 0003746f6b");
        assertThat(problemOf("0000005a 00000016 | 0102030405060708 | 0003746774 | 7fffffff | 0003746f6b"))
                .isEqualTo(Problem.INVALID_FIELD);
    }

    @Test
    void segmentsBatchMerged() {
        assertLayout(new SegmentsBatchMerged(RID, "tgt", List.of("src", "seg"), List.of(L7, L8)),
                "0000005b 0000002b | 0102030405060708 | 0003746774 | 00000002 | 0003737263 7172737475767778"
                        + " | 0003736567 8182838485868788");
        assertThat(problemOf("0000005b 00000011 | 0102030405060708 | 0003746774 | 00000001"))
                .isEqualTo(Problem.INVALID_FIELD);
    }

    @Test
    void segmentsBatchMergedNeedsOneOffsetPerSource() {
        assertThatThrownBy(() -> new SegmentsBatchMerged(RID, "tgt", List.of("a", "b"), List.of(1L)))
                .isInstanceOf(IllegalArgumentException.class);
    }

    // ---------------------------------------------------------------- admin

    @Test
    void flushToStorage() {
        assertLayout(new FlushToStorage(I, "tok", RID), "fffffffd 00000011 | 0a0b0c0d | 0003746f6b | 0102030405060708");
        // the request id is mandatory here
        assertThat(problemOf("fffffffd 00000009 | 0a0b0c0d | 0003746f6b")).isEqualTo(Problem.TRUNCATED);
    }

    @Test
    void storageFlushed() {
        assertLayout(new StorageFlushed(RID), "fffffffc 00000008 | 0102030405060708");
    }

    @Test
    void listStorageChunks() {
        assertLayout(new ListStorageChunks("seg", "tok", RID),
                "fffffffb 00000012 | 0003736567 | 0003746f6b | 0102030405060708");
        assertThat(problemOf("fffffffb 0000000a | 0003736567 | 0003746f6b")).isEqualTo(Problem.TRUNCATED);
    }

    @Test
    void storageChunksListed() {
        assertLayout(new StorageChunksListed(RID, List.of(new ChunkInfo(L7, L8, L9, "seg", true))),
                "fffffffa 0000002a | 0102030405060708 | 00000001 | 7172737475767778 8182838485868788"
                        + " 9192939495969798 0003736567 01");
        assertLayout(new StorageChunksListed(RID, List.of()), "fffffffa 0000000c | 0102030405060708 | 00000000");
        assertThat(problemOf("fffffffa 0000000c | 0102030405060708 | 00100000")).isEqualTo(Problem.INVALID_FIELD);
    }

    // ---------------------------------------------------------------- record rules

    @Test
    void delegationTokensStayOutOfToString() {
        String secret = "very-secret-token";
        List<WireCommand> withToken = List.of(
                new ReadSegment("seg", 0, 1, secret, 1),
                new GetStreamSegmentInfo(1, "seg", secret),
                new CreateSegment(1, "seg", (byte) 0, 0, secret, 0),
                new SealSegment(1, "seg", secret),
                new DeleteSegment(1, "seg", secret),
                new UpdateSegmentPolicy(1, "seg", (byte) 0, 0, secret),
                new GetSegmentAttribute(1, "seg", ATTR, secret),
                new UpdateSegmentAttribute(1, "seg", ATTR, 1, 2, secret),
                new TruncateSegment(1, "seg", 0, secret),
                new CreateTransientSegment(1, W, "seg", secret),
                new LocateOffset(1, "seg", 0, secret),
                new MergeSegments(1, "tgt", "seg", secret),
                new MergeSegmentsBatch(1, "tgt", List.of("seg"), secret),
                new FlushToStorage(1, secret, 1),
                new ListStorageChunks("seg", secret, 1));
        for (WireCommand c : withToken) {
            assertThat(c.toString()).as(c.type().name()).doesNotContain(secret)
                    .startsWith(c.getClass().getSimpleName() + "[");
        }
    }

    @Test
    void nullTokensAreWrittenAsEmptyStrings() {
        assertLayout(new SealSegment(RID, "seg", null), "0000001c 0000000f | 0102030405060708 | 0003736567 | 0000");
        assertThat(new ReadSegment("seg", 0, 0, null, 0).delegationToken()).isEmpty();
        assertThat(new MergeSegments(0, "t", "s", null).delegationToken()).isEmpty();
        assertThat(new FlushToStorage(0, null, 0).delegationToken()).isEmpty();
    }

    @Test
    void listsAreCopied() {
        List<String> sources = new ArrayList<>(List.of("a"));
        MergeSegmentsBatch batch = new MergeSegmentsBatch(1, "t", sources, "");
        sources.add("b");
        assertThat(batch.sourceSegmentIds()).containsExactly("a");
        assertThatThrownBy(() -> batch.sourceSegmentIds().add("c")).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> new MergeSegments(1, "t", "s", "", null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> new StorageChunksListed(1, null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void requiredFieldsAreChecked() {
        assertThatThrownBy(() -> new ConditionalAppend(null, 0, 0, new Event(Bytes.EMPTY), 0))
                .isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> new ConditionalAppend(W, 0, 0, null, 0)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> new ConditionalBlockEnd(W, 0, 0, null, 0)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> new GetSegmentAttribute(0, "s", null, "")).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> new SegmentCreated(0, null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> new ChunkInfo(0, 0, 0, null, false)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void everySampleRoundTripsAndEveryCommandHasThree() {
        Map<WireCommandType, Integer> counts = new EnumMap<>(WireCommandType.class);
        for (long seed = 0; seed < 20; seed++) {
            for (WireCommand c : SegmentSamples.samples(new Random(seed))) {
                byte[] frame = FrameCodec.encode(c);
                assertThat(FrameCodec.decodeOne(frame)).as("seed %d", seed).isEqualTo(c);
                assertThat(FrameCodec.encode(FrameCodec.decodeOne(frame))).isEqualTo(frame);
                if (seed == 0) {
                    counts.merge(c.type(), 1, Integer::sum);
                }
            }
        }
        assertThat(counts).hasSize(31).allSatisfy((type, n) -> assertThat(n).as(type.name()).isGreaterThanOrEqualTo(3));
    }
}
