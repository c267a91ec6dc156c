package io.sluice.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.sluice.admin.ReaderGroup;
import io.sluice.client.SluiceClient;
import io.sluice.common.Threads;
import io.sluice.server.ServerProcess;
import io.sluice.stream.Checkpoint;
import io.sluice.stream.EventRead;
import io.sluice.stream.EventStreamReader;
import io.sluice.stream.ReaderGroupConfig;
import io.sluice.stream.Serializers;

/**
 * The mixed workload ({@link MixedWorkload}: writers, a reader group, transactions, large events, conditional table
 * updates, a byte stream) while the server — a {@code sluice server} JVM with fsync on, two containers and a snapshot
 * every 256 KiB of log, so restarts recover from snapshots and logs — is killed with SIGKILL at random moments and
 * restarted on the same data directory and ports, at least 20 times in one run. The clients are never restarted:
 * they carry on by themselves. Checked at the end: nothing acknowledged lost, nothing duplicated, every key's order
 * kept, every transaction whole or absent, every table update applied exactly once, the byte stream exact, no write
 * failed for good — and the reader group's checkpoints, taken while the kills went on, still valid: the group
 * remembers one, and a reader group started from each checkpoint taken reads every key's events from some point on,
 * each once and none missing, to the key's end marker.
 *
 * <p>The kills come at seeded random points of the writers' progress, one in each of {@code kills} equal stretches of
 * it (a kill waits until the workload has moved on since the previous restart). Counts: 20 kills and 30,000 events
 * by default; {@code -Dsluice.reliability.full=true} runs 100 kills and 200,000 events;
 * {@code -Dsluice.reliability.kills=N}, {@code -Dsluice.reliability.events=N} and {@code -Dsluice.reliability.seed=S}
 * set them one by one (docs/reliability.md, "Crashes and takeover").
 */
class ServerKillTest {
    private static final Logger LOG = LoggerFactory.getLogger(ServerKillTest.class);
    private static final Duration READY = Duration.ofSeconds(90);

    @TempDir
    Path dir;

    @Test
    @Timeout(3600)
    void theMixedWorkloadSurvivesSigkillsAndRestarts() throws Exception {
        long seed = ReliabilityProperties.seed();
        int kills = Integer.getInteger("sluice.reliability.kills", ReliabilityProperties.full() ? 100 : 20);
        int events = ReliabilityProperties.events(30_000, 200_000);
        Random random = new Random(seed);
        Path data = dir.resolve("data");
        int controllerPort = ServerProcess.freePort();
        int segmentStorePort = ServerProcess.freePort();
        String[] options = {"--containers", "2", "--snapshot-after", "262144"};
        LOG.info("server kills: {} kills during {} events, seed {}", kills, events, seed);
        String seedNote = "seed " + seed + " (replay with -Dsluice.reliability.seed=" + seed + ")";

        List<Checkpoint> checkpoints = new CopyOnWriteArrayList<>();
        List<Thread> checkpointing = new java.util.ArrayList<>();
        List<Long> checkpointMillis = new CopyOnWriteArrayList<>();
        AtomicInteger checkpointsFailed = new AtomicInteger();
        long inFlightAtKills = 0;
        long restartMillis = 0;
        long longestRestartMillis = 0;
        int restarts = 0;
        ServerProcess server = ServerProcess.start(dir, "server-0", data, controllerPort, segmentStorePort, options)
                .awaitReady(READY);
        try (MixedWorkload workload = new MixedWorkload(MixedWorkload.Config.of("kills", events, seed),
                server.controllerUri());
             SluiceClient admin = SluiceClient.connect(server.controllerUri())) {
            workload.start();
            // kill i at a random point of the i-th of `kills` equal stretches of the writers' progress
            for (int i = 0; i < kills; i++) {
                long from = (long) events * i / (kills + 1);
                long target = from + 1 + (long) (random.nextDouble() * ((long) events / (kills + 1)));
                awaitWritten(workload, server, target, "kill " + (i + 1));
                MixedWorkload.Progress at = workload.progress();
                inFlightAtKills += Math.max(0, at.eventsWritten() - at.eventsAcked());
                server.kill();
                LOG.info("kill {} at {}", i + 1, java.time.Instant.now());
                long t0 = System.nanoTime();
                server = ServerProcess.start(dir, "server-" + (i + 1), data, controllerPort, segmentStorePort,
                        options).awaitReady(READY);
                long took = (System.nanoTime() - t0) / 1_000_000;
                restarts++;
                restartMillis += took;
                longestRestartMillis = Math.max(longestRestartMillis, took);
                if (i % 4 == 1) {
                    // while the kills go on: a checkpoint, which the next kills may interrupt
                    checkpointing.add(checkpointInBackground(admin, workload.config().scope(), "cp-" + i,
                            checkpoints, checkpointMillis, checkpointsFailed));
                }
            }
            boolean done = workload.awaitDone(Duration.ofSeconds(Math.max(600, events / 100)));
            for (Thread t : checkpointing) {
                // each gives up by itself after its 60 s timeout
                assertThat(t.join(Duration.ofMinutes(3))).as("checkpoint thread %s ended", t.getName()).isTrue();
            }
            WorkloadReport report = workload.verify();
            String note = seedNote + ": " + report;
            assertThat(done).as(note).isTrue();
            assertThat(report.problems()).as(note).isEmpty();
            assertThat(report.writeFailures()).as("writes that failed for good; " + note).isZero();
            assertThat(report.eventsAcked()).as(note).isEqualTo(events + (long) workload.config().keys());
            assertThat(report.txnsCommitted()).as(note).isPositive();
            assertThat(report.txnsAborted()).as(note).isPositive();
            assertThat(report.tableUpdates()).as(note)
                    .isEqualTo((long) workload.config().tableUpdaters() * workload.config().tableUpdates());
            assertThat(report.byteStreamBytes()).as(note).isPositive();

            assertThat(checkpoints).as("checkpoints completed during the kills (" + checkpointsFailed.get()
                    + " failed); " + seedNote).isNotEmpty();
            try (ReaderGroup group = admin.readerGroupManager(workload.config().scope())
                    .readerGroup(MixedWorkload.GROUP)) {
                assertThat(group.lastCheckpoint()).as("the reader group remembers a checkpoint after the kills")
                        .isPresent();
            }
            long fromCheckpoints = 0;
            for (Checkpoint cp : List.copyOf(checkpoints)) {
                fromCheckpoints += readFromCheckpoint(admin, workload.config(), cp, seedNote);
            }
            String figures = String.format("%d kills (%d events in flight at them in all), restarts %d ms on "
                    + "average, %d ms the longest; %d checkpoints taken during them (in %s ms; %d failed), %d "
                    + "events read again from them; %s", restarts, inFlightAtKills,
                    restartMillis / Math.max(1, restarts), longestRestartMillis, checkpoints.size(), checkpointMillis,
                    checkpointsFailed.get(), fromCheckpoints, report);
            LOG.info("server kills, {}: {}", seedNote, figures);
            System.out.println("ServerKillTest: " + figures);
            assertThat(restarts).isEqualTo(kills);
        } finally {
            server.kill();
        }
    }

    /** Waits until the writers wrote {@code target} events, or finished; fails if the server exits meanwhile. */
    private static void awaitWritten(MixedWorkload workload, ServerProcess server, long target, String what)
            throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
        while (true) {
            MixedWorkload.Progress p = workload.progress();
            if (p.eventsWritten() >= target || p.writingDone()) {
                return;
            }
            assertThat(System.nanoTime() - deadline).as("%s: the workload got to %s events in time (%s)", what,
                    target, p).isNegative();
            // the wait is on the server's exit: one that dies by itself fails the test at once
            assertThat(server.exitsWithin(Duration.ofMillis(5))).as("the server died by itself: %s", server.log())
                    .isFalse();
        }
    }

    private static Thread checkpointInBackground(SluiceClient admin, String scope, String name,
                                                 List<Checkpoint> checkpoints, List<Long> took,
                                                 AtomicInteger failed) {
        return Threads.startVirtual("test-checkpoint-" + name, () -> {
            long t0 = System.nanoTime();
            try (ReaderGroup group = admin.readerGroupManager(scope).readerGroup(MixedWorkload.GROUP)) {
                checkpoints.add(group.initiateCheckpoint(name, Duration.ofSeconds(60)));
                took.add((System.nanoTime() - t0) / 1_000_000);
                LOG.info("checkpoint {} completed in {} ms (at {})", name, (System.nanoTime() - t0) / 1_000_000,
                        java.time.Instant.now());
            } catch (RuntimeException e) {
                // a kill during the checkpoint, or the readers done before they passed it
                failed.incrementAndGet();
                LOG.info("checkpoint {} did not complete in {} ms: {}", name, (System.nanoTime() - t0) / 1_000_000,
                        e.toString());
            }
        });
    }

    /**
     * Reads the event stream with a new reader group started from {@code cp}'s positions until every key's end
     * marker came, checking that each key's events form one unbroken run up to its marker, each read once.
     *
     * @return the events read
     */
    private static long readFromCheckpoint(SluiceClient admin, MixedWorkload.Config config, Checkpoint cp,
                                           String seedNote) {
        String group = "from-" + cp.name();
        admin.readerGroupManager(config.scope()).createReaderGroup(group, ReaderGroupConfig.builder()
                .startingStreamCuts(cp.positions()).build());
        Map<String, TreeSet<Long>> seen = new HashMap<>();
        Map<String, Long> markers = new HashMap<>();
        Set<String> twice = new HashSet<>();
        long read = 0;
        try (EventStreamReader<byte[]> reader = admin.newReader(config.scope(), group, "verifier",
                Serializers.bytes())) {
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
            while (markers.size() < config.keys()) {
                assertThat(System.nanoTime() - deadline).as("read from checkpoint %s in time: %s of %s markers",
                        cp.name(), markers.size(), config.keys()).isNegative();
                EventRead<byte[]> e = reader.readNextEvent(Duration.ofMillis(500));
                if (!e.hasEvent()) {
                    continue;
                }
                read++;
                Payloads.Header h = Payloads.check(e.event(), config.seed());
                switch (h.kind()) {
                    case 'E' -> {
                        if (!seen.computeIfAbsent(h.name(), k -> new TreeSet<>()).add(h.number())) {
                            twice.add(h.name() + " #" + h.number());
                        }
                    }
                    case 'M' -> markers.put(h.name(), h.number());
                    default -> { }
                }
            }
        }
        assertThat(twice).as("events read twice from checkpoint %s; %s", cp.name(), seedNote).isEmpty();
        for (Map.Entry<String, Long> m : markers.entrySet()) {
            TreeSet<Long> s = seen.getOrDefault(m.getKey(), new TreeSet<>());
            if (s.isEmpty()) {
                continue; // the checkpoint came after this key's last event
            }
            assertThat(s.last()).as("key %s read from checkpoint %s ends before its marker; %s", m.getKey(),
                    cp.name(), seedNote).isEqualTo(m.getValue() - 1);
            assertThat(s.last() - s.first() + 1).as("key %s read from checkpoint %s without a gap; %s", m.getKey(),
                    cp.name(), seedNote).isEqualTo(s.size());
        }
        assertThat(read).as("events after checkpoint %s", cp.name()).isPositive();
        return read;
    }
}
