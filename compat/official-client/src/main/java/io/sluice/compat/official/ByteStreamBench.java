package io.sluice.compat.official;

import java.io.IOException;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

import io.pravega.client.ByteStreamClientFactory;
import io.pravega.client.admin.StreamManager;
import io.pravega.client.byteStream.ByteStreamReader;
import io.pravega.client.byteStream.ByteStreamWriter;

/**
 * Mode {@code bench --byte-stream}: the byte stream workload of Sluice's {@code bench --byte-stream} with the
 * official client, same JSON keys: on a new one-segment stream, N writes of S bytes then one flush (write time:
 * first write to the flush's return), then a {@code ByteStreamReader} from the head reads the N x S bytes in reads
 * of 64 KiB (read time: its creation to the last byte) and checks each against the pattern: byte {@code p} of the
 * stream is {@code p % 251}.
 */
final class ByteStreamBench {
    static final int PERIOD = 251;
    private static final int READ_BYTES = 64 * 1024;

    private ByteStreamBench() {
    }

    static byte[] pattern(int n) {
        byte[] b = new byte[n + PERIOD];
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte) (i % PERIOD);
        }
        return b;
    }

    static boolean run(Run run, Report report, StreamManager streamManager) throws IOException {
        Options o = run.options;
        String stream = o.stream();
        int writes = o.events();
        int size = o.size();
        long total = (long) writes * size;
        report.put("byte_stream", true);
        report.put("stream", o.scope() + "/" + stream);
        report.put("events", writes);
        report.put("size", size);
        run.phase("bench --byte-stream: creating stream " + stream);
        run.createStream(streamManager, stream, 1);
        long writeNanos;
        long readNanos;
        long read = 0;
        String error = null;
        try (ByteStreamClientFactory factory = ByteStreamClientFactory.withScope(o.scope(), run.config)) {
            byte[] source = pattern(size);
            run.phase("bench --byte-stream: writing " + writes + " x " + size + " bytes");
            try (ByteStreamWriter out = factory.createByteStreamWriter(stream)) {
                long w0 = System.nanoTime();
                long at = 0;
                for (int i = 0; i < writes; i++) {
                    out.write(source, (int) (at % PERIOD), size);
                    at += size;
                }
                out.flush();
                writeNanos = System.nanoTime() - w0;
            }
            run.phase("bench --byte-stream: reading " + total + " bytes");
            byte[] expected = pattern(READ_BYTES);
            byte[] buf = new byte[READ_BYTES];
            long r0 = System.nanoTime();
            try (ByteStreamReader in = factory.createByteStreamReader(stream)) {
                while (read < total) {
                    int n = in.read(buf, 0, (int) Math.min(READ_BYTES, total - read));
                    if (n < 0) {
                        error = "the stream ended after " + read + " of " + total + " bytes";
                        break;
                    }
                    int from = (int) (read % PERIOD);
                    if (!Arrays.equals(buf, 0, n, expected, from, from + n)) {
                        error = "the bytes at offset " + read + " are not the ones written";
                        break;
                    }
                    read += n;
                }
            }
            readNanos = System.nanoTime() - r0;
        }
        boolean ok = error == null && read == total;
        report.put("write", rate(total, writeNanos));
        report.put("read", rate(read, readNanos));
        Map<String, Object> verify = new LinkedHashMap<>();
        verify.put("ok", ok);
        verify.put("bytes", read);
        if (error != null) {
            verify.put("error", error);
        }
        report.put("verify", verify);
        return ok;
    }

    private static Map<String, Object> rate(long bytes, long nanos) {
        Map<String, Object> m = new LinkedHashMap<>();
        double seconds = nanos / 1e9;
        m.put("mb_per_s", seconds == 0 ? 0 : bytes / 1e6 / seconds);
        m.put("bytes", bytes);
        m.put("seconds", seconds);
        return m;
    }
}
