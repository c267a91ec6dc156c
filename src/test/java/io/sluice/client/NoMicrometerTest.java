package io.sluice.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Micrometer is optional: with no Micrometer jar on the class path a client and server workload runs as before, and
 * {@code sluice server --metrics-port} says in one line what is missing and exits with status 1. Both run in child
 * JVMs whose class path is this one without Micrometer's jars.
 */
@Timeout(120)
class NoMicrometerTest {

    /** This JVM's class path without Micrometer (and the libraries only it brings). */
    static String classPathWithoutMicrometer() {
        List<String> kept = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            String name = Path.of(entry).getFileName().toString();
            if (!name.startsWith("micrometer-") && !name.startsWith("HdrHistogram") && !name.startsWith("LatencyUtils")
                    && !name.startsWith("prometheus-metrics-")) {
                kept.add(entry);
            }
        }
        return String.join(File.pathSeparator, kept);
    }

    private record Result(int status, String out, String err) {
    }

    private static Result run(String... args) throws Exception {
        String cp = classPathWithoutMicrometer();
        assertThat(cp).doesNotContain("micrometer-core");
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m", "-cp", cp));
        command.addAll(List.of(args));
        Path out = Files.createTempFile("sluice-no-micrometer", ".out");
        Path err = Files.createTempFile("sluice-no-micrometer", ".err");
        try {
            Process p = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
            p.getOutputStream().close();
            if (!p.waitFor(90, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new AssertionError("the child JVM did not exit: " + Files.readString(err));
            }
            return new Result(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                    Files.readString(err, StandardCharsets.UTF_8));
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }

    @Test
    void aWorkloadRunsWithoutMicrometer() throws Exception {
        Result r = run(NoMicrometerWorkload.class.getName());
        assertThat(r.status()).as(r.out() + r.err()).isZero();
        assertThat(r.out()).contains("ok 50");
        assertThat(r.err()).doesNotContain("NoClassDefFoundError", "micrometer");
    }

    @Test
    void theMetricsPortWithoutMicrometerIsOneClearLineAndStatusOne() throws Exception {
        Result r = run("io.sluice.cli.Main", "server", "--controller-port", "0", "--segment-store-port", "0",
                "--metrics-port", "0");
        assertThat(r.status()).as(r.out() + r.err()).isEqualTo(1);
        assertThat(r.err().lines().toList()).as(r.err()).hasSize(1);
        assertThat(r.err()).startsWith("sluice server: ").contains("--metrics-port needs Micrometer")
                .doesNotContain("\tat ");
        assertThat(r.out()).doesNotContain("ready");
    }
}
