package io.sluice.wire.samples;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import io.sluice.wire.WireCommand;

/** Sample instances of every top-level command, from every group. */
public final class AllSamples {
    private AllSamples() {
    }

    /** @return samples of every command: random values from {@code random}, plus fixed edge and typical values */
    public static List<WireCommand> samples(Random random) {
        List<WireCommand> all = new ArrayList<>();
        all.addAll(CoreSamples.samples(random));
        all.addAll(SegmentSamples.samples(random));
        all.addAll(ErrorAndTableSamples.samples(random));
        return all;
    }
}
