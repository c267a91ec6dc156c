package io.sluice.cli;

import java.util.LinkedHashMap;
import java.util.Map;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.concurrent.Callable;

import io.sluice.wire.AppendBlock;
import io.sluice.wire.Bytes;
import io.sluice.wire.EventFrames;
import io.sluice.wire.FrameCodec;
import io.sluice.wire.InvalidWireCommandException;
import io.sluice.wire.SegmentRead;
import io.sluice.wire.WireCommand;
import io.sluice.wire.WireCommandType;
import io.sluice.wire.WireProtocol;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/** {@code sluice wire ...}: tools for Pravega's segment-store wire protocol. */
@Command(name = "wire", mixinStandardHelpOptions = true,
        description = "Tools for Pravega's segment-store wire protocol (WIRE_VERSION " + WireProtocol.WIRE_VERSION + ").",
        subcommands = {WireTool.Decode.class})
final class WireTool implements Runnable {
    @Spec
    private CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    /** {@code sluice wire decode FILE}. */
    @Command(name = "decode", mixinStandardHelpOptions = true,
            description = {
                "Prints every frame of a raw byte stream of the segment-store protocol, one line per command.",
                "FILE holds the bytes one side sent on one connection (e.g. a TCP stream saved from Wireshark,",
                "or src/test/resources/captures/raw/conn04-client-6000-c2s.bin). Events nested in AppendBlock",
                "and SegmentRead data are summarised; --events lists them.",
                "Exit status: 0 if every byte decoded, 1 if the file ends inside a frame or cannot be read,",
                "2 on a malformed frame (the line says what is wrong and where)."})
    static final class Decode implements Callable<Integer> {
        @Spec
        private CommandSpec spec;

        @Parameters(paramLabel = "FILE", description = "raw bytes of one direction of one connection")
        private Path file;

        @Option(names = "--events", description = "also print one line per nested event, with a text preview")
        private boolean events;

        @Option(names = "--json", description = "one JSON object per line: a frame {\"offset\",\"type\",\"name\","
                + "\"command\"[,\"events\"]}, then {\"frames\",\"bytes\"}, or {\"error\":{...}}")
        private boolean json;

        @Override
        public Integer call() {
            PrintWriter out = spec.commandLine().getOut();
            PrintWriter err = spec.commandLine().getErr();
            byte[] bytes;
            try {
                bytes = Files.readAllBytes(file);
            } catch (NoSuchFileException e) {
                return failed(out, err, 1, -1, "not-found", "no such file: " + file);
            } catch (IOException e) {
                return failed(out, err, 1, -1, "failed", "cannot read " + file + ": " + e.getMessage());
            }
            ByteBuffer in = ByteBuffer.wrap(bytes);
            int frames = 0;
            while (in.hasRemaining()) {
                int offset = in.position();
                WireCommand command;
                try {
                    command = FrameCodec.decode(in);
                } catch (InvalidWireCommandException e) {
                    return failed(out, err, 2, offset, "malformed", "malformed frame: " + e.getMessage());
                }
                if (command == null) {
                    return failed(out, err, 1, offset, "truncated", "the file ends inside a frame ("
                            + in.remaining() + " bytes left)");
                }
                frames++;
                if (json) {
                    out.println(JsonWriter.write(frameJson(offset, command)));
                    continue;
                }
                out.println("@" + offset + " [" + command.type().code() + "] " + describe(command));
                if (events) {
                    printEvents(out, command);
                }
            }
            if (json) {
                Map<String, Object> end = new LinkedHashMap<>();
                end.put("frames", frames);
                end.put("bytes", bytes.length);
                out.println(JsonWriter.write(end));
            } else {
                out.println(frames + " frames, " + bytes.length + " bytes");
            }
            return 0;
        }

        /** Reports a failure: a line on standard error, and with --json the error object on standard output. */
        private int failed(PrintWriter out, PrintWriter err, int status, int offset, String code, String message) {
            String where = offset < 0 ? "sluice wire decode: " : "@" + offset + " ";
            if (json) {
                Map<String, Object> error = new LinkedHashMap<>();
                error.put("code", code);
                error.put("message", message);
                if (offset >= 0) {
                    error.put("offset", offset);
                }
                out.println(JsonWriter.write(Map.of("error", error)));
            }
            out.flush();
            err.println(where + message);
            return status;
        }

        private static Map<String, Object> frameJson(int offset, WireCommand command) {
            Map<String, Object> frame = new LinkedHashMap<>();
            frame.put("offset", offset);
            frame.put("type", command.type().code());
            frame.put("name", command.type().name());
            frame.put("command", describe(command));
            ByteBuffer data = switch (command) {
                case AppendBlock b -> b.data();
                case SegmentRead r -> r.data();
                default -> null;
            };
            if (data != null) {
                int[] count = new int[1];
                try {
                    EventFrames.forEachLeading(data, e -> count[0]++);
                    frame.put("events", count[0]);
                } catch (InvalidWireCommandException e) {
                    frame.put("events", null);
                }
            }
            return frame;
        }

        private static String describe(WireCommand command) {
            return switch (command) {
                case AppendBlock b -> b + " = " + summarise(b.data(), true);
                case SegmentRead r -> r + " = " + summarise(r.data(), false);
                default -> command.toString();
            };
        }

        /** Describes event frames, plus what ends an append block or a cut-off event at the end of a read. */
        private static String summarise(ByteBuffer data, boolean appendBlock) {
            int[] count = new int[1];
            int consumed;
            try {
                consumed = EventFrames.forEachLeading(data, e -> count[0]++);
            } catch (InvalidWireCommandException e) {
                return "not event frames (" + e.getMessage() + ")";
            }
            StringBuilder sb = new StringBuilder().append(count[0]).append(count[0] == 1 ? " event" : " events")
                    .append(" (").append(consumed).append(" bytes)");
            int rest = data.remaining() - consumed;
            if (rest > 0) {
                int type = rest >= 4 ? data.getInt(data.position() + consumed) : Integer.MIN_VALUE;
                if (appendBlock && type == WireCommandType.PADDING.code()) {
                    sb.append(" + PADDING (").append(rest).append(" bytes)");
                } else if (appendBlock && type == WireCommandType.PARTIAL_EVENT.code()) {
                    sb.append(" + PARTIAL_EVENT (").append(rest).append(" bytes)");
                } else {
                    sb.append(" + ").append(rest).append(" bytes of a cut-off event");
                }
            }
            return sb.toString();
        }

        private static void printEvents(PrintWriter out, WireCommand command) {
            ByteBuffer data = switch (command) {
                case AppendBlock b -> b.data();
                case SegmentRead r -> r.data();
                default -> null;
            };
            if (data == null) {
                return;
            }
            try {
                EventFrames.forEachLeading(data, e -> out.println("    event " + Bytes.describe(e) + ": " + preview(e)));
            } catch (InvalidWireCommandException e) {
                out.println("    (not event frames: " + e.getMessage() + ")");
            }
        }

        private static String preview(ByteBuffer event) {
            byte[] head = new byte[Math.min(60, event.remaining())];
            event.get(event.position(), head);
            StringBuilder sb = new StringBuilder("\"");
            for (char c : new String(head, StandardCharsets.ISO_8859_1).toCharArray()) {
                sb.append(c >= 0x20 && c < 0x7F ? c : '.');
            }
            return sb.append(head.length < event.remaining() ? "...\"" : "\"").toString();
        }
    }
}
