package io.sluice.compat.official;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;

import io.pravega.client.ByteStreamClientFactory;
import io.pravega.client.byteStream.ByteStreamReader;
import io.pravega.client.byteStream.ByteStreamWriter;

/**
 * Mode {@code bytestream-interop}: byte streams shared with another client, on an EXISTING one-segment
 * {@code --scope}/{@code --stream} (nothing else created or deleted).
 *
 * <ul>
 *   <li>{@code --role write}: the official {@code ByteStreamWriter} writes {@code --size} bytes,
 *       {@link #content(int) content(size)}, in writes of the sizes {@link #WRITES} in turn (byte arrays, every
 *       fifth a ByteBuffer), flushes, checks the tail offset and seals the stream with {@code closeAndSeal};</li>
 *   <li>{@code --role read}: the official {@code ByteStreamReader} reads {@code --size} bytes from the head, checks
 *       they are {@code content(size)} and that the stream then ends ({@code read() == -1}: the writer sealed it).</li>
 * </ul>
 * Both report the CRC-32 of the bytes ({@code crc32}) and the offsets they saw.
 */
final class ByteStreamInteropPart {
    /** Write sizes, used in turn: below, at and above the 4 KiB buffer, and one over 8 MiB. */
    static final int[] WRITES = {1, 1000, 4096, 65_536, 7, 9 * 1024 * 1024, 100_000, 3};

    private ByteStreamInteropPart() {
    }

    /** The bytes: xorshift64 from a fixed seed. Sluice's compat test builds the same ones. */
    static byte[] content(int size) {
        return LargeEventPart.content(0, size);
    }

    static boolean run(Run run, Report report) {
        Options o = run.options;
        Part part = new Part("bytestream-interop");
        report.put("bytestream-interop", part);
        part.start();
        try {
            part.put("stream", o.scope() + "/" + o.stream());
            part.put("role", o.role());
            part.put("size", o.size());
            try (ByteStreamClientFactory factory = ByteStreamClientFactory.withScope(o.scope(), run.config)) {
                if (o.role().equals("write")) {
                    write(run, part, factory);
                } else {
                    read(run, part, factory);
                }
            }
        } catch (Throwable t) {
            part.error(t);
        } finally {
            part.finish();
        }
        return part.ok();
    }

    private static void write(Run run, Part part, ByteStreamClientFactory factory) throws IOException {
        byte[] data = content(run.options.size());
        ByteStreamWriter writer = factory.createByteStreamWriter(run.options.stream());
        run.phase("bytestream-interop: writing " + data.length + " bytes");
        long t0 = System.nanoTime();
        int pos = 0;
        for (int c = 0; pos < data.length; c++) {
            int len = Math.min(WRITES[c % WRITES.length], data.length - pos);
            if (c % 5 == 4) {
                writer.write(ByteBuffer.wrap(data, pos, len));
            } else {
                writer.write(data, pos, len);
            }
            pos += len;
        }
        writer.flush();
        part.put("write_ms", (System.nanoTime() - t0) / 1_000_000);
        long tail = writer.fetchTailOffset();
        part.put("tail", tail);
        part.checkEqual((long) data.length, tail, "tail offset after flush");
        run.phase("bytestream-interop: sealing");
        writer.closeAndSeal();
        part.put("crc32", LargeEventPart.crc(ByteBuffer.wrap(data)));
    }

    private static void read(Run run, Part part, ByteStreamClientFactory factory) throws IOException {
        int size = run.options.size();
        try (ByteStreamReader reader = factory.createByteStreamReader(run.options.stream())) {
            run.phase("bytestream-interop: reading " + size + " bytes");
            part.put("head", reader.fetchHeadOffset());
            byte[] back = ByteStreamPart.readFully(reader, size);
            byte[] expected = content(size);
            part.check(Arrays.equals(expected, back), "bytes read differ from content(" + size
                    + ") (first difference at " + Arrays.mismatch(expected, back) + ")");
            part.put("offset", reader.getOffset());
            run.phase("bytestream-interop: expecting the end of the sealed stream");
            part.checkEqual(-1, reader.read(), "read() after the last byte of the sealed stream");
            part.put("crc32", LargeEventPart.crc(ByteBuffer.wrap(back)));
        }
    }
}
