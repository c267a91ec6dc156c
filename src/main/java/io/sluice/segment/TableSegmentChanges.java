package io.sluice.segment;

import java.util.List;
import java.util.Objects;

/**
 * A batch of changes a {@link TableSegmentDeltaReader} read: the entries written to a table segment since the
 * previous batch.
 *
 * @param entries each key changed since the previous batch with its newest value and version, oldest change first
 *     (ordered by version). A key written several times in the batch's span appears once. Removals are not reported
 *     (Pravega's delta reads leave them out); an entry the segment store copied while compacting may appear
 *     again, unchanged.
 * @param reset true if the position read from had been compacted away: whatever the reader derived from earlier
 *     batches must be dropped and rebuilt from this batch and the following ones
 * @param position where a new delta reader resumes to see only changes after this batch
 */
public record TableSegmentChanges(List<TableSegmentEntry> entries, boolean reset, long position) {
    /** Copies the list. */
    public TableSegmentChanges {
        entries = List.copyOf(Objects.requireNonNull(entries, "entries"));
        if (position < 0) {
            throw new IllegalArgumentException("position must not be negative: " + position);
        }
    }
}
