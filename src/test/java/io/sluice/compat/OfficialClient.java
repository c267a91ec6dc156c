package io.sluice.compat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs the OFFICIAL Pravega 0.13 Java client driver, {@code compat/official-client.sh}, as a process of its own (its
 * own JVM and class path, never Sluice's) from the project root, with stdout (one JSON line) and stderr in
 * {@code target/official-client/<name>.{json,log}}. See {@code compat/README.md}. Stateless; thread-safe.
 */
final class OfficialClient {
    /** First build from a clean clone: ~34 MB of jars (57 MB with plugins) from Maven Central; 73 s measured. */
    static final Duration BUILD_TIMEOUT = Duration.ofMinutes(6);
    static final int LOG_TAIL_LINES = 120;

    private static final Path REPO = Path.of("").toAbsolutePath();
    private static final Path SCRIPT = REPO.resolve("compat/official-client.sh");
    private static final Path OUT = REPO.resolve("target/official-client");

    private OfficialClient() {
    }

    /**
     * Builds the driver, or finds it in the script's cache (< 0.1 s). Blocks up to {@link #BUILD_TIMEOUT}; fails the
     * test if the build fails.
     */
    static void build() throws IOException, InterruptedException {
        assertThat(SCRIPT).as("the driver's script (tests run from the project root)").isExecutable();
        Result build = run("build", List.of("build"), BUILD_TIMEOUT);
        if (build.exitCode() != 0) {
            fail("compat/official-client.sh build failed (exit " + build.exitCode() + "):\n" + build.logTail());
        }
    }

    /** What one run of the script left: exit code and where its stdout and stderr went. */
    record Result(int exitCode, Path stdout, Path log) {
        /** @return the last line of stdout (the driver's JSON), or "" */
        String json() throws IOException {
            List<String> lines = Files.readAllLines(stdout, StandardCharsets.UTF_8);
            for (int i = lines.size() - 1; i >= 0; i--) {
                if (!lines.get(i).isBlank()) {
                    return lines.get(i).trim();
                }
            }
            return "";
        }

        /** @return the last {@value #LOG_TAIL_LINES} lines of the driver's stderr */
        String logTail() throws IOException {
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - LOG_TAIL_LINES), lines.size()));
        }

        /** @return exit code, JSON and the log's tail, for assertion messages */
        String describe() throws IOException {
            return "exit " + exitCode + "\nJSON: " + json() + "\nlast " + LOG_TAIL_LINES + " lines of " + log + ":\n"
                    + logTail();
        }
    }

    /**
     * Runs {@code compat/official-client.sh args...} with stdout and stderr in files named after {@code name}. Blocks
     * up to {@code timeout}; past it, kills the process and everything it started and reports exit code -1.
     */
    static Result run(String name, List<String> args, Duration timeout) throws IOException, InterruptedException {
        Files.createDirectories(OUT);
        Path stdout = OUT.resolve(name + ".json");
        Path log = OUT.resolve(name + ".log");
        List<String> command = new ArrayList<>();
        command.add(SCRIPT.toString());
        command.addAll(args);
        Process process = new ProcessBuilder(command)
                .directory(REPO.toFile())
                .redirectOutput(stdout.toFile())
                .redirectError(log.toFile())
                .start();
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
            process.waitFor(30, TimeUnit.SECONDS);
            Files.writeString(log, "\n[test] killed after " + timeout.toSeconds() + " s\n", StandardCharsets.UTF_8,
                    StandardOpenOption.APPEND);
            return new Result(-1, stdout, log);
        }
        return new Result(process.exitValue(), stdout, log);
    }
}
