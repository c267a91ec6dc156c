package io.sluice.controller;

import java.util.List;

import io.sluice.stream.SegmentWithRange;

/**
 * The controller's answer to a manual scale request.
 *
 * @param started true if the scale started; false if its precondition failed (the segments to seal are not all
 *     active, or the stream would keep fewer segments than its scaling policy's minimum)
 * @param epoch the stream's active epoch when the scale was accepted, i.e. the epoch the scale moves the stream
 *     <em>out of</em> (the new segments belong to the next one); pass it to {@code checkScale}, which reports the
 *     scale done once the active epoch is past it. Meaningful only when started
 * @param newSegments the segments the scale creates; empty when not started
 */
public record ScaleResult(boolean started, int epoch, List<SegmentWithRange> newSegments) {

    /** Copies the list. */
    public ScaleResult {
        newSegments = List.copyOf(newSegments);
    }
}
