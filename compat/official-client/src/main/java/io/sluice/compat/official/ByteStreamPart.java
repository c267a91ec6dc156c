package io.sluice.compat.official;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;

import io.pravega.client.ByteStreamClientFactory;
import io.pravega.client.admin.StreamManager;
import io.pravega.client.byteStream.ByteStreamReader;
import io.pravega.client.byteStream.ByteStreamWriter;

/**
 * Part {@code bytestream} of {@code verify}: on a one-segment stream, writes {@value #TOTAL} bytes in chunks of
 * varied sizes (byte arrays and a ByteBuffer), flushes, checks the tail offset, reads everything back, seeks into
 * the middle and reads again, truncates the head, seals, and checks that a read at the end reports end of stream.
 */
final class ByteStreamPart {
    static final int TOTAL = 1024 * 1024 + 12_345;
    private static final int[] CHUNKS = {1, 1000, 4096, 65_536, 7, 100_000, 3};
    private static final int TRUNCATE_AT = 4096;

    private ByteStreamPart() {
    }

    static void run(Run run, Part part, StreamManager streamManager) throws IOException {
        Options o = run.options;
        String stream = run.name("-bytes");
        part.put("stream", o.scope() + "/" + stream);
        part.put("bytes", TOTAL);
        run.phase("bytestream: creating stream " + stream);
        run.createStream(streamManager, stream, 1);
        byte[] data = new byte[TOTAL];
        for (int i = 0; i < TOTAL; i++) {
            data[i] = (byte) (i ^ (i >>> 8) ^ (i >>> 16));
        }
        try (ByteStreamClientFactory factory = ByteStreamClientFactory.withScope(o.scope(), run.config);
             ByteStreamWriter writer = factory.createByteStreamWriter(stream);
             ByteStreamReader reader = factory.createByteStreamReader(stream)) {
            run.phase("bytestream: writing " + TOTAL + " bytes");
            long t0 = System.nanoTime();
            int pos = 0;
            for (int c = 0; pos < TOTAL; c++) {
                int len = Math.min(CHUNKS[c % CHUNKS.length], TOTAL - pos);
                if (c == 4) {
                    writer.write(ByteBuffer.wrap(data, pos, len));
                } else {
                    writer.write(data, pos, len);
                }
                pos += len;
            }
            writer.flush();
            part.put("write_ms", (System.nanoTime() - t0) / 1_000_000);
            part.checkEqual((long) TOTAL, writer.fetchTailOffset(), "tail offset after flush");

            run.phase("bytestream: reading back");
            long t1 = System.nanoTime();
            byte[] back = readFully(reader, TOTAL);
            part.put("read_ms", (System.nanoTime() - t1) / 1_000_000);
            part.check(Arrays.equals(data, back), "bytes read back differ from those written (first difference at "
                    + Arrays.mismatch(data, back) + ")");
            part.checkEqual((long) TOTAL, reader.getOffset(), "reader offset after reading everything");

            int at = TOTAL / 3;
            reader.seekToOffset(at);
            part.checkEqual((long) at, reader.getOffset(), "reader offset after seek");
            byte[] slice = readFully(reader, 10_000);
            part.check(Arrays.equals(Arrays.copyOfRange(data, at, at + 10_000), slice),
                    "bytes read after seeking to " + at + " differ");

            run.phase("bytestream: truncate and seal");
            writer.truncateDataBefore(TRUNCATE_AT);
            part.checkEqual((long) TRUNCATE_AT, reader.fetchHeadOffset(), "head offset after truncateDataBefore");
            writer.closeAndSeal();
            reader.seekToOffset(TOTAL);
            part.checkEqual(-1, reader.read(), "read() at the end of the sealed stream");
        }
    }

    static byte[] readFully(ByteStreamReader reader, int length) throws IOException {
        byte[] buf = new byte[length];
        int n = 0;
        while (n < length) {
            int got = reader.read(buf, n, length - n);
            if (got < 0) {
                throw new IOException("end of stream after " + n + " of " + length + " bytes");
            }
            n += got;
        }
        return buf;
    }
}
