package io.sluice.compat;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.sluice.client.ClientConfig;
import io.sluice.reliability.FaultyNetwork;
import io.sluice.reliability.MixedWorkload;
import io.sluice.reliability.ReliabilityProperties;
import io.sluice.reliability.WorkloadReport;

/**
 * The reliability suite's mixed workload ({@link MixedWorkload}) against the REAL Pravega 0.13 standalone, with a
 * fault-injecting proxy ({@link FaultyNetwork}) in front of its segment store: the same checks as
 * {@code io.sluice.reliability.NetworkFaultsTest} with fewer events (20,000; 200,000 with
 * {@code -Dsluice.reliability.full=true}). The real segment store does not deduplicate a resent append
 * (docs/protocol.md §9), so here exactly-once rests on the Sluice client alone. The controller is reached directly.
 */
@CompatTest
class NetworkFaultsCompatTest {
    private static final Logger LOG = LoggerFactory.getLogger(NetworkFaultsCompatTest.class);

    @Test
    @Timeout(3600)
    void theMixedWorkloadSurvivesNetworkFaultsAgainstTheRealServer() throws Exception {
        long seed = ReliabilityProperties.seed();
        int events = ReliabilityProperties.events(20_000, 200_000);
        String scope = RealPravega.uniqueName("compat-faults");
        LOG.info("network faults against the real Pravega: {} events, seed {}, scope {}", events, seed, scope);
        try (FaultyNetwork network = new FaultyNetwork(seed);
             MixedWorkload workload = new MixedWorkload(MixedWorkload.Config.of(scope, events, seed),
                     ClientConfig.of(RealPravega.controllerUri().toString()), network)) {
            workload.start();
            boolean done = workload.awaitDone(Duration.ofSeconds(Math.max(600, events / 100)));
            network.calm();
            WorkloadReport report = workload.verify();
            LOG.info("network faults against the real Pravega: {}; {}", network.summary(), report);
            String seedNote = "seed " + seed + " (replay with -Dsluice.reliability.seed=" + seed + "): " + report;
            assertThat(done).as(seedNote).isTrue();
            assertThat(report.problems()).as(seedNote).isEmpty();
            assertThat(report.writeFailures()).as(seedNote).isZero();
            assertThat(report.eventsAcked()).as(seedNote).isEqualTo(events + (long) workload.config().keys());
            assertThat(report.largeEvents()).as(seedNote).isPositive();
            assertThat(report.txnsCommitted()).as(seedNote).isPositive();
            assertThat(report.txnsAborted()).as(seedNote).isPositive();
            assertThat(report.tableUpdates()).as(seedNote)
                    .isEqualTo((long) workload.config().tableUpdaters() * workload.config().tableUpdates());
            assertThat(report.byteStreamBytes()).as(seedNote).isPositive();
            assertThat(network.proxies()).as("the segment store was reached through a proxy").isNotEmpty();
            assertThat(network.counts().values()).as("every kind of fault was injected; " + seedNote)
                    .allSatisfy(n -> assertThat(n).isPositive());
        }
    }
}
