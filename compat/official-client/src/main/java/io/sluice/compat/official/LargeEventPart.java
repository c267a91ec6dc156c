package io.sluice.compat.official;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32;

import io.pravega.client.EventStreamClientFactory;
import io.pravega.client.admin.ReaderGroupManager;
import io.pravega.client.stream.EventRead;
import io.pravega.client.stream.EventStreamReader;
import io.pravega.client.stream.EventStreamWriter;
import io.pravega.client.stream.EventWriterConfig;
import io.pravega.client.stream.ReaderConfig;
import io.pravega.client.stream.ReaderGroupConfig;
import io.pravega.client.stream.Stream;

/**
 * Mode {@code large-events}: interop of large events (over 8 MiB, {@code EventWriterConfig.enableLargeEvents}) with
 * another client, on an EXISTING {@code --scope}/{@code --stream} (nothing else created or deleted).
 *
 * <ul>
 *   <li>{@code --role write}: the official writer, with large events enabled, writes {@code --events} N events of
 *       {@code --size} bytes with routing key {@code "large"}, each awaited; event {@code i} holds
 *       {@link #content(int, int) content(i, size)};</li>
 *   <li>{@code --role read}: the official reader (a new reader group from the head of the stream) reads N events
 *       and checks that event {@code i} is exactly {@code content(i, size)}, whole and in order, then that no
 *       further event comes for a second.</li>
 * </ul>
 * Both report the CRC-32 of every event ({@code crc32}), so a test can compare them with what the other client saw.
 */
final class LargeEventPart {
    /** The routing key of every event. */
    static final String KEY = "large";

    private LargeEventPart() {
    }

    /**
     * The bytes of event {@code index}: int32 index, int32 size, then xorshift64 bytes seeded by the index, so a
     * lost, doubled or misplaced piece of the event shows. Sluice's compat test builds the same bytes.
     */
    static byte[] content(int index, int size) {
        byte[] b = new byte[size];
        ByteBuffer.wrap(b).putInt(0, index).putInt(4, size);
        long x = (index + 1) * 0x9E3779B97F4A7C15L;
        for (int i = 8; i < size; i += 8) {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
            for (int j = 0; j < 8 && i + j < size; j++) {
                b[i + j] = (byte) (x >>> (8 * j));
            }
        }
        return b;
    }

    static long crc(ByteBuffer b) {
        CRC32 c = new CRC32();
        c.update(b.duplicate());
        return c.getValue();
    }

    static boolean run(Run run, Report report) {
        Options o = run.options;
        Part part = new Part("large-events");
        report.put("large-events", part);
        part.start();
        try {
            part.put("stream", o.scope() + "/" + o.stream());
            part.put("role", o.role());
            part.put("events", o.events());
            part.put("size", o.size());
            if (o.role().equals("write")) {
                write(run, part);
            } else {
                read(run, part);
            }
        } catch (Throwable t) {
            part.error(t);
        } finally {
            part.finish();
        }
        return part.ok();
    }

    private static void write(Run run, Part part) throws Exception {
        Options o = run.options;
        List<Long> crcs = new ArrayList<>();
        long t0 = System.nanoTime();
        try (EventStreamClientFactory factory = EventStreamClientFactory.withScope(o.scope(), run.config);
             EventStreamWriter<ByteBuffer> writer = factory.createEventWriter(o.stream(), Payload.SERIALIZER,
                     EventWriterConfig.builder().enableLargeEvents(true).build())) {
            for (int i = 0; i < o.events(); i++) {
                run.phase("large-events: writing event " + i + " of " + o.events() + " (" + o.size() + " bytes)");
                ByteBuffer event = ByteBuffer.wrap(content(i, o.size()));
                crcs.add(crc(event));
                writer.writeEvent(KEY, event).get(run.remainingNanos(), TimeUnit.NANOSECONDS);
            }
            writer.flush();
        }
        long nanos = System.nanoTime() - t0;
        part.put("written", crcs.size());
        part.put("crc32", crcs);
        part.put("mb_per_s", (double) o.events() * o.size() / 1e6 / (nanos / 1e9));
        part.checkEqual((long) o.events(), (long) crcs.size(), "events written");
    }

    private static void read(Run run, Part part) throws Exception {
        Options o = run.options;
        String group = run.name("-large-rg");
        List<Long> crcs = new ArrayList<>();
        int wrong = 0;
        long t0 = System.nanoTime();
        try (ReaderGroupManager groups = ReaderGroupManager.withScope(o.scope(), run.config);
             EventStreamClientFactory factory = EventStreamClientFactory.withScope(o.scope(), run.config)) {
            groups.createReaderGroup(group, ReaderGroupConfig.builder().stream(Stream.of(o.scope(), o.stream()))
                    .disableAutomaticCheckpoints().build());
            try (EventStreamReader<ByteBuffer> reader = factory.createReader(group + "-reader", group,
                    Payload.SERIALIZER, ReaderConfig.builder().build())) {
                while (crcs.size() < o.events() && run.remainingNanos() > 0) {
                    run.phase("large-events: reading event " + crcs.size() + " of " + o.events());
                    EventRead<ByteBuffer> e = reader.readNextEvent(1000);
                    if (e.getEvent() == null) {
                        continue;
                    }
                    ByteBuffer event = e.getEvent();
                    int i = crcs.size();
                    crcs.add(crc(event));
                    if (!event.equals(ByteBuffer.wrap(content(i, o.size())))) {
                        wrong++;
                        part.error("event " + i + " (" + event.remaining() + " bytes) is not content(" + i + ", "
                                + o.size() + ")");
                    }
                }
                EventRead<ByteBuffer> extra = reader.readNextEvent(1000);
                part.check(extra.getEvent() == null, "an event after the " + o.events() + " expected ones");
            } finally {
                groups.deleteReaderGroup(group);
            }
        }
        long nanos = System.nanoTime() - t0;
        part.put("read", crcs.size());
        part.put("wrong", wrong);
        part.put("crc32", crcs);
        part.put("mb_per_s", (double) crcs.size() * o.size() / 1e6 / (nanos / 1e9));
        part.checkEqual((long) o.events(), (long) crcs.size(), "events read");
    }
}
