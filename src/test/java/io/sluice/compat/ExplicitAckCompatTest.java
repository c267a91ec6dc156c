package io.sluice.compat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.sluice.client.ExplicitAckScenarios;

/**
 * {@code AckMode.EXPLICIT} against the real Pravega 0.13: the scenarios of {@link ExplicitAckScenarios} (acks in any
 * order and wrong acks, close at the acknowledged position, a crashed reader's unacknowledged events read again, a
 * checkpoint that waits for acks, rebalancing that waits for acks), each in streams of its own in one scope.
 */
@CompatTest
@Timeout(180)
class ExplicitAckCompatTest {
    @RegisterExtension
    static final RealPravegaScope real = new RealPravegaScope("compat-ack");

    private static ExplicitAckScenarios scenarios() {
        return new ExplicitAckScenarios(real.client, real.scope);
    }

    @Test
    void closeHandsBackAtTheAcknowledgedPosition() {
        scenarios().closeHandsBackAtTheAcknowledgedPosition();
    }

    @Test
    void aCrashedReadersUnacknowledgedEventsAreReadAgain() throws Exception {
        scenarios().aCrashedReadersUnacknowledgedEventsAreReadAgain(real.threads);
    }

    @Test
    void aCheckpointWaitsForTheAcknowledgements() throws Exception {
        scenarios().aCheckpointWaitsForTheAcknowledgements(real.threads);
    }

    @Test
    void rebalancingWaitsForTheAcknowledgements() throws Exception {
        scenarios().rebalancingWaitsForTheAcknowledgements(real.threads);
    }

    @Test
    void aCrashedReadersUnacknowledgedSliceEventsAreReadAgain() throws Exception {
        scenarios().aCrashedReadersUnacknowledgedSliceEventsAreReadAgain(real.threads);
    }
}
