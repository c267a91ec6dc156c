package io.sluice.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.client.SluiceClient;
import io.sluice.common.Await;
import io.sluice.common.Deadline;
import io.sluice.testing.ControllerUri;
import io.sluice.testing.SluiceInject;
import io.sluice.testing.SluiceTest;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The progress line of {@code bench} and {@code demo} (rewritten in place while a run lasts, wiped at its end, off
 * without a terminal and with {@code --json}), and a {@code bench} stopped by a signal deleting its scope.
 */
@SluiceTest
@Timeout(120)
class ProgressAndInterruptTest {
    @SluiceInject
    SluiceClient client;

    @Test
    void theLineShowsWhatWasWrittenAndReadAndIsWipedAtTheEnd() throws Exception {
        StringWriter err = new StringWriter();
        Progress progress = new Progress(new PrintWriter(err), 20).start();
        progress.written.set(1500);
        progress.read = () -> 700;
        Await.until("the progress line shows the counts", () -> err.toString().contains("1,500 written"));
        progress.close();
        String out = err.toString();
        assertThat(out).startsWith("\r").contains("1,500 written (", "700 read (");
        assertThat(out).endsWith("\r");
        String wiped = out.substring(out.lastIndexOf('\r', out.length() - 2));
        assertThat(wiped.trim()).isEmpty();
    }

    @Test
    void aRunShorterThanAPeriodPrintsNothingAndOffPrintsNothing() {
        StringWriter err = new StringWriter();
        try (Progress progress = new Progress(new PrintWriter(err), 60_000).start()) {
            progress.written.set(10);
        }
        assertThat(err.toString()).isEmpty();
        assertThat(Progress.forTerminal(new PrintWriter(err), true)).isSameAs(Progress.OFF);
        // the test's standard error is no terminal
        assertThat(Progress.forTerminal(new PrintWriter(err), false)).isSameAs(Progress.OFF);
    }

    @Test
    void aBenchStoppedBySigtermDeletesItsScope(@ControllerUri String uri, @TempDir Path dir) throws Exception {
        List<String> command = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m", "-cp", System.getProperty("java.class.path"), "io.sluice.cli.Main", "bench",
                "--controller", uri, "--events", "100000000", "--size", "100");
        Process bench = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(dir.resolve("bench.log").toFile()).start();
        try {
            Deadline deadline = Deadline.after(Duration.ofSeconds(60));
            // until the run has its scope and stream: it is writing then
            while (benchScopes().isEmpty() || client.streamManager().listStreams(benchScopes().get(0)).isEmpty()) {
                assertThat(bench.isAlive()).as("bench exited early").isTrue();
                assertThat(deadline.expired()).as("bench created its scope and stream").isFalse();
                bench.waitFor(20, TimeUnit.MILLISECONDS);
            }
            bench.destroy(); // SIGTERM: the shutdown hooks run, as on Ctrl-C
            assertThat(bench.waitFor(60, TimeUnit.SECONDS)).as("bench exits after SIGTERM").isTrue();
            assertThat(benchScopes()).as("scopes left by the interrupted bench").isEmpty();
        } finally {
            bench.destroyForcibly();
        }
    }

    private List<String> benchScopes() {
        return client.streamManager().listScopes().stream().filter(s -> s.startsWith("sluice-bench-")).toList();
    }
}
