package io.sluice.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import io.sluice.wire.AppendStreamDecoder.Append;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Reassembly of appends from every encoding a client may use (docs/protocol.md §5). */
@Timeout(10)
class AppendStreamDecoderTest {
    private static final UUID WRITER = UUID.fromString("e67d2fcc-0000-4000-8000-00005c400432");
    private static final UUID OTHER = UUID.fromString("00000000-0000-4000-8000-000000000002");
    private static final String SEGMENT = "golden/golden/0.#epoch.0";

    private AppendStreamDecoder decoder;

    @BeforeEach
    void setUp() {
        decoder = new AppendStreamDecoder();
        assertThat(decoder.accept(new SetupAppend(1, WRITER, SEGMENT, ""))).isNull();
    }

    private static ByteBuffer utf8(String s) {
        return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
    }

    /** Frames events as a segment stores them. */
    private static byte[] framed(String... events) {
        WireOutput out = new WireOutput();
        for (String e : events) {
            new Event(utf8(e)).writeFramed(out);
        }
        return out.toByteArray();
    }

    private static ByteBuffer concat(byte[]... parts) {
        int n = 0;
        for (byte[] p : parts) {
            n += p.length;
        }
        ByteBuffer b = ByteBuffer.allocate(n);
        for (byte[] p : parts) {
            b.put(p);
        }
        return b.flip();
    }

    private static byte[] frame(WireCommand c) {
        return FrameCodec.encode(c);
    }

    @Test
    void javaBlockWithPaddingYieldsTheWholeEvents() {
        // the shape of the captured second append: 2 events then PADDING filling the pre-declared block
        byte[] events = framed("event-2", "event-3");
        ByteBuffer block = concat(events, frame(new Padding(1950)));
        assertThat(decoder.accept(new AppendBlock(WRITER, block))).isNull();
        assertThat(decoder.blockOpen()).isTrue();
        Append a = decoder.accept(new AppendBlockEnd(WRITER, events.length, Bytes.EMPTY, 2, 3, 99));
        assertThat(decoder.blockOpen()).isFalse();
        assertThat(a.data()).isEqualTo(ByteBuffer.wrap(events));
        assertThat(a.segment()).isEqualTo(SEGMENT);
        assertThat(a.eventNumber()).isEqualTo(3);
        assertThat(a.eventCount()).isEqualTo(2);
        assertThat(a.requestId()).isEqualTo(99);
        assertThat(a.conditional()).isFalse();
    }

    @Test
    void blockWithAPartialEventIsJoinedWithTheBlockEndData() {
        byte[] whole = framed("one", "two");
        byte[] split = framed("a longer third event");
        byte[] head = java.util.Arrays.copyOf(split, 11);
        byte[] tail = java.util.Arrays.copyOfRange(split, 11, split.length);
        ByteBuffer block = concat(whole, frame(new PartialEvent(ByteBuffer.wrap(head))));
        decoder.accept(new AppendBlock(WRITER, block));
        Append a = decoder.accept(new AppendBlockEnd(WRITER, whole.length, ByteBuffer.wrap(tail), 3, 3, 5));
        assertThat(a.data()).isEqualTo(concat(whole, split));
        List<String> events = new ArrayList<>();
        EventFrames.forEach(a.data(), e -> events.add(StandardCharsets.UTF_8.decode(e).toString()));
        assertThat(events).containsExactly("one", "two", "a longer third event");
    }

    @Test
    void blockThatIsOnlyAPartialEvent() {
        byte[] split = framed("0123456789");
        decoder.accept(new AppendBlock(WRITER, concat(frame(new PartialEvent(ByteBuffer.wrap(split, 0, 4))))));
        Append a = decoder.accept(new AppendBlockEnd(WRITER, 0, ByteBuffer.wrap(split, 4, split.length - 4), 1, 1, 5));
        assertThat(a.data()).isEqualTo(ByteBuffer.wrap(split));
    }

    @Test
    void blockEndAloneCarriesTheWholeBatch() {
        byte[] events = framed("x", "y", "z");
        Append a = decoder.accept(new AppendBlockEnd(WRITER, events.length, ByteBuffer.wrap(events), 3, 3, 1));
        assertThat(a.data()).isEqualTo(ByteBuffer.wrap(events));
        // without a block, sizeOfWholeEvents is ignored, as a real server does
        Append b = decoder.accept(new AppendBlockEnd(WRITER, 1_000_000, ByteBuffer.wrap(events), 3, 6, 2));
        assertThat(b.data()).isEqualTo(ByteBuffer.wrap(events));
    }

    @Test
    void bothEncodersProduceTheSameAppendedBytes() {
        List<ByteBuffer> events = List.of(utf8("first"), utf8(""), utf8("third event"));
        WireOutput block = new WireOutput();
        int framedBytes = AppendEncoder.writeBlock(block, WRITER, events, 3, 10);
        WireOutput endOnly = new WireOutput();
        AppendEncoder.writeBlockEndOnly(endOnly, WRITER, events, 6, 11);

        List<Append> appends = new ArrayList<>();
        for (ByteBuffer stream : List.of(block.buffer(), endOnly.buffer())) {
            WireCommand c;
            while ((c = FrameCodec.decode(stream)) != null) {
                Append a = decoder.accept((Request) c);
                if (a != null) {
                    appends.add(a);
                }
            }
        }
        ByteBuffer expected = ByteBuffer.wrap(framed("first", "", "third event"));
        assertThat(appends).hasSize(2);
        assertThat(appends.get(0).data()).isEqualTo(expected);
        assertThat(appends.get(1).data()).isEqualTo(expected);
        assertThat(appends.get(0).eventCount()).isEqualTo(3);
        assertThat(framedBytes).isEqualTo(expected.remaining());
    }

    @Test
    void encoderWritesTheDocumentedBytes() {
        // docs/protocol.md §5 example: a single 5-byte event "hello"
        WireOutput out = new WireOutput();
        AppendEncoder.writeBlock(out, WRITER, List.of(utf8("hello")), 1, 0x0000000100000000L);
        assertThat(out.toByteArray()).isEqualTo(concat(
                frame(new AppendBlock(WRITER, ByteBuffer.wrap(framed("hello")))),
                frame(new AppendBlockEnd(WRITER, 13, Bytes.EMPTY, 1, 1, 0x0000000100000000L))).array());
        ByteBuffer b = out.buffer();
        assertThat(b.getInt(4)).as("AppendBlock length 16 + 13").isEqualTo(29);
        assertThat(b.getInt(8 + 29 + 4)).as("AppendBlockEnd length").isEqualTo(44);
    }

    @Test
    void conditionalAppendsCarryTheirOffsetAndFramedEvent() {
        Append a = decoder.accept(new ConditionalAppend(WRITER, 4, 120, new Event(utf8("state")), 77));
        assertThat(a.conditional()).isTrue();
        assertThat(a.expectedOffset()).isEqualTo(120);
        assertThat(a.data()).isEqualTo(ByteBuffer.wrap(framed("state")));
        assertThat(a.eventCount()).isEqualTo(1);
        Append b = decoder.accept(new ConditionalBlockEnd(WRITER, 5, 133, ByteBuffer.wrap(framed("p", "q")), 78));
        assertThat(b.expectedOffset()).isEqualTo(133);
        assertThat(b.data()).isEqualTo(ByteBuffer.wrap(framed("p", "q")));
    }

    @Test
    void otherCommandsPassThroughAnOpenBlock() {
        decoder.accept(new AppendBlock(WRITER, ByteBuffer.wrap(framed("e"))));
        // real servers serve a KeepAlive or a metadata request between AppendBlock and AppendBlockEnd
        assertThat(decoder.accept(new KeepAlive())).isNull();
        assertThat(decoder.accept(new GetStreamSegmentInfo(3, SEGMENT, ""))).isNull();
        assertThat(decoder.blockOpen()).isTrue();
        assertThat(decoder.accept(new AppendBlockEnd(WRITER, 9, Bytes.EMPTY, 1, 1, 1)).data().remaining()).isEqualTo(9);
    }

    @Test
    void topLevelPaddingIsSkipped() {
        assertThat(decoder.accept(new Padding(10))).isNull();
    }

    @Test
    void violationsAreRejected() {
        assertViolation(new AppendBlockEnd(OTHER, 0, ByteBuffer.wrap(framed("e")), 1, 1, 1), "did not send SetupAppend");
        assertViolation(new ConditionalAppend(OTHER, 1, 0, new Event(utf8("e")), 1), "did not send SetupAppend");
        assertViolation(new PartialEvent(utf8("abc")), "only valid inside an AppendBlock");
        assertViolation(new AppendBlockEnd(WRITER, 0, ByteBuffer.wrap(framed("e")), 0, 1, 1), "numEvents 0");

        decoder.accept(new AppendBlockEnd(WRITER, 0, ByteBuffer.wrap(framed("e")), 1, 10, 1));
        assertViolation(new AppendBlockEnd(WRITER, 0, ByteBuffer.wrap(framed("e")), 1, 9, 1), "went backwards from 10 to 9");
    }

    @Test
    void blockViolationsAreRejected() {
        byte[] events = framed("e1", "e2");
        decoder.accept(new SetupAppend(2, OTHER, "other", ""));

        decoder.accept(new AppendBlock(WRITER, ByteBuffer.wrap(events)));
        assertViolation(new AppendBlockEnd(OTHER, events.length, Bytes.EMPTY, 2, 2, 1), "closes the block of writer");

        decoder.accept(new AppendBlock(WRITER, ByteBuffer.wrap(events)));
        assertViolation(new AppendBlockEnd(WRITER, events.length + 1, Bytes.EMPTY, 2, 2, 1), "outside the block");

        decoder.accept(new AppendBlock(WRITER, ByteBuffer.wrap(events)));
        assertViolation(new AppendBlockEnd(WRITER, -1, Bytes.EMPTY, 2, 2, 1), "outside the block");

        decoder.accept(new AppendBlock(WRITER, ByteBuffer.wrap(events)));
        assertViolation(new AppendBlockEnd(WRITER, events.length - 3, Bytes.EMPTY, 2, 2, 1), "3 stray bytes");

        decoder.accept(new AppendBlock(WRITER, concat(events, frame(new Padding(4)))));
        assertViolation(new AppendBlockEnd(WRITER, events.length, utf8("x"), 2, 2, 1), "after a block that ended with padding");

        decoder.accept(new AppendBlock(WRITER, concat(events, frame(new KeepAlive()))));
        assertViolation(new AppendBlockEnd(WRITER, events.length, Bytes.EMPTY, 2, 2, 1), "type code 100");

        ByteBuffer lying = concat(events, frame(new Padding(4)));
        lying.putInt(events.length + 4, 7);
        decoder.accept(new AppendBlock(WRITER, lying));
        assertViolation(new AppendBlockEnd(WRITER, events.length, Bytes.EMPTY, 2, 2, 1), "declares 7 bytes but 4 remain");

        decoder.accept(new AppendBlock(WRITER, ByteBuffer.wrap(events)));
        assertViolation(new SetupAppend(3, WRITER, SEGMENT, ""), "still open");
        assertThat(decoder.blockOpen()).as("a violation drops the open block").isFalse();
    }

    private void assertViolation(Request r, String message) {
        assertThatThrownBy(() -> decoder.accept(r)).isInstanceOf(InvalidWireCommandException.class)
                .hasMessageContaining(message)
                .extracting(e -> ((InvalidWireCommandException) e).problem())
                .isEqualTo(InvalidWireCommandException.Problem.INVALID_APPEND);
    }
}
