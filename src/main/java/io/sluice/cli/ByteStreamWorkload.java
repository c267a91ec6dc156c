package io.sluice.cli;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import io.sluice.admin.StreamManager;
import io.sluice.bytestream.ByteStreamReader;
import io.sluice.bytestream.ByteStreamWriter;
import io.sluice.client.SluiceClient;
import io.sluice.stream.ScalingPolicy;
import io.sluice.stream.ScopedStream;
import io.sluice.stream.StreamConfiguration;

/**
 * The byte stream workload of {@code bench --byte-stream}, as the official-client driver's {@code bench
 * --byte-stream} runs it, with the same JSON keys: on a new one-segment stream, N writes of S bytes then one flush
 * (write time: first write to the flush's return), then a reader from the head reads the N x S bytes in reads of
 * 64 KiB (read time: its creation to the last byte) and checks each against the pattern. Byte {@code p} of the
 * stream is {@code p % 251}: a prime period, so a lost, doubled or misplaced write shows, and writing costs no fill.
 */
final class ByteStreamWorkload {
    /** The pattern's period. */
    static final int PERIOD = 251;
    private static final int READ_BYTES = 64 * 1024;

    private ByteStreamWorkload() {
    }

    /** What the run did. */
    record Report(ScopedStream stream, int writes, int size, long writeNanos, long readNanos, long bytesRead,
                  String error, long totalNanos) {
        boolean ok() {
            return error == null && bytesRead == (long) writes * size;
        }

        Map<String, Object> json(Map<String, Object> context) {
            Map<String, Object> json = new LinkedHashMap<>();
            json.put("ok", ok());
            json.putAll(context);
            json.put("byte_stream", true);
            json.put("scope", stream.scope());
            json.put("stream", stream.scopedName());
            json.put("events", writes);
            json.put("size", size);
            json.put("write", rate(writes * (long) size, writeNanos));
            json.put("read", rate(bytesRead, readNanos));
            Map<String, Object> verify = new LinkedHashMap<>();
            verify.put("ok", ok());
            verify.put("bytes", bytesRead);
            if (error != null) {
                verify.put("error", error);
            }
            json.put("verify", verify);
            json.put("total_ms", totalNanos / 1_000_000);
            return json;
        }

        List<String> lines() {
            List<String> lines = new ArrayList<>();
            lines.add(String.format(Locale.ROOT, "byte stream %s: %d writes of %d B", stream, writes, size));
            lines.add(String.format(Locale.ROOT, "write: %.1f MB/s (%.3f s)", mb(writes * (long) size, writeNanos),
                    writeNanos / 1e9));
            lines.add(String.format(Locale.ROOT, "read:  %.1f MB/s (%.3f s)", mb(bytesRead, readNanos),
                    readNanos / 1e9));
            lines.add(ok() ? "verify: ok (" + bytesRead + " bytes)" : "verify: FAILED: " + (error != null ? error
                    : bytesRead + " of " + (long) writes * size + " bytes read"));
            return lines;
        }
    }

    private static double mb(long bytes, long nanos) {
        return nanos == 0 ? 0 : bytes / 1e6 / (nanos / 1e9);
    }

    private static Map<String, Object> rate(long bytes, long nanos) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("mb_per_s", mb(bytes, nanos));
        m.put("bytes", bytes);
        m.put("seconds", nanos / 1e9);
        return m;
    }

    /** @return {@code n + PERIOD} bytes of the pattern from offset 0, so any offset's bytes are a slice of it */
    static byte[] pattern(int n) {
        byte[] b = new byte[n + PERIOD];
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte) (i % PERIOD);
        }
        return b;
    }

    static Report run(SluiceClient client, ScopedStream stream, int writes, int size) {
        long t0 = System.nanoTime();
        StreamManager streams = client.streamManager();
        streams.createScope(stream.scope());
        streams.createStream(stream.scope(), stream.name(),
                StreamConfiguration.builder().scalingPolicy(ScalingPolicy.fixed(1)).build());
        long total = (long) writes * size;
        long writeNanos;
        long readNanos;
        long read = 0;
        String error = null;
        try {
            byte[] source = pattern(size);
            try (ByteStreamWriter out = client.newByteStreamWriter(stream.scope(), stream.name())) {
                long w0 = System.nanoTime();
                long at = 0;
                for (int i = 0; i < writes; i++) {
                    out.write(source, (int) (at % PERIOD), size);
                    at += size;
                }
                out.flush();
                writeNanos = System.nanoTime() - w0;
            }
            byte[] expected = pattern(READ_BYTES);
            byte[] buf = new byte[READ_BYTES];
            long r0 = System.nanoTime();
            try (ByteStreamReader in = client.newByteStreamReader(stream.scope(), stream.name())) {
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
        } finally {
            try {
                streams.sealStream(stream.scope(), stream.name());
                streams.deleteStream(stream.scope(), stream.name());
                streams.deleteScope(stream.scope());
            } catch (RuntimeException e) {
                System.err.println("could not delete " + stream + ": " + e.getMessage());
            }
        }
        return new Report(stream, writes, size, writeNanos, readNanos, read, error, System.nanoTime() - t0);
    }
}
