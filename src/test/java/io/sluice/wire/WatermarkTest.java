package io.sluice.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.sluice.wire.Watermark.SegmentWithRange;

/**
 * Golden bytes of Pravega 0.13's Watermark serialization (docs/watermarks.md §3); WatermarkCompatTest checks the
 * same codec against bytes the real controller wrote.
 */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class WatermarkTest {

    private static byte[] bytes(ByteBuffer b) {
        byte[] out = new byte[b.remaining()];
        b.duplicate().get(out);
        return out;
    }

    @Test
    void oneSegmentWatermarkHasPravegasLayout() {
        Watermark w = new Watermark(1000, 2000, Map.of(new SegmentWithRange((1L << 32) | 3, 0.5, 1.0), 77L));
        String expected = "00000100" + "00000039"          // format, version, 1 revision, revision 0; 57 bytes
                + "00000000000003e8" + "00000000000007d0"  // lower, upper
                + "01"                                     // one entry
                + "00000100" + "00000018"                  // segment header, 24 bytes
                + "0000000100000003"                       // id: epoch 1, number 3
                + "3fe0000000000000" + "3ff0000000000000"  // 0.5, 1.0
                + "000000000000004d";                      // offset 77
        assertThat(HexFormat.of().formatHex(bytes(w.encode()))).isEqualTo(expected);
        assertThat(bytes(w.encode())).hasSize(65);
        assertThat(Watermark.decode(ByteBuffer.wrap(HexFormat.of().parseHex(expected)))).isEqualTo(w);
    }

    @Test
    void countsUseCompactIntsAndOrderIsKept() {
        Map<SegmentWithRange, Long> cut = new LinkedHashMap<>();
        for (int i = 0; i < 200; i++) {
            cut.put(new SegmentWithRange(i, i / 200.0, (i + 1) / 200.0), (long) i);
        }
        ByteBuffer b = new Watermark(Long.MIN_VALUE, Long.MAX_VALUE, cut).encode();
        assertThat(b.get(24) & 0xFF).as("200 as a two-byte compact int: 10 prefix").isEqualTo(0x80);
        assertThat(b.get(25) & 0xFF).isEqualTo(200);
        Watermark back = Watermark.decode(b);
        assertThat(back.streamCut().keySet()).containsExactlyElementsOf(cut.keySet());
        assertThat(back.lowerTimeBound()).isEqualTo(Long.MIN_VALUE);
    }

    @Test
    void laterRevisionsExtraFieldsAreSkipped() {
        // Pravega after 0.13 appends scope and stream (writeUTF) to the revision: the length says where it ends
        byte[] v013 = bytes(new Watermark(5, 6, Map.of(new SegmentWithRange(0, 0.0, 1.0), 1L)).encode());
        byte[] extra = {0, 2, 's', 'c', 0, 1, 's'};
        ByteBuffer later = ByteBuffer.allocate(v013.length + extra.length).put(v013).put(extra).flip();
        later.putInt(4, later.getInt(4) + extra.length);
        assertThat(Watermark.decode(later)).isEqualTo(Watermark.decode(ByteBuffer.wrap(v013)));
    }

    @Test
    void badBytesAreRefusedNamingWhatIsWrong() {
        assertThatThrownBy(() -> Watermark.decode(ByteBuffer.wrap(new byte[] {1, 0, 1, 0, 0, 0, 0, 0})))
                .isInstanceOf(InvalidWireCommandException.class).hasMessageContaining("format 1");
        assertThatThrownBy(() -> Watermark.decode(ByteBuffer.wrap(new byte[] {0, 0, 1, 0, 0, 0, 0, 99})))
                .isInstanceOf(InvalidWireCommandException.class).hasMessageContaining("99");
        assertThatThrownBy(() -> new Watermark(2, 1, Map.of())).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("below");
    }
}
