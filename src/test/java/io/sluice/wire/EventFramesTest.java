package io.sluice.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Splitting segment data into events. */
@Timeout(10)
class EventFramesTest {

    private static ByteBuffer framed(String... events) {
        WireOutput out = new WireOutput();
        for (String e : events) {
            new Event(ByteBuffer.wrap(e.getBytes(StandardCharsets.UTF_8))).writeFramed(out);
        }
        return out.buffer();
    }

    private static List<String> split(ByteBuffer data, int[] consumed) {
        List<String> events = new ArrayList<>();
        consumed[0] = EventFrames.forEach(data, e -> events.add(StandardCharsets.UTF_8.decode(e).toString()));
        return events;
    }

    @Test
    void splitsWholeEventsAndLeavesACutOffTail() {
        ByteBuffer all = framed("alpha", "", "gamma");
        int[] consumed = new int[1];
        assertThat(split(all, consumed)).containsExactly("alpha", "", "gamma");
        assertThat(consumed[0]).isEqualTo(all.remaining());
        for (int cut = 0; cut < all.remaining(); cut++) {
            ByteBuffer part = all.duplicate().limit(cut);
            List<String> events = split(part, consumed);
            assertThat(consumed[0]).as("cut at %d", cut).isLessThanOrEqualTo(cut);
            assertThat(events).isEqualTo(List.of("alpha", "", "gamma").subList(0, events.size()));
        }
        assertThat(all.position()).isZero();
    }

    @Test
    void startsAtTheBuffersPosition() {
        ByteBuffer b = ByteBuffer.allocate(3 + framed("x").remaining()).put(new byte[3]).put(framed("x")).flip().position(3);
        assertThat(EventFrames.count(b)).isEqualTo(1);
    }

    @Test
    void strictScanRejectsOtherFramesLenientScanStops() {
        ByteBuffer block = ByteBuffer.allocate(64);
        block.put(framed("e1")).put(FrameCodec.encode(new Padding(4))).flip();
        assertThatThrownBy(() -> EventFrames.count(block)).isInstanceOf(InvalidWireCommandException.class)
                .hasMessageContaining("expected an EVENT frame at byte 10 but found type code -1");
        List<ByteBuffer> seen = new ArrayList<>();
        assertThat(EventFrames.forEachLeading(block, seen::add)).isEqualTo(10);
        assertThat(seen).hasSize(1);
    }

    @Test
    void negativeLengthIsRejected() {
        ByteBuffer b = ByteBuffer.allocate(8).putInt(0).putInt(-5).flip();
        assertThatThrownBy(() -> EventFrames.count(b)).isInstanceOf(InvalidWireCommandException.class)
                .hasMessageContaining("negative length -5");
    }
    @Test
    void writingEventFramesInOnePassEqualsWritingThemOneByOne() {
        ByteBuffer direct = ByteBuffer.allocateDirect(3).put(new byte[] {7, 8, 9}).flip();
        ByteBuffer offset = ByteBuffer.wrap("xxpayloadyy".getBytes(StandardCharsets.UTF_8), 2, 7).slice();
        List<ByteBuffer> payloads = List.of(ByteBuffer.wrap(new byte[0]), direct,
                ByteBuffer.wrap("hello".getBytes(StandardCharsets.UTF_8)).asReadOnlyBuffer(), offset);
        WireOutput one = new WireOutput(16);
        one.writeInt(42);
        payloads.forEach(one::writeEventFrame);
        WireOutput pass = new WireOutput(16);
        pass.writeInt(42);
        pass.writeEventFrames(payloads, 4 * 8 + 3 + 5 + 7);
        assertThat(pass.toByteArray()).isEqualTo(one.toByteArray());
        assertThat(payloads).allMatch(p -> p.position() == 0);

        WireOutput wrong = new WireOutput(16);
        assertThatThrownBy(() -> wrong.writeEventFrames(payloads, 4 * 8 + 3 + 5 + 6))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("announced");
        assertThatThrownBy(() -> wrong.writeEventFrames(payloads, 4 * 8 + 3 + 5 + 8))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("announced");
    }
}
