package io.sluice.compat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.sluice.client.SegmentSliceScenarios;

/**
 * Segment slices against the real Pravega 0.13: the scenarios of {@link SegmentSliceScenarios} (four slices read in
 * parallel on virtual threads, a slice ending at a scale with its successors following, a slice released at an
 * offset, two readers sharing a group through slices with rebalancing and a checkpoint), each in streams of its own.
 */
@CompatTest
@Timeout(180)
class SegmentSliceCompatTest {
    @RegisterExtension
    static final RealPravegaScope real = new RealPravegaScope("compat-slice");

    private static SegmentSliceScenarios scenarios() {
        return new SegmentSliceScenarios(real.client, real.scope);
    }

    @Test
    void slicesAreReadInParallelOnVirtualThreads() throws Exception {
        scenarios().slicesAreReadInParallelOnVirtualThreads(real.threads);
    }

    @Test
    void aSliceEndsAtTheSealAndTheSuccessorsFollow() {
        scenarios().aSliceEndsAtTheSealAndTheSuccessorsFollow();
    }

    @Test
    void aSliceReleasedAtAnOffsetIsReadOnFromThere() {
        scenarios().aSliceReleasedAtAnOffsetIsReadOnFromThere();
    }

    @Test
    void twoReadersShareAGroupThroughSlices() throws Exception {
        scenarios().twoReadersShareAGroupThroughSlices(real.threads);
    }

    @Test
    void twoExplicitAckReadersShareAGroupThroughSlices() throws Exception {
        scenarios().twoExplicitAckReadersShareAGroupThroughSlices(real.threads);
    }
}
