package io.sluice.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@code sluice wire decode} on real captures and on broken files. */
@Timeout(30)
class WireToolTest {
    private static final Path RAW = Path.of(System.getProperty("sluice.captures", "src/test/resources/captures"), "raw");

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(String... args) {
        return Main.run(new PrintWriter(out), new PrintWriter(err), args);
    }

    @Test
    void decodesTheWriterCaptureOneLinePerCommand() {
        assertThat(run("wire", "decode", RAW.resolve("conn04-client-6000-c2s.bin").toString())).isZero();
        assertThat(out.toString().lines().toList()).hasSize(8).satisfies(lines -> {
            assertThat(lines.get(0)).isEqualTo("@0 [-127] Hello[highVersion=16, lowVersion=5]");
            assertThat(lines.get(1)).startsWith("@16 [1] SetupAppend[").contains("segment=golden/golden/0.#epoch.0");
            assertThat(lines.get(2)).startsWith("@76 [3] AppendBlock[").endsWith("= 1 event (15 bytes)");
            assertThat(lines.get(4)).startsWith("@167 [3] AppendBlock[").endsWith("= 2 events (30 bytes) + PADDING (1958 bytes)");
            assertThat(lines.get(6)).isEqualTo("@2231 [100] KeepAlive[]");
            assertThat(lines.get(7)).isEqualTo("7 frames, 2239 bytes");
        });
        assertThat(err.toString()).isEmpty();
    }

    @Test
    void listsNestedEventsOnRequest() {
        assertThat(run("wire", "decode", "--events", RAW.resolve("conn13-client-6000-s2c.bin").toString())).isZero();
        assertThat(out.toString()).contains("= 3 events (45 bytes)", "    event 7 bytes: \"event-1\"", "    event 7 bytes: \"event-3\"");
    }

    @Test
    void malformedFrameStopsWithItsOffset(@TempDir Path dir) throws IOException {
        byte[] good = Files.readAllBytes(RAW.resolve("conn04-client-6000-c2s.bin"));
        byte[] bad = Arrays.copyOf(good, 16 + 8);
        bad[16 + 3] = 99; // the SetupAppend at @16 becomes type 99
        Path file = dir.resolve("bad.bin");
        Files.write(file, bad);
        assertThat(run("wire", "decode", file.toString())).isEqualTo(2);
        assertThat(out.toString()).startsWith("@0 [-127] Hello");
        assertThat(err.toString()).contains("@16 malformed frame: UNKNOWN_TYPE: type code 99");
    }

    @Test
    void fileEndingInsideAFrameIsReported(@TempDir Path dir) throws IOException {
        byte[] good = Files.readAllBytes(RAW.resolve("conn04-client-6000-c2s.bin"));
        Path file = dir.resolve("cut.bin");
        Files.write(file, Arrays.copyOf(good, 30));
        assertThat(run("wire", "decode", file.toString())).isEqualTo(1);
        assertThat(err.toString()).contains("@16 the file ends inside a frame (14 bytes left)");
    }

    @Test
    void jsonPrintsOneObjectPerFrameThenTheTotals(@TempDir Path dir) throws IOException {
        assertThat(run("wire", "decode", "--json", RAW.resolve("conn04-client-6000-c2s.bin").toString())).isZero();
        List<String> lines = out.toString().lines().toList();
        assertThat(lines).hasSize(8);
        assertThat(lines.get(0)).isEqualTo("{\"offset\":0,\"type\":-127,\"name\":\"HELLO\","
                + "\"command\":\"Hello[highVersion=16, lowVersion=5]\"}");
        assertThat(lines.get(2)).startsWith("{\"offset\":76,\"type\":3,\"name\":\"APPEND_BLOCK\",")
                .endsWith(",\"events\":1}");
        assertThat(lines.get(7)).isEqualTo("{\"frames\":7,\"bytes\":2239}");

        byte[] good = Files.readAllBytes(RAW.resolve("conn04-client-6000-c2s.bin"));
        byte[] bad = Arrays.copyOf(good, 16 + 8);
        bad[16 + 3] = 99;
        Path file = dir.resolve("bad.bin");
        Files.write(file, bad);
        out.getBuffer().setLength(0);
        assertThat(run("wire", "decode", "--json", file.toString())).isEqualTo(2);
        assertThat(out.toString().lines().toList()).last().asString()
                .startsWith("{\"error\":{\"code\":\"malformed\",\"message\":\"malformed frame: UNKNOWN_TYPE")
                .endsWith(",\"offset\":16}}");
    }

    @Test
    void missingFileIsNamed() {
        assertThat(run("wire", "decode", "/no/such/capture.bin")).isEqualTo(1);
        assertThat(err.toString()).contains("no such file: /no/such/capture.bin");
    }

    @Test
    void helpDescribesTheCommand() {
        assertThat(run("wire", "decode", "--help")).isZero();
        assertThat(out.toString()).contains("Usage: sluice wire decode", "--events", "Exit status");
    }
}
