package io.sluice.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.sluice.common.Threads;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The resource lock excludes a second PROCESS, and the OS releases it when the holder dies: a second JVM
 * ({@link LockProbe}, started with this JVM's java and class path) competes for the lock.
 */
@Timeout(120)
class CrossProcessLockTest {
    static final String BUCKET = "container";
    static final String KEY = "7";

    @TempDir
    Path dir;

    @Test
    void anotherProcessCannotLockWhileThisOneHoldsTheLock() throws Exception {
        try (LocalStorage storage = LocalStorage.open(dir, Durability.FSYNC)) {
            ServerlessStorage resource = storage.resource(BUCKET, KEY);
            resource.loadLatestSnapshot();
            StorageContractTest.drain(resource.loadWriteLog());
            resource.lock();

            assertThat(probeOnce()).startsWith("BUSY").contains("locked by another process")
                    .contains("pid " + ProcessHandle.current().pid());

            resource.unlock();
            assertThat(probeOnce()).isEqualTo("LOCKED");
        }
    }

    @Test
    void theLockOfAKilledProcessIsReleased() throws Exception {
        Path stderr = dir.resolve("probe.err");
        Process holder = start("hold", stderr);
        try (LocalStorage storage = LocalStorage.open(dir.resolve("data"), Durability.FSYNC)) {
            assertThat(firstLine(holder, stderr)).isEqualTo("HOLDING");
            assertThatThrownBy(() -> storage.writeLog().lock(BUCKET, KEY))
                    .isInstanceOf(ResourceLockedException.class)
                    .hasMessageContaining("locked by another process")
                    .hasMessageContaining("pid " + holder.pid());

            holder.destroyForcibly();
            assertThat(holder.waitFor(30, TimeUnit.SECONDS)).as("killed probe exited").isTrue();

            ServerlessStorage resource = storage.resource(BUCKET, KEY);
            resource.loadLatestSnapshot();
            StorageContractTest.drain(resource.loadWriteLog());
            resource.lock();
            assertThat(resource.isLocked()).isTrue();
            resource.unlock();
        } finally {
            holder.destroyForcibly();
        }
    }

    /** Runs a probe that tries the lock once; returns its output line. */
    private String probeOnce() throws Exception {
        Path stderr = Files.createTempFile(dir, "probe", ".err");
        Process probe = start("try", stderr);
        try {
            String line = firstLine(probe, stderr);
            assertThat(probe.waitFor(30, TimeUnit.SECONDS)).as("probe exited").isTrue();
            assertThat(probe.exitValue()).as("probe exit code; its stderr: %s", text(stderr)).isZero();
            return line;
        } finally {
            probe.destroyForcibly();
        }
    }

    private Process start(String mode, Path stderr) throws IOException {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Path data = mode.equals("hold") ? dir.resolve("data") : dir;
        return new ProcessBuilder(List.of(java.toString(), "-cp", System.getProperty("java.class.path"),
                "-Xmx64m", "-XX:TieredStopAtLevel=1", LockProbe.class.getName(), data.toString(), mode))
                .redirectError(stderr.toFile())
                .start();
    }

    /**
     * Reads the probe's first output line, waiting at most 30 s (a blocking read cannot be interrupted, so it runs on
     * its own thread; a probe that hangs is killed and the test fails instead of hanging).
     */
    private static String firstLine(Process p, Path stderr) throws Exception {
        CompletableFuture<String> line = new CompletableFuture<>();
        Threads.startVirtual("test-probe-output", () -> {
            try {
                BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
                line.complete(out.readLine());
            } catch (IOException e) {
                line.completeExceptionally(e);
            }
        });
        try {
            return line.get(30, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            p.destroyForcibly();
            throw new AssertionError("probe printed nothing in 30 s; its stderr: " + text(stderr), e);
        }
    }

    private static String text(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            return "(unreadable: " + e + ")";
        }
    }
}
