package io.sluice.server;

/**
 * Told of every change a {@link SegmentContainer} applies while serving (not while replaying its log on recovery), for
 * bookkeeping outside the container such as the {@link SegmentRateTracker}. Called under the container's lock, in the
 * order changes are applied: must be quick, must not block, and must not call back into the container.
 */
interface ContainerObserver {
    /** An observer that ignores everything. */
    ContainerObserver NONE = (op, result, segment) -> {
    };

    /**
     * @param op the change applied
     * @param result what applying it gave (a wire reply, or a {@link SegmentContainer.AppendResult} for appends)
     * @param segment the segment {@code op} names as it is after the change, or null if there is none (deleted or
     *     missing); read it only during this call
     */
    void applied(ContainerOp op, Object result, Segment segment);
}
