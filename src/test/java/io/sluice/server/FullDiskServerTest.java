package io.sluice.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;

import io.sluice.cli.Main;
import io.sluice.client.ClientInternals;
import io.sluice.client.SluiceClient;
import io.sluice.common.Deadline;
import io.sluice.connection.Connection;
import io.sluice.connection.Flow;
import io.sluice.connection.TcpConnectionFactory;
import io.sluice.errors.SluiceException;
import io.sluice.storage.FullDisk;
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
 * The durable server on a disk that fills up ({@link FullDisk}) and frees again: changes get an error reply saying
 * the segment store cannot write (the connection stays open and reads keep working), the server writes again once
 * the disk has room without a restart, nothing acknowledged is lost, a writer's appends never skip a lost one, and
 * deleting a stream deletes its files.
 */
@Timeout(120)
class FullDiskServerTest {
    private static final ScopedStream STREAM = ScopedStream.of("disk", "events");
    private static final String CANNOT_WRITE = "the segment store cannot write: no space left on device";

    @TempDir
    Path dir;

    private static Deadline longWait() {
        return Deadline.after(Duration.ofSeconds(30));
    }

    private EmbeddedServer start(FullDisk disk) {
        return EmbeddedServer.builder().dataDir(dir).fsync(false).storageFiles(disk).build();
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

    /** Runs {@code sluice write} with {@code stdin}; returns the exit status and what it printed to stderr. */
    private static String[] cliWrite(EmbeddedServer server, String stdin) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int status = Main.run(new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)), new PrintWriter(out),
                new PrintWriter(err), "write", "--controller", server.controllerUri(), "--key", "k",
                STREAM.scopedName());
        return new String[] {String.valueOf(status), err.toString()};
    }

    @Test
    void changesFailWithAClearErrorWhileTheDiskIsFullAndSucceedOnceItHasRoomWithoutARestart() throws Exception {
        FullDisk disk = new FullDisk();
        String segment;
        try (EmbeddedServer server = start(disk); SluiceClient client = SluiceClient.connect(server.controllerUri());
             ExecutorService background = Executors.newVirtualThreadPerTaskExecutor()) {
            createStream(client, STREAM);
            write(client, STREAM, 0, 50, 100);
            segment = server.segmentStore().segmentNames().stream()
                    .filter(n -> n.startsWith(STREAM.scopedName() + "/")).findFirst().orElseThrow();

            disk.fill();
            String[] cli = cliWrite(server, "lost 1\nlost 2\n");
            assertThat(cli[0]).as("exit status").isEqualTo("1");
            assertThat(cli[1].strip()).as("one line naming the cause").contains(CANNOT_WRITE).doesNotContain("\n");
            assertThatThrownBy(() -> write(client, STREAM, 1000, 1001, 10)).isInstanceOf(SluiceException.class)
                    .hasMessageContaining(CANNOT_WRITE);
            try (Connection c = new TcpConnectionFactory().connect(server.segmentStoreEndpoint(), longWait())) {
                Flow f = c.openFlow();
                Reply refused = call(f, id -> new CreateSegment(id, "disk/other/0.#epoch.0", (byte) 0, 0, "", 0));
                assertThat(refused).isInstanceOf(ErrorMessage.class);
                assertThat(((ErrorMessage) refused).message()).startsWith(CANNOT_WRITE);
                // the same connection still reads what is durable
                SegmentRead read = (SegmentRead) call(f, id -> new ReadSegment(segment, 0, 1 << 20, "", id));
                assertThat(read.data().remaining()).isPositive();
            }
            assertThat(disk.refused()).isPositive();
            // a stream created now: the controller cannot log it, and the client retries (the error is retriable)
            CompletableFuture<Boolean> during = CompletableFuture.supplyAsync(() -> client.streamManager()
                    .createStream(STREAM.scope(), "during", StreamConfiguration.builder()
                            .scalingPolicy(ScalingPolicy.fixed(1)).build()), background);
            awaitCondition("the controller's log was refused", () -> disk.refusedFileContaining("controller"));

            disk.free();
            awaitWritable(server);
            write(client, STREAM, 50, 100, 100);
            assertThat(cliWrite(server, "after 1\n")[0]).as("the CLI writes again").isEqualTo("0");
            // the stream created while the disk was full is created once the controller can log it
            assertThat(during.get(60, TimeUnit.SECONDS)).isTrue();
            write(client, ScopedStream.of("disk", "during"), 0, 1, 1);
            createStream(client, ScopedStream.of("disk", "later"));
            write(client, ScopedStream.of("disk", "later"), 0, 1, 1);
        }
        try (EmbeddedServer server = EmbeddedServer.builder().dataDir(dir).build()) {
            List<String> events = readAll(server, STREAM);
            assertThat(events).as("everything acknowledged, nothing else").hasSize(101);
            for (int i = 0; i < 100; i++) {
                assertThat(events.get(i)).startsWith("event-" + i + "-");
            }
            assertThat(events.get(100)).isEqualTo("after 1");
        }
    }

    @Test
    void aWriterWhoseAppendWasLostGetsNoLaterAppendAcceptedUntilItSetsUpAgain() throws Exception {
        FullDisk disk = new FullDisk();
        String seg = "disk/raw/0.#epoch.0";
        UUID writer = UUID.randomUUID();
        try (EmbeddedServer server = start(disk);
             Connection c = new TcpConnectionFactory().connect(server.segmentStoreEndpoint(), longWait())) {
            Flow f = c.openFlow();
            assertThat(call(f, id -> new CreateSegment(id, seg, (byte) 0, 0, "", 0)))
                    .isInstanceOf(SegmentCreated.class);
            assertThat(call(f, id -> new SetupAppend(id, writer, seg, ""))).isInstanceOf(AppendSetup.class);
            assertThat(append(c, f, writer, 1, "e1")).isInstanceOf(DataAppended.class);

            disk.fill();
            assertThat(append(c, f, writer, 2, "e2")).isInstanceOfSatisfying(ErrorMessage.class,
                    e -> assertThat(e.message()).startsWith(CANNOT_WRITE));
            disk.free();
            awaitWritable(server);
            assertThat(append(c, f, writer, 3, "e3")).as("event 2 was lost: 3 must not be acknowledged")
                    .isInstanceOfSatisfying(ErrorMessage.class,
                            e -> assertThat(e.message()).contains("set up the appends again"));

            AppendSetup again = (AppendSetup) call(f, id -> new SetupAppend(id, writer, seg, ""));
            assertThat(again.lastEventNumber()).isEqualTo(1);
            assertThat(append(c, f, writer, 2, "e2")).isInstanceOf(DataAppended.class);
            assertThat(append(c, f, writer, 3, "e3")).isInstanceOf(DataAppended.class);
            SegmentRead read = (SegmentRead) call(f, id -> new ReadSegment(seg, 0, 1 << 20, "", id));
            List<String> events = new ArrayList<>();
            EventFrames.forEach(read.data(), e -> events.add(StandardCharsets.UTF_8.decode(e).toString()));
            assertThat(events).containsExactly("e1", "e2", "e3");
        }
    }

    private static Reply append(Connection c, Flow f, UUID writer, long eventNumber, String event) {
        WireOutput out = new WireOutput();
        long id = f.nextRequestId();
        AppendEncoder.writeBlock(out, writer, List.of(ByteBuffer.wrap(event.getBytes(StandardCharsets.UTF_8))),
                eventNumber, id);
        c.sendFrames(out.buffer());
        return f.await(longWait());
    }

    @Test
    void deletingAStreamDeletesItsChunkFilesAndTheLogsHoldingItsData() throws Exception {
        ScopedStream big = ScopedStream.of("disk", "big");
        try (EmbeddedServer server = EmbeddedServer.builder().dataDir(dir).fsync(false)
                .snapshotAfterBytes(256 * 1024).build();
             SluiceClient client = SluiceClient.connect(server.controllerUri())) {
            createStream(client, big);
            write(client, big, 0, 2000, 1000);
            // snapshots (after every 256 KiB of log) move the data to chunk files in the background
            awaitCondition("a snapshot wrote chunk files", () -> bytesUnder(dir.resolve("chunks")) > 0);
            long before = bytesUnder(dir);
            client.streamManager().sealStream(big.scope(), big.name());
            assertThat(client.streamManager().deleteStream(big.scope(), big.name())).isTrue();
            awaitCondition("the deleted stream's files are gone", () -> bytesUnder(dir.resolve("chunks")) < 64 * 1024
                    && bytesUnder(dir) < before / 4);
        }
    }

    private static long bytesUnder(Path root) {
        if (!Files.exists(root)) {
            return 0;
        }
        try (Stream<Path> files = Files.walk(root)) {
            return files.filter(Files::isRegularFile).mapToLong(p -> {
                try {
                    return Files.size(p);
                } catch (IOException e) {
                    return 0;   // deleted meanwhile
                }
            }).sum();
        } catch (IOException | UncheckedIOException e) {
            return Long.MAX_VALUE;   // a directory vanished while walking: look again
        }
    }

    /** Re-checks a condition that nothing signals (files deleted by a background snapshot), yielding in between. */
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
