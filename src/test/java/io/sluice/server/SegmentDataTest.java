package io.sluice.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Random;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@link SegmentData} in memory: chunks that grow to full size, and bytes read back exactly across them. */
@Timeout(30)
class SegmentDataTest {
    private static final SegmentData.ChunkReader NO_FILES = (chunk, from, dst, at, n) -> {
        throw new AssertionError("no stored chunk expected");
    };

    @Test
    void appendsOfManySizesReadBackExactlyAcrossFullSizeChunks() {
        Random random = new Random(42);
        byte[] all = new byte[5 * SegmentData.MEMORY_CHUNK_BYTES + 12345];
        random.nextBytes(all);
        SegmentData data = new SegmentData();
        int written = 0;
        while (written < all.length) {
            int n = Math.min(all.length - written, 1 + random.nextInt(300_000));
            ByteBuffer src = ByteBuffer.wrap(all, written, n);
            data.append(src);
            assertThat(src.position()).as("the source is left as it was").isEqualTo(written);
            assertThat(src.remaining()).isEqualTo(n);
            written += n;
        }
        assertThat(data.length()).isEqualTo(all.length);

        long full = data.chunks().stream().filter(c -> c instanceof SegmentData.MemoryChunk m
                && m.capacity() == SegmentData.MEMORY_CHUNK_BYTES).count();
        assertThat(full).as("full-size chunks").isGreaterThanOrEqualTo(4);
        long expectedOffset = 0;
        for (SegmentData.Chunk c : data.chunks()) {
            assertThat(c.offset()).isEqualTo(expectedOffset);
            expectedOffset += c.length();
        }
        assertThat(expectedOffset).isEqualTo(all.length);

        assertThat(data.read(0, all.length, NO_FILES)).isEqualTo(all);
        for (int i = 0; i < 200; i++) {
            int from = random.nextInt(all.length);
            int n = random.nextInt(Math.min(all.length - from, 3 * SegmentData.MEMORY_CHUNK_BYTES) + 1);
            byte[] expected = Arrays.copyOfRange(all, from, from + n);
            assertThat(data.read(from, n, NO_FILES)).as("%d bytes from %d", n, from).isEqualTo(expected);
        }
    }

    @Test
    void twoSegmentsFillingFullSizeChunksNeverShareABuffer() {
        SegmentData a = new SegmentData();
        SegmentData b = new SegmentData();
        byte[] ones = new byte[64 * 1024];
        Arrays.fill(ones, (byte) 1);
        byte[] twos = new byte[64 * 1024];
        Arrays.fill(twos, (byte) 2);
        for (int i = 0; i < 64; i++) { // 4 MiB each, interleaved, so their full-size chunks alternate
            a.append(ByteBuffer.wrap(ones));
            b.append(ByteBuffer.wrap(twos));
        }
        byte[] readA = a.read(0, (int) a.length(), NO_FILES);
        byte[] readB = b.read(0, (int) b.length(), NO_FILES);
        for (int i = 0; i < readA.length; i++) {
            if (readA[i] != 1 || readB[i] != 2) {
                throw new AssertionError("byte " + i + " reads " + readA[i] + " and " + readB[i]);
            }
        }
    }
}
