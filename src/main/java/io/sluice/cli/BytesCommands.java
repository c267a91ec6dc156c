package io.sluice.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.Map;

import io.sluice.bytestream.ByteStreamReader;
import io.sluice.bytestream.ByteStreamWriter;
import io.sluice.client.SluiceClient;
import io.sluice.errors.SluiceException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code sluice bytes cat|write}: byte streams from the command line, standard input appended to one, and one
 * printed to standard output, byte for byte. Has no behaviour of its own: without a subcommand it is a usage error.
 */
@Command(name = "bytes", mixinStandardHelpOptions = true,
        description = "Append standard input to a byte stream, or print a byte stream to standard output.",
        subcommands = {BytesCommands.Cat.class, BytesCommands.Write.class})
final class BytesCommands {
    /** How much one read or write moves at most. */
    private static final int CHUNK = 64 * 1024;

    private BytesCommands() {
    }

    /** {@code sluice bytes cat SCOPE/STREAM [--from OFFSET] [--follow]}. */
    @Command(name = "cat", mixinStandardHelpOptions = true, sortOptions = false,
            description = {"Prints a byte stream's bytes to standard output, as they are (no line ends added).",
                "From --from (default: the stream's head) to the tail as it is when the command starts; with "
                    + "--follow it then waits for new bytes until interrupted (Ctrl-C).",
                "--json does not apply: the output is the stream's bytes."},
            footer = Main.EXIT_STATUS)
    static final class Cat extends EventCommands.EventCommand {
        @Option(names = "--from", paramLabel = "OFFSET", description = "the offset to start at (default: the head)")
        Long from;

        @Option(names = {"-f", "--follow"}, description = "keep waiting for new bytes until interrupted")
        boolean follow;

        @Override
        void validate() {
            if (options.json) {
                throw new IllegalArgumentException("--json does not apply to 'bytes cat': it prints the stream's "
                        + "bytes");
            }
            if (from != null && from < 0) {
                throw new IllegalArgumentException("--from must not be negative, got " + from);
            }
        }

        @Override
        Result execute(SluiceClient client) {
            Main main = (Main) spec.root().userObject();
            OutputStream out = main.stdout();
            spec.commandLine().getOut().flush();
            try (ByteStreamReader in = client.newByteStreamReader(stream.scope(), stream.name())) {
                if (from != null) {
                    if (from < in.headOffset() || from > in.tailOffset()) {
                        throw new IllegalArgumentException("--from " + from + " is outside the stream's bytes ("
                                + in.headOffset() + " to " + in.tailOffset() + ")");
                    }
                    in.seekToOffset(from);
                } else if (in.offset() < in.headOffset()) {
                    in.seekToOffset(in.headOffset());
                }
                long end = in.tailOffset();
                byte[] buffer = new byte[CHUNK];
                while (follow || in.offset() < end) {
                    int want = follow ? buffer.length : (int) Math.min(buffer.length, end - in.offset());
                    int n = in.read(buffer, 0, want);
                    if (n < 0) {
                        break; // sealed and read to the end
                    }
                    out.write(buffer, 0, n);
                    if (follow || in.available() == 0) {
                        out.flush();
                    }
                }
                out.flush();
            } catch (IOException e) {
                throw new UncheckedIOException("cannot write to standard output: " + e.getMessage(), e);
            }
            return Result.printed();
        }
    }

    /** {@code sluice bytes write SCOPE/STREAM}. */
    @Command(name = "write", mixinStandardHelpOptions = true, sortOptions = false,
            description = {"Appends standard input to a byte stream, byte for byte, until the end of the input, and "
                    + "prints how many bytes it appended once all of them are durable."},
            footer = Main.EXIT_STATUS)
    static final class Write extends EventCommands.EventCommand {
        @Override
        Result execute(SluiceClient client) {
            Main main = (Main) spec.root().userObject();
            InputStream in = main.stdin(); // not closed: it is the process's standard input
            long written = 0;
            try (ByteStreamWriter out = client.newByteStreamWriter(stream.scope(), stream.name(),
                    ControllerOptions.writerConfig(options.timeout))) {
                byte[] buffer = new byte[CHUNK];
                for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
                    out.write(buffer, 0, n);
                    written += n;
                }
                try {
                    out.flush();
                } catch (SluiceException e) {
                    throw new SluiceException("not all of the " + written + " bytes were written: "
                            + e.getMessage(), e);
                }
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read standard input after " + written + " bytes: "
                        + e.getMessage(), e);
            }
            Map<String, Object> json = new LinkedHashMap<>();
            json.put("stream", stream.scopedName());
            json.put("written", written);
            return Result.of(json, written + (written == 1 ? " byte" : " bytes") + " written to " + stream);
        }
    }
}
