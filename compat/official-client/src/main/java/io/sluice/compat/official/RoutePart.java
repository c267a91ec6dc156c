package io.sluice.compat.official;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.pravega.client.EventStreamClientFactory;
import io.pravega.client.stream.EventStreamWriter;
import io.pravega.client.stream.EventWriterConfig;
import io.pravega.client.stream.impl.UTF8StringSerializer;

/**
 * Mode {@code route}: the official client writes one event {@code "official:<i>"} with the i-th routing key of
 * {@code --keys-file} to an existing stream, so that a test can read each segment and see where the official client
 * routed every key. Creates and deletes nothing.
 */
final class RoutePart {
    private RoutePart() {
    }

    static boolean run(Run run, Report report) {
        Options o = run.options;
        Part part = new Part("route");
        report.put("route", part);
        part.start();
        try {
            List<String> keys = readKeys(o);
            part.put("stream", o.scope() + "/" + o.stream());
            part.put("keys", keys.size());
            run.phase("route: one event for each of " + keys.size() + " routing keys to " + o.scope() + "/"
                    + o.stream());
            List<CompletableFuture<Void>> acks = new ArrayList<>();
            try (EventStreamClientFactory factory = EventStreamClientFactory.withScope(o.scope(), run.config);
                 EventStreamWriter<String> writer = factory.createEventWriter(o.stream(), new UTF8StringSerializer(),
                         EventWriterConfig.builder().build())) {
                for (int i = 0; i < keys.size(); i++) {
                    acks.add(writer.writeEvent(keys.get(i), "official:" + i));
                }
                writer.flush();
            }
            int written = 0;
            for (CompletableFuture<Void> ack : acks) {
                ack.get(run.remainingNanos(), TimeUnit.NANOSECONDS);
                written++;
            }
            part.put("written", written);
            part.checkEqual((long) keys.size(), (long) written, "events written");
        } catch (Throwable t) {
            part.error(t);
        } finally {
            part.finish();
        }
        return part.ok();
    }

    /** One key a line, as the hex of its UTF-16 code units (4 digits each), so that any Java string survives. */
    private static List<String> readKeys(Options o) throws Exception {
        List<String> keys = new ArrayList<>();
        for (String line : Files.readAllLines(o.keysFile(), StandardCharsets.US_ASCII)) {
            String hex = line.strip();
            if (hex.length() % 4 != 0) {
                throw new IllegalArgumentException("--keys-file: '" + hex + "' is not UTF-16 code units in hex");
            }
            StringBuilder key = new StringBuilder();
            for (int i = 0; i < hex.length(); i += 4) {
                key.append((char) HexFormat.fromHexDigits(hex, i, i + 4));
            }
            keys.add(key.toString());
        }
        return keys;
    }
}
