package io.sluice.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.sluice.client.ClientConfig;
import io.sluice.server.EmbeddedServer;

/**
 * The mixed workload ({@link MixedWorkload}) against the embedded server (data on disk, fsync on) through a
 * {@link io.sluice.connection.FaultProxy} in front of its segment store ({@link FaultyNetwork}) that delays, drops,
 * cuts and black-holes connections every few hundred milliseconds on a seeded schedule: nothing acknowledged lost or
 * duplicated, every key's order kept, transactions whole or absent, the table's values equal to the updates that
 * succeeded, the byte stream exact, and every flush, commit and abort returning. 100,000 events by default;
 * {@code -Dsluice.reliability.full=true} runs 1,000,000, {@code -Dsluice.reliability.events=N} any count,
 * {@code -Dsluice.reliability.seed=S} replays a seed (docs/reliability.md, "Faults on the network").
 */
class NetworkFaultsTest {
    private static final Logger LOG = LoggerFactory.getLogger(NetworkFaultsTest.class);

    @Test
    @Timeout(3600)
    void theMixedWorkloadSurvivesNetworkFaults(@TempDir Path dir) throws Exception {
        long seed = ReliabilityProperties.seed();
        int events = ReliabilityProperties.events(100_000, 1_000_000);
        LOG.info("network faults against the embedded server: {} events, seed {}", events, seed);
        try (EmbeddedServer server = EmbeddedServer.builder().dataDir(dir).build();
             FaultyNetwork network = new FaultyNetwork(seed);
             MixedWorkload workload = new MixedWorkload(MixedWorkload.Config.of("faults", events, seed),
                     ClientConfig.of(server.controllerUri()), network)) {
            workload.start();
            boolean done = workload.awaitDone(Duration.ofSeconds(Math.max(300, events / 500)));
            network.calm();
            WorkloadReport report = workload.verify();
            LOG.info("network faults against the embedded server: {}; {}", network.summary(), report);
            String seedNote = "seed " + seed + " (replay with -Dsluice.reliability.seed=" + seed + "): " + report;
            assertThat(done).as(seedNote).isTrue();
            assertThat(report.problems()).as(seedNote).isEmpty();
            assertThat(report.writeFailures()).as(seedNote).isZero();
            assertThat(report.eventsAcked()).as(seedNote)
                    .isEqualTo(events + (long) workload.config().keys());
            assertThat(report.largeEvents()).as(seedNote).isPositive();
            assertThat(report.txnsCommitted()).as(seedNote).isPositive();
            assertThat(report.txnsAborted()).as(seedNote).isPositive();
            assertThat(report.tableUpdates()).as(seedNote)
                    .isEqualTo((long) workload.config().tableUpdaters() * workload.config().tableUpdates());
            assertThat(report.byteStreamBytes()).as(seedNote).isPositive();
            assertThat(network.proxies()).as(seedNote).hasSize(1);
            assertThat(network.counts().values()).as("every kind of fault was injected; " + seedNote)
                    .allSatisfy(n -> assertThat(n).isPositive());
        }
    }
}
