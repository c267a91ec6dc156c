package io.sluice.server;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.sluice.common.Deadline;

/**
 * A {@code sluice server} in a JVM of its own (this JVM's java and class path), for tests that kill a server with
 * SIGKILL or run two on one data directory: started with {@link #start}, ready once it has written its ready file,
 * its output in a log file the failure messages quote.
 */
public final class ServerProcess implements AutoCloseable {
    private final Process process;
    private final Path readyFile;
    private final Path log;
    private final int controllerPort;
    private final int segmentStorePort;

    private ServerProcess(Process process, Path readyFile, Path log, int controllerPort, int segmentStorePort) {
        this.process = process;
        this.readyFile = readyFile;
        this.log = log;
        this.controllerPort = controllerPort;
        this.segmentStorePort = segmentStorePort;
    }

    /** @return a port that was free a moment ago on the loopback address */
    public static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    /** @return whether something accepts connections on {@code port} of the loopback address */
    public static boolean listening(int port) {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
            return true;
        } catch (ConnectException e) {
            return false;
        } catch (IOException e) {
            throw new AssertionError("probing port " + port + ": " + e, e);
        }
    }

    /**
     * Starts {@code sluice server --data-dir data --controller-port .. --segment-store-port .. -v EXTRA...} without
     * waiting for it to be ready.
     *
     * @param work where the ready file and the log go (names from {@code name})
     */
    public static ServerProcess start(Path work, String name, Path data, int controllerPort, int segmentStorePort,
                                      String... extra) throws IOException {
        Path ready = work.resolve(name + ".ready");
        Path log = work.resolve(name + ".log");
        Files.deleteIfExists(ready);
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx256m",
                "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"), "io.sluice.cli.Main",
                "server", "--data-dir", data.toString(), "--controller-port", String.valueOf(controllerPort),
                "--segment-store-port", String.valueOf(segmentStorePort), "--ready-file", ready.toString(), "-v"));
        command.addAll(List.of(extra));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        return new ServerProcess(p, ready, log, controllerPort, segmentStorePort);
    }

    /** @return whether the server has said it is ready (its ready file exists) */
    public boolean ready() {
        return Files.exists(readyFile);
    }

    /** @return when the server became ready (its ready file's time, in epoch milliseconds) */
    public long readyMillis() throws IOException {
        return Files.getLastModifiedTime(readyFile).toMillis();
    }

    /**
     * Waits until the server is ready.
     *
     * @return this
     * @throws AssertionError if it exits or is not ready within {@code timeout} (it is then killed)
     */
    public ServerProcess awaitReady(Duration timeout) throws IOException, InterruptedException {
        awaitLog(null, timeout);
        return this;
    }

    /**
     * Waits until the server's output holds {@code text} ({@code null}: until it is ready).
     *
     * @throws AssertionError if it exits first or the wait outlasts {@code timeout} (the server is then killed)
     */
    public void awaitLog(String text, Duration timeout) throws IOException, InterruptedException {
        Deadline deadline = Deadline.after(timeout);
        while (text == null ? !ready() : !log().contains(text)) {
            if (!process.isAlive()) {
                throw new AssertionError("server exited with " + process.exitValue() + ": " + log());
            }
            if (deadline.expired()) {
                process.destroyForcibly();
                throw new AssertionError("server " + (text == null ? "not ready" : "did not log '" + text + "'")
                        + " within " + timeout + ": " + log());
            }
            // waits on the process (returns early if it exits), not a sleep: the file has no event to wait for
            process.waitFor(10, TimeUnit.MILLISECONDS);
        }
    }

    /** @return what the server printed so far */
    public String log() throws IOException {
        return Files.readString(log);
    }

    /** @return the server's process id */
    public long pid() {
        return process.pid();
    }

    /**
     * Waits at most {@code timeout} for the process to exit.
     *
     * @return whether it has exited
     */
    public boolean exitsWithin(Duration timeout) throws InterruptedException {
        return process.waitFor(timeout.toNanos(), TimeUnit.NANOSECONDS);
    }

    /** @return whether the process runs */
    public boolean alive() {
        return process.isAlive();
    }

    /** @return the controller's URI on the loopback address */
    public String controllerUri() {
        return "tcp://127.0.0.1:" + controllerPort;
    }

    /** @return the controller's port */
    public int controllerPort() {
        return controllerPort;
    }

    /** @return the segment store's port */
    public int segmentStorePort() {
        return segmentStorePort;
    }

    /** Kills the process with SIGKILL and waits until it is gone. */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            throw new AssertionError("server process " + process.pid() + " still alive 30 s after SIGKILL");
        }
    }

    /** Kills the process (SIGKILL) if it still runs. */
    @Override
    public void close() throws InterruptedException {
        kill();
    }
}
