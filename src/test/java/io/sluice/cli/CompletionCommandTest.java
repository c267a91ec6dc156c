package io.sluice.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@code sluice completion bash}: a script bash accepts, naming every command and their options. */
@Timeout(60)
class CompletionCommandTest {

    private record Run(int status, String out, String err) {
    }

    private static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int status = Main.run(new PrintWriter(out), new PrintWriter(err), args);
        return new Run(status, out.toString(), err.toString());
    }

    @Test
    void theBashScriptNamesEveryCommandAndBashParsesIt(@TempDir Path dir) throws Exception {
        Run r = run("completion", "bash");
        assertThat(r.status()).as(r.err()).isZero();
        assertThat(r.out()).contains("complete -F", "sluice")
                .contains("kvt", "txn", "bytes", "stream", "scope", "server", "bench", "wire", "completion")
                .contains("--controller", "--if-version", "--lease");
        Path script = dir.resolve("sluice-completion.bash");
        Files.writeString(script, r.out());
        // bash -n: the script parses (it defines functions and a `complete` line, runs nothing)
        Process bash = new ProcessBuilder("bash", "-n", script.toString()).redirectErrorStream(true).start();
        assertThat(bash.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(bash.exitValue()).as(new String(bash.getInputStream().readAllBytes())).isZero();
    }

    @Test
    void anUnknownShellIsAUsageErrorNamingIt() {
        Run r = run("completion", "fish");
        assertThat(r.status()).isEqualTo(2);
        assertThat(r.err()).contains("no completion for shell 'fish'");
    }
}
