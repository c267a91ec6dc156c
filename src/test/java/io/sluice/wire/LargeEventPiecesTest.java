package io.sluice.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A large event's framed bytes cut into 8 MiB {@code ConditionalBlockEnd} pieces (wire-protocol.md §5.6), and the
 * reassembler joining an event that arrives in many reads into one array as the pieces come.
 */
@Timeout(60)
class LargeEventPiecesTest {
    private static final int MIB = 1024 * 1024;
    private static final UUID WRITER = new UUID(1, 2);

    private static ByteBuffer random(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return ByteBuffer.wrap(b);
    }

    /** The events framed one after the other, as the segment will hold them. */
    private static byte[] framed(List<ByteBuffer> events) {
        WireOutput out = new WireOutput();
        for (ByteBuffer e : events) {
            out.writeEventFrame(e);
        }
        return out.toByteArray();
    }

    @Test
    void piecesAreAtMost8MiBAndTogetherAreTheFramedEvents() {
        // a batch whose piece boundaries fall inside a header and inside a body
        List<ByteBuffer> events = List.of(random(8 * MIB - 12, 1), random(3, 2), random(9 * MIB, 3));
        LargeEventPieces pieces = new LargeEventPieces(events);
        byte[] expected = framed(events);
        assertThat(pieces.framedBytes()).isEqualTo(expected.length);
        assertThat(pieces.count()).isEqualTo(3);
        WireOutput joined = new WireOutput();
        for (int i = 0; i < pieces.count(); i++) {
            WireOutput frame = new WireOutput();
            pieces.writePiece(frame, WRITER, i, 100 + i);
            assertThat(frame.position()).isEqualTo(LargeEventPieces.OVERHEAD + pieces.lengthOf(i))
                    .isLessThanOrEqualTo(WireProtocol.MAX_WIRECOMMAND_SIZE);
            ConditionalBlockEnd c = (ConditionalBlockEnd) FrameCodec.decodeOne(frame.toByteArray());
            assertThat(c.writerId()).isEqualTo(WRITER);
            assertThat(c.eventNumber()).isEqualTo(i);
            assertThat(c.expectedOffset()).isEqualTo((long) i * LargeEventPieces.PIECE_BYTES)
                    .isEqualTo(pieces.offsetOf(i));
            assertThat(c.requestId()).isEqualTo(100 + i);
            assertThat(c.data().remaining()).isLessThanOrEqualTo(LargeEventPieces.PIECE_BYTES);
            assertThat(c).isEqualTo(pieces.piece(WRITER, i, 100 + i));
            joined.writeBytes(c.data());
        }
        assertThat(joined.toByteArray()).isEqualTo(expected);
        assertThat(events).allMatch(e -> e.position() == 0, "payload positions untouched");
        assertThatThrownBy(() -> pieces.lengthOf(3)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> new LargeEventPieces(List.of())).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void anEventReadInManySmallPiecesIsJoinedWhole() {
        byte[] big = random(3 * MIB + 7, 4).array();
        byte[] segment = framed(List.of(ByteBuffer.wrap(new byte[] {1}), ByteBuffer.wrap(big),
                ByteBuffer.wrap(new byte[] {2, 3})));
        EventFrames.Reassembler events = new EventFrames.Reassembler(0, Integer.MAX_VALUE - 16);
        List<ByteBuffer> out = new ArrayList<>();
        int read = 64 * 1024 + 3;
        for (int p = 0; p < segment.length; p += read) {
            int n = Math.min(read, segment.length - p);
            events.add(ByteBuffer.wrap(segment, p, n));
            for (ByteBuffer e; (e = events.take()) != null; ) {
                out.add(e);
            }
            if (out.size() == 1) {
                // while the big event is incomplete, it says how many bytes it still lacks
                assertThat(events.missing()).isEqualTo(Math.max(0, 8 + big.length - (p + n - 9)));
            }
        }
        assertThat(out).hasSize(3);
        assertThat(out.get(0)).isEqualTo(ByteBuffer.wrap(new byte[] {1}));
        assertThat(out.get(1)).isEqualTo(ByteBuffer.wrap(big));
        assertThat(out.get(2)).isEqualTo(ByteBuffer.wrap(new byte[] {2, 3}));
        assertThat(events.offset()).isEqualTo(segment.length);
        assertThat(events.buffered()).isZero();
    }

    @Test
    void clearDropsAnAssemblyUnderWay() {
        byte[] segment = framed(List.of(random(MIB, 5)));
        EventFrames.Reassembler events = new EventFrames.Reassembler(0, Integer.MAX_VALUE - 16);
        events.add(ByteBuffer.wrap(segment, 0, 1000));
        events.add(ByteBuffer.wrap(segment, 1000, 1000));
        assertThat(events.take()).isNull();
        assertThat(events.missing()).isEqualTo(segment.length - 2000);
        assertThat(events.buffered()).isEqualTo(2000);
        events.clear();
        assertThat(events.buffered()).isZero();
        assertThat(events.missing()).isZero();
        assertThat(events.take()).isNull();
    }
}
