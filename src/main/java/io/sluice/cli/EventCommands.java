package io.sluice.cli;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.sluice.admin.ReaderGroup;
import io.sluice.admin.ReaderGroupManager;
import io.sluice.admin.StreamInfo;
import io.sluice.client.SluiceClient;
import io.sluice.common.Deadline;
import io.sluice.errors.AuthorizationException;
import io.sluice.errors.NoSuchStreamException;
import io.sluice.errors.PreconditionFailedException;
import io.sluice.errors.SluiceException;
import io.sluice.stream.EventRead;
import io.sluice.stream.EventStreamReader;
import io.sluice.stream.EventStreamWriter;
import io.sluice.stream.Names;
import io.sluice.stream.ReaderGroupConfig;
import io.sluice.stream.ScopedStream;
import io.sluice.stream.Serializers;
import io.sluice.stream.StreamCut;
import picocli.CommandLine.Command;
import picocli.CommandLine.IDefaultValueProvider;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code sluice write} and {@code sluice read}: events from standard input to a stream, and back. */
final class EventCommands {

    private EventCommands() {
    }

    /** A command about the events of one stream; reports a missing stream of a missing scope as the missing scope. */
    abstract static class EventCommand extends ClientCommand {
        @Parameters(index = "0", paramLabel = "SCOPE/STREAM", converter = StreamCommands.StreamConverter.class,
                description = "the stream, e.g. examples/orders")
        ScopedStream stream;

        @Override
        RuntimeException refine(RuntimeException failure, SluiceClient client) {
            return StreamCommands.missingScope(failure, stream, client.streamManager()::scopeExists);
        }
    }

    /** {@code sluice write SCOPE/STREAM [--key K]}. */
    @Command(name = "write", mixinStandardHelpOptions = true, sortOptions = false,
            description = {"Writes the lines of standard input to a stream, one event per line (UTF-8, without the "
                    + "line end), until the end of the input (Ctrl-D on a terminal).",
                "Events with the same --key are read in the order they were written; without --key the events are "
                    + "spread over the stream's segments and may be read in another order.",
                "Writes are pipelined; at the end of the input the writer flushes, and the command prints how many "
                    + "events it wrote once all of them are durable."},
            footer = Main.EXIT_STATUS)
    static final class Write extends EventCommand {
        @Option(names = "--key", paramLabel = "K", description = "the routing key of every event (default: none)")
        String key;

        @Override
        Result execute(SluiceClient client) {
            Main main = (Main) spec.root().userObject();
            // not closed: closing it would close the process's standard input
            BufferedReader in = new BufferedReader(new InputStreamReader(main.stdin(), StandardCharsets.UTF_8));
            long written = 0;
            try (EventStreamWriter<String> writer = client.newWriter(stream.scope(), stream.name(),
                    Serializers.utf8(), ControllerOptions.writerConfig(options.timeout))) {
                for (String line = in.readLine(); line != null; line = in.readLine()) {
                    try {
                        writer.write(key, line);
                    } catch (SluiceException | IllegalArgumentException e) {
                        throw new SluiceException("cannot write line " + (written + 1) + ": " + e.getMessage(), e);
                    }
                    written++;
                }
                try {
                    writer.flush();
                } catch (SluiceException e) {
                    throw new SluiceException("not all of the " + written + " events were written: "
                            + e.getMessage(), e);
                }
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read standard input after " + written + " lines: "
                        + e.getMessage(), e);
            }
            Map<String, Object> json = new LinkedHashMap<>();
            json.put("stream", stream.scopedName());
            json.put("written", written);
            return Result.of(json, written + (written == 1 ? " event" : " events") + " written to " + stream);
        }
    }

    /** {@code sluice read SCOPE/STREAM [--group G] [--from head|tail] [--max N] [--follow]}. */
    @Command(name = "read", mixinStandardHelpOptions = true, sortOptions = false,
            defaultValueProvider = Read.Defaults.class,
            description = {"Prints the events of a stream as UTF-8 text, one event per line.",
                "Without --group the command reads through a temporary reader group of its own, which it deletes "
                    + "when it exits. With --group it reads as a member of that reader group: the group is created "
                    + "if missing (starting at --from) and kept, so the next 'read --group' continues where this one "
                    + "stopped; several at once share the stream's segments.",
                "When to stop: after --max events; when the stream is sealed and everything is read; and, unless "
                    + "--follow is given, once no new event has arrived for --timeout (default 5s here): after the "
                    + "last event, or after joining the group if there is none. With --follow the command waits for "
                    + "new events until interrupted (Ctrl-C), and still leaves its group cleanly.",
                "--json prints one JSON object per event and line: {\"event\":\"TEXT\",\"pointer\":\"SEGMENT:OFFSET-LENGTH\"}."},
            footer = Main.EXIT_STATUS)
    static final class Read extends EventCommand {
        /** How long one wait for an event lasts before the loop looks at the clock and the stop flag. */
        private static final Duration POLL = Duration.ofMillis(200);
        /** How long an interrupted command (Ctrl-C) may take to leave its group and delete a temporary one. */
        private static final long STOP_SECONDS = 5;

        @Option(names = "--group", paramLabel = "G",
                description = "read as a member of reader group G (created if missing, kept at exit)")
        String group;

        @Option(names = "--from", paramLabel = "head|tail",
                description = "where a new reader group starts: head (everything in the stream; the default) or "
                        + "tail (only events written from now on). An existing group continues where it stopped.")
        String from;

        @Option(names = "--max", paramLabel = "N", description = "stop after N events")
        Long max;

        @Option(names = {"-f", "--follow"}, description = "keep waiting for new events until interrupted or --max")
        boolean follow;

        /** Gives {@code read} a shorter {@code --timeout} than the other commands: it is also the idle timeout. */
        static final class Defaults implements IDefaultValueProvider {
            @Override
            public String defaultValue(ArgSpec argSpec) {
                return argSpec instanceof OptionSpec o && o.longestName().equals("--timeout") ? "5s" : null;
            }
        }

        /**
         * Says what a refused read needs: a reader group's readers ask the controller for the stream's segments with a
         * delegation token, which the controller (the embedded one as Pravega's) gives only to users who may update
         * the stream; the group itself needs only READ on the scope.
         */
        @Override
        RuntimeException refine(RuntimeException failure, SluiceClient client) {
            if (!(failure instanceof AuthorizationException)) {
                return super.refine(failure, client);
            }
            return new AuthorizationException(failure.getMessage() + "; 'read' reads through a reader group, whose "
                    + "readers take the segments of " + stream + " with a delegation token, which needs READ_UPDATE "
                    + "on " + stream + ": grant e.g. " + stream.scope() + "/*=READ_UPDATE (README: 'Rights each "
                    + "command needs')", failure);
        }

        @Override
        void validate() {
            if (from != null && !from.equals("head") && !from.equals("tail")) {
                throw new IllegalArgumentException("--from must be head or tail, but is '" + from + "'");
            }
            if (max != null && max < 1) {
                throw new IllegalArgumentException("--max must be at least 1, but is " + max);
            }
            if (group != null) {
                Names.validateReaderGroup(group);
            }
        }

        @Override
        Result execute(SluiceClient client) {
            ReaderGroupManager groups = client.readerGroupManager(stream.scope());
            String name = group != null ? group : "sluice-read-" + BenchCommand.randomSuffix();
            if (group == null || !joinExisting(groups)) {
                groups.createReaderGroup(name, ReaderGroupConfig.builder().stream(stream, start(client))
                        .disableAutomaticCheckpoints().build()).close();
            }
            AtomicBoolean stop = new AtomicBoolean();
            CountDownLatch stopped = new CountDownLatch(1);
            // Ctrl-C: end the loop, then leave the group (and delete a temporary one) before the JVM exits
            Thread hook = new Thread(() -> {
                stop.set(true);
                try {
                    stopped.await(STOP_SECONDS, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "sluice-read-stop");
            Runtime.getRuntime().addShutdownHook(hook);
            try {
                try (EventStreamReader<ByteBuffer> reader = client.newReader(stream.scope(), name,
                        "sluice-read-" + BenchCommand.randomSuffix(), Serializers.byteBuffer(),
                        ControllerOptions.readerConfig(options.timeout))) {
                    print(reader, stop);
                } finally {
                    if (group == null) {
                        deleteTemporary(groups, name);
                    }
                }
            } finally {
                stopped.countDown();
                try {
                    Runtime.getRuntime().removeShutdownHook(hook);
                } catch (IllegalStateException e) {
                    // the JVM is shutting down: the hook is running and has just been released
                }
            }
            return Result.printed();
        }

        /** Deletes the temporary group; a failure is only a warning (it would hide what happened before). */
        private void deleteTemporary(ReaderGroupManager groups, String name) {
            try {
                groups.deleteReaderGroup(name);
            } catch (RuntimeException e) {
                PrintWriter err = spec.commandLine().getErr();
                err.println(spec.qualifiedName() + ": cannot delete the temporary reader group '" + name + "' of "
                        + stream.scope() + ": " + e.getMessage());
                err.flush();
            }
        }

        /**
         * @return true if the group exists (and reads this stream); false if it must be created
         * @throws IllegalArgumentException if the group exists but does not read this stream
         */
        private boolean joinExisting(ReaderGroupManager groups) {
            try (ReaderGroup existing = groups.readerGroup(group)) {
                if (!existing.config().startingStreamCuts().containsKey(stream)) {
                    throw new IllegalArgumentException("reader group '" + group + "' does not read " + stream
                            + " (it reads " + existing.config().startingStreamCuts().keySet() + ")");
                }
            } catch (NoSuchStreamException e) {
                return false;
            }
            if (from != null) {
                PrintWriter err = spec.commandLine().getErr();
                err.println(spec.qualifiedName() + ": reader group '" + group + "' exists: continuing where it "
                        + "stopped (--from applies to a new group)");
                err.flush();
            }
            return true;
        }

        /** @return where a new group starts: the head, or the stream's current tail */
        private StreamCut start(SluiceClient client) {
            if (!"tail".equals(from)) {
                return StreamCut.UNBOUNDED;
            }
            StreamInfo info = client.streamManager().streamInfo(stream.scope(), stream.name());
            if (info.sealed()) {
                throw new PreconditionFailedException("stream '" + stream + "' is sealed: no new events will come "
                        + "(read what it holds with --from head)");
            }
            return info.tail();
        }

        /** Prints events until --max, the end of a sealed stream, the idle timeout, or {@code stop}. */
        private void print(EventStreamReader<ByteBuffer> reader, AtomicBoolean stop) {
            PrintWriter out = spec.commandLine().getOut();
            long count = 0;
            Deadline idle = Deadline.after(options.timeout);
            while ((max == null || count < max) && !stop.get()) {
                EventRead<ByteBuffer> read = reader.readNextEvent(Duration.ZERO);
                if (!read.hasEvent() && !read.readCompleted()) {
                    out.flush(); // nothing more at hand: show what was read before waiting
                    Duration remaining = idle.remaining();
                    read = reader.readNextEvent(follow || remaining.compareTo(POLL) > 0 ? POLL : remaining);
                }
                if (read.hasEvent()) {
                    String text = StandardCharsets.UTF_8.decode(read.event()).toString();
                    if (options.json) {
                        Map<String, Object> json = new LinkedHashMap<>();
                        json.put("event", text);
                        json.put("pointer", read.pointer().toString());
                        out.println(JsonWriter.write(json));
                    } else {
                        out.println(text);
                    }
                    count++;
                    idle = Deadline.after(options.timeout);
                } else if (read.readCompleted() || (!follow && idle.expired())) {
                    break;
                }
            }
            out.flush();
        }
    }
}
