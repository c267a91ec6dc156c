package io.sluice.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;

import io.sluice.client.ClientInternals;
import io.sluice.client.SluiceClient;
import io.sluice.common.Deadline;
import io.sluice.connection.Connection;
import io.sluice.connection.Flow;
import io.sluice.connection.TcpConnectionFactory;
import io.sluice.errors.SluiceException;
import io.sluice.storage.FailingFsync;
import io.sluice.stream.EventStreamWriter;
import io.sluice.stream.ScalingPolicy;
import io.sluice.stream.ScopedStream;
import io.sluice.stream.Serializers;
import io.sluice.stream.StreamConfiguration;
import io.sluice.wire.AppendEncoder;
import io.sluice.wire.AppendSetup;
import io.sluice.wire.CreateSegment;
import io.sluice.wire.DataAppended;
import io.sluice.wire.ErrorMessage;
import io.sluice.wire.EventFrames;
import io.sluice.wire.ReadSegment;
import io.sluice.wire.Reply;
import io.sluice.wire.Request;
import io.sluice.wire.SegmentCreated;
import io.sluice.wire.SegmentRead;
import io.sluice.wire.SetupAppend;
import io.sluice.wire.WireOutput;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The durable server (fsync on) when {@code fsync} fails ({@link FailingFsync}: the unforced bytes are lost and the
 * failure is reported once, as on Linux). The changes whose fsync failed get an error reply naming the I/O error and
 * are not acknowledged, even though the next fsync succeeds; the writer whose append was lost gets no later append
 * accepted until it sets up again; the server writes again by itself once fsync works; a snapshot whose fsync fails
 * is simply not taken (the log keeps everything); and a restart on the same directory reads exactly what was
 * acknowledged.
 */
@Timeout(120)
class FailingFsyncServerTest {
    private static final ScopedStream STREAM = ScopedStream.of("fsync", "events");
    private static final String CANNOT_WRITE = "the segment store cannot write: input/output error";
    static final int DEFAULT_FAULTS = 20;
    static final int FULL_FAULTS = 200;

    @TempDir
    Path dir;

    private static Deadline longWait() {
        return Deadline.after(Duration.ofSeconds(30));
    }

    private EmbeddedServer start(FailingFsync disk) {
        return EmbeddedServer.builder().dataDir(dir).fsync(true).storageFiles(disk).build();
    }

    private static boolean containerLog(Path p) {
        return p.toString().contains("container") && p.getFileName().toString().endsWith(".log");
    }

    private static void awaitWritable(EmbeddedServer server) throws Exception {
        for (SegmentContainer c : server.segmentStore().containers()) {
            c.writable().get(30, TimeUnit.SECONDS);
        }
    }

    private static void createStream(SluiceClient client, ScopedStream stream) {
        ClientInternals.controller(client).createScope(stream.scope());
        ClientInternals.controller(client).createStream(stream,
                StreamConfiguration.builder().scalingPolicy(ScalingPolicy.fixed(1)).build());
    }

    private static void write(SluiceClient client, ScopedStream stream, int from, int to, int size) {
        try (EventStreamWriter<String> w = client.newWriter(stream.scope(), stream.name(), Serializers.utf8())) {
            for (int i = from; i < to; i++) {
                w.write("k", "event-" + i + "-" + "x".repeat(size));
            }
            w.flush();
        }
    }

    private static List<String> readAll(EmbeddedServer server, ScopedStream stream) {
        List<String> out = new ArrayList<>();
        try (Connection c = new TcpConnectionFactory().connect(server.segmentStoreEndpoint(), longWait())) {
            Flow f = c.openFlow();
            for (String name : server.segmentStore().segmentNames().stream().sorted().toList()) {
                if (!name.startsWith(stream.scopedName() + "/")) {
                    continue;
                }
                long offset = 0;
                long length = server.segmentStore().segmentInfo(name).orElseThrow().length();
                while (offset < length) {
                    long at = offset;
                    SegmentRead r = (SegmentRead) call(f, id -> new ReadSegment(name, at, 1 << 20, "", id));
                    offset += EventFrames.forEach(r.data(), e -> out.add(StandardCharsets.UTF_8.decode(e).toString()));
                }
            }
        }
        return out;
    }

    private static Reply call(Flow f, java.util.function.LongFunction<Request> request) {
        long id = f.nextRequestId();
        f.send(request.apply(id));
        Reply r = f.await(longWait());
        assertThat(r.requestId()).isEqualTo(id);
        return r;
    }

    private static Reply append(Connection c, Flow f, UUID writer, long eventNumber, String event) {
        WireOutput out = new WireOutput();
        long id = f.nextRequestId();
        AppendEncoder.writeBlock(out, writer, List.of(ByteBuffer.wrap(event.getBytes(StandardCharsets.UTF_8))),
                eventNumber, id);
        c.sendFrames(out.buffer());
        return f.await(longWait());
    }

    private static void assertEvents(List<String> events, int count) {
        assertThat(events).as("everything acknowledged, nothing else").hasSize(count);
        for (int i = 0; i < count; i++) {
            assertThat(events.get(i)).startsWith("event-" + i + "-");
        }
    }

    @Test
    void writesFailWithTheIoErrorWhileFsyncFailsAndSucceedOnceItWorksAndNothingAcknowledgedIsLost() throws Exception {
        FailingFsync disk = new FailingFsync();
        try (EmbeddedServer server = start(disk); SluiceClient client = SluiceClient.connect(server.controllerUri())) {
            createStream(client, STREAM);
            write(client, STREAM, 0, 50, 100);

            disk.fail(FailingFsyncServerTest::containerLog);
            assertThatThrownBy(() -> write(client, STREAM, 1000, 1010, 10)).isInstanceOf(SluiceException.class)
                    .hasMessageContaining(CANNOT_WRITE);
            assertThatThrownBy(() -> write(client, STREAM, 2000, 2001, 10)).as("still failing")
                    .isInstanceOf(SluiceException.class).hasMessageContaining(CANNOT_WRITE);
            assertThat(disk.failed()).isPositive();
            assertThat(disk.lostBytes()).as("the failed fsyncs lost bytes").isPositive();

            disk.heal();
            awaitWritable(server);
            write(client, STREAM, 50, 100, 100);
            assertEvents(readAll(server, STREAM), 100);
        }
        try (EmbeddedServer server = EmbeddedServer.builder().dataDir(dir).build()) {
            assertEvents(readAll(server, STREAM), 100);
        }
    }

    @Test
    void anAppendWhoseFsyncFailedOnceIsNeverAcknowledgedAndTheWriterSetsUpAgainToResendIt() throws Exception {
        FailingFsync disk = new FailingFsync();
        String seg = "fsync/raw/0.#epoch.0";
        UUID writer = UUID.randomUUID();
        try (EmbeddedServer server = start(disk);
             Connection c = new TcpConnectionFactory().connect(server.segmentStoreEndpoint(), longWait())) {
            Flow f = c.openFlow();
            assertThat(call(f, id -> new CreateSegment(id, seg, (byte) 0, 0, "", 0)))
                    .isInstanceOf(SegmentCreated.class);
            assertThat(call(f, id -> new SetupAppend(id, writer, seg, ""))).isInstanceOf(AppendSetup.class);
            assertThat(append(c, f, writer, 1, "e1")).isInstanceOf(DataAppended.class);

            // one failed fsync; the next would succeed, but the append it covered is lost all the same
            disk.failOnce(FailingFsyncServerTest::containerLog);
            assertThat(append(c, f, writer, 2, "e2")).isInstanceOfSatisfying(ErrorMessage.class,
                    e -> assertThat(e.message()).startsWith(CANNOT_WRITE));
            awaitWritable(server);
            assertThat(append(c, f, writer, 3, "e3")).as("event 2 was lost: 3 must not be acknowledged")
                    .isInstanceOfSatisfying(ErrorMessage.class,
                            e -> assertThat(e.message()).contains("set up the appends again"));

            AppendSetup again = (AppendSetup) call(f, id -> new SetupAppend(id, writer, seg, ""));
            assertThat(again.lastEventNumber()).as("the server knows only event 1").isEqualTo(1);
            assertThat(append(c, f, writer, 2, "e2")).isInstanceOf(DataAppended.class);
            assertThat(append(c, f, writer, 3, "e3")).isInstanceOf(DataAppended.class);
        }
        try (EmbeddedServer server = EmbeddedServer.builder().dataDir(dir).build();
             Connection c = new TcpConnectionFactory().connect(server.segmentStoreEndpoint(), longWait())) {
            Flow f = c.openFlow();
            SegmentRead read = (SegmentRead) call(f, id -> new ReadSegment(seg, 0, 1 << 20, "", id));
            List<String> events = new ArrayList<>();
            EventFrames.forEach(read.data(), e -> events.add(StandardCharsets.UTF_8.decode(e).toString()));
            assertThat(events).as("after a restart").containsExactly("e1", "e2", "e3");
        }
    }

    @Test
    void snapshotsWhoseFsyncFailsAreNotTakenWhileWritesGoOnAndAreTakenOnceFsyncWorks() throws Exception {
        FailingFsync disk = new FailingFsync();
        try (EmbeddedServer server = EmbeddedServer.builder().dataDir(dir).fsync(true).storageFiles(disk)
                .snapshotAfterBytes(64 * 1024).build();
             SluiceClient client = SluiceClient.connect(server.controllerUri())) {
            createStream(client, STREAM);
            disk.fail(p -> p.getFileName().toString().endsWith(".chunk") || p.toString().contains(".snap"));
            write(client, STREAM, 0, 300, 1000);
            awaitCondition("a snapshot's fsync failed", () -> disk.failed() > 0);
            write(client, STREAM, 300, 400, 1000);
            assertThat(snapshotsOf(dir)).as("no container snapshot was stored").isZero();

            disk.heal();
            write(client, STREAM, 400, 600, 1000);
            awaitCondition("a container snapshot was stored", () -> snapshotsOf(dir) > 0);
            assertEvents(readAll(server, STREAM), 600);
        }
        try (EmbeddedServer server = EmbeddedServer.builder().dataDir(dir).build()) {
            assertEvents(readAll(server, STREAM), 600);
        }
    }

    /**
     * Fsync failures at {@value #DEFAULT_FAULTS} points of a writer's run ({@code -Dsluice.reliability.full=true}:
     * {@value #FULL_FAULTS}): each time the writer's unacknowledged events fail with the I/O error, it is replaced by
     * a new writer that writes them again once the server writes again. After a restart on the same directory the
     * segment holds exactly the acknowledged events, each once, in the order they were acknowledged.
     */
    @Test
    void repeatedFsyncFailuresLoseNothingAcknowledgedAndDuplicateNothing() throws Exception {
        int faults = Boolean.getBoolean("sluice.reliability.full") ? FULL_FAULTS : DEFAULT_FAULTS;
        int batch = 40;
        FailingFsync disk = new FailingFsync();
        List<String> acknowledged = new ArrayList<>();
        int failedWrites = 0;
        int next = 0;
        try (EmbeddedServer server = start(disk); SluiceClient client = SluiceClient.connect(server.controllerUri())) {
            createStream(client, STREAM);
            java.util.ArrayDeque<String> toWrite = new java.util.ArrayDeque<>();
            java.util.Random random = new java.util.Random(faults);
            EventStreamWriter<String> writer = client.newWriter(STREAM.scope(), STREAM.name(), Serializers.utf8());
            try {
                for (int round = 0; round < faults * 2; round++) {
                    while (toWrite.size() < batch) {
                        toWrite.add("event-" + next++ + "-" + "x".repeat(random.nextInt(200)));
                    }
                    boolean fault = round % 2 == 1;
                    List<io.sluice.stream.WriteHandle> handles = new ArrayList<>();
                    List<String> sent = List.copyOf(toWrite);
                    boolean failed = false;
                    for (int i = 0; i < sent.size(); i++) {
                        if (fault && i == batch / 2) {
                            // a commit from here on fails once: the batch's later events are not acknowledged
                            disk.failOnce(FailingFsyncServerTest::containerLog);
                        }
                        try {
                            handles.add(writer.write("k", sent.get(i)));
                        } catch (SluiceException e) {
                            // the writer failed already: the rest of the batch waits for the next writer
                            assertThat(e).hasMessageContaining(CANNOT_WRITE);
                            failed = true;
                            break;
                        }
                    }
                    boolean lost = false;
                    for (int i = 0; i < handles.size(); i++) {
                        try {
                            handles.get(i).await(Duration.ofSeconds(30));
                            assertThat(lost).as("an event acknowledged after a lost one").isFalse();
                            acknowledged.add(toWrite.poll());
                        } catch (SluiceException e) {
                            assertThat(e).hasMessageContaining(CANNOT_WRITE);
                            lost = true;
                            failedWrites++;
                        }
                    }
                    if (failed || lost) {
                        closeFailed(writer);
                        awaitWritable(server);
                        writer = client.newWriter(STREAM.scope(), STREAM.name(), Serializers.utf8());
                    }
                }
            } finally {
                closeFailed(writer);
            }
            assertThat(readAll(server, STREAM)).containsExactlyElementsOf(acknowledged);
        }
        assertThat(disk.failed()).as("fsync failures injected").isEqualTo(faults);
        assertThat(failedWrites).as("writes that failed").isGreaterThanOrEqualTo(faults);
        try (EmbeddedServer server = EmbeddedServer.builder().dataDir(dir).build()) {
            assertThat(readAll(server, STREAM)).as("after a restart").containsExactlyElementsOf(acknowledged);
        }
        org.slf4j.LoggerFactory.getLogger(FailingFsyncServerTest.class).info(
                "{} fsync failures injected, {} events acknowledged and checked, {} writes failed", faults,
                acknowledged.size(), failedWrites);
    }

    /** Closes a writer that may have failed: its failure was seen on the events' handles. */
    private static void closeFailed(EventStreamWriter<String> writer) {
        try {
            writer.close();
        } catch (SluiceException e) {
            assertThat(e).hasMessageContaining(CANNOT_WRITE);
        }
    }

    /** Snapshot files of segment containers under {@code root}. */
    private static long snapshotsOf(Path root) {
        try (Stream<Path> files = Files.walk(root)) {
            return files.filter(p -> p.getFileName().toString().endsWith(".snap") && p.toString().contains("container"))
                    .count();
        } catch (IOException | UncheckedIOException e) {
            return 0;   // a file vanished while walking: look again
        }
    }

    /** Re-checks a condition that nothing signals (a background snapshot), yielding in between. */
    private static void awaitCondition(String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("timed out waiting until " + what);
            }
            Thread.yield();
        }
    }
}
