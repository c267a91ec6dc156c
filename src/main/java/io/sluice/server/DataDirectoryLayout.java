package io.sluice.server;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The layout file of a data directory ({@value #FILE_NAME}): the record format version the directory was written
 * with and its number of segment containers, as {@code key=value} lines:
 *
 * <pre>
 * format=2
 * containers=4
 * </pre>
 *
 * A directory is opened only if both match the server's. A layout file without a {@code format} line (and a
 * directory with data but no layout file) is record format 1, the unversioned format of servers that logged whole
 * wire frames. Nothing converts an old directory: the server refuses it, naming the directory, the version found
 * and the version it reads, and leaves it untouched.
 */
final class DataDirectoryLayout {
    /** The layout file's name, in the data directory. */
    static final String FILE_NAME = "sluice-layout.properties";
    /** The format of a directory whose layout file has no {@code format} line. */
    static final int UNVERSIONED = 1;
    private static final String FORMAT = "format";
    private static final String CONTAINERS = "containers";

    private DataDirectoryLayout() {
    }

    /**
     * Checks the layout of {@code dir} against this server's, or writes it into a directory without data.
     *
     * @param dir the data directory (exists)
     * @param containers the server's number of segment containers
     * @throws IllegalStateException if the directory was written with another record format or another number of
     *     containers (the message says what was found and what to do)
     * @throws IOException if the layout file cannot be read or written
     */
    static void check(Path dir, int containers) throws IOException {
        Path file = dir.resolve(FILE_NAME);
        if (!Files.exists(file)) {
            if (hasData(dir)) {
                throw wrongFormat(dir, UNVERSIONED);
            }
            write(file, containers);
            return;
        }
        Map<String, String> layout = parse(Files.readString(file, StandardCharsets.UTF_8));
        int format = layout.containsKey(FORMAT) ? parseInt(dir, FORMAT, layout.get(FORMAT)) : UNVERSIONED;
        if (format != ContainerOp.FORMAT_VERSION) {
            throw wrongFormat(dir, format);
        }
        String found = layout.get(CONTAINERS);
        if (found == null || parseInt(dir, CONTAINERS, found) != containers) {
            throw new IllegalStateException("data directory " + dir + " was created with containers=" + found
                    + "; start the server with the same number of containers");
        }
    }

    /** @return the file's {@code key=value} lines (blank lines and {@code #} comments skipped) */
    static Map<String, String> parse(String text) {
        Map<String, String> out = new LinkedHashMap<>();
        for (String line : text.split("\n")) {
            String l = line.strip();
            int eq = l.indexOf('=');
            if (l.isEmpty() || l.startsWith("#") || eq < 0) {
                continue;
            }
            out.put(l.substring(0, eq).strip(), l.substring(eq + 1).strip());
        }
        return out;
    }

    private static int parseInt(Path dir, String key, String value) {
        try {
            return Integer.parseInt(value);
        } catch (NumberFormatException e) {
            throw new IllegalStateException("data directory " + dir + " has a damaged " + FILE_NAME + ": " + key + "="
                    + value + " is not a number");
        }
    }

    private static IllegalStateException wrongFormat(Path dir, int found) {
        String which = found == UNVERSIONED ? " (unversioned: a server that logged whole wire frames)"
                : found > ContainerOp.FORMAT_VERSION ? " (written by a newer server)" : "";
        return new IllegalStateException("data directory " + dir + " was written in record format version " + found
                + which + "; this server reads record format version " + ContainerOp.FORMAT_VERSION
                + " only: start it on an empty data directory (the old one is left as it is)");
    }

    /** @return whether the directory holds storage written before (resources or chunks) */
    private static boolean hasData(Path dir) throws IOException {
        for (String sub : new String[] {"resources", "chunks"}) {
            Path p = dir.resolve(sub);
            if (Files.isDirectory(p)) {
                try (Stream<Path> entries = Files.list(p)) {
                    if (entries.findAny().isPresent()) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    /** Writes the layout to a temporary file and moves it in place, so a crash never leaves half a layout. */
    private static void write(Path file, int containers) throws IOException {
        Path tmp = file.resolveSibling(FILE_NAME + ".tmp");
        Files.writeString(tmp, FORMAT + "=" + ContainerOp.FORMAT_VERSION + "\n" + CONTAINERS + "=" + containers + "\n",
                StandardCharsets.UTF_8);
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }
}
