package io.sluice.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code sluice server} on a data directory of another record format: one line naming the directory, the version
 * found and the version the server reads (exit status 1); the stack trace only with {@code --verbose}.
 */
@Timeout(60)
class OldDataDirectoryCommandTest {
    @TempDir
    Path dir;

    private static String[] run(String... extra) {
        String[] args = new String[3 + extra.length];
        args[0] = "server";
        args[1] = "--controller-port=0";
        args[2] = "--segment-store-port=0";
        System.arraycopy(extra, 0, args, 3, extra.length);
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        Main main = new Main(ControllerClientFactory.GRPC, Map.<String, String>of()::get,
                new ByteArrayInputStream(new byte[0]));
        int status = Main.run(main, new PrintWriter(out), new PrintWriter(err), args);
        return new String[] {String.valueOf(status), err.toString()};
    }

    @Test
    void anUnversionedDirectoryIsOneLineNamingBothVersions() throws IOException {
        Path data = Files.createDirectories(dir.resolve("old-data"));
        // what servers before record format 2 wrote
        Files.writeString(data.resolve("sluice-layout.properties"), "containers=1\n", StandardCharsets.UTF_8);
        String[] plain = run("--data-dir", data.toString());
        assertThat(plain[0]).isEqualTo("1");
        assertThat(plain[1]).isEqualTo("sluice server: data directory " + data + " was written in record format "
                + "version 1 (unversioned: a server that logged whole wire frames); this server reads record format "
                + "version 2 only: start it on an empty data directory (the old one is left as it is)\n");
        String[] verbose = run("--data-dir", data.toString(), "--verbose");
        assertThat(verbose[0]).isEqualTo("1");
        assertThat(verbose[1]).startsWith(plain[1]).contains("\tat io.sluice.server.DataDirectoryLayout");
        assertThat(Files.readString(data.resolve("sluice-layout.properties"))).isEqualTo("containers=1\n");
    }
}
