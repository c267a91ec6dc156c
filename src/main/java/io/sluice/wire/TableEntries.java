package io.sluice.wire;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A list of table entries, nested in {@link UpdateTableEntries}, {@link TableRead}, {@link TableEntriesRead} and
 * {@link TableEntriesDeltaRead}.
 *
 * <pre>
 * count i32 | TableEntry × count
 * </pre>
 *
 * @param entries the entries, in wire order (an unmodifiable copy)
 */
public record TableEntries(List<TableEntry> entries) {

    /** Copies the list; it and its elements must not be null. */
    public TableEntries {
        entries = List.copyOf(Objects.requireNonNull(entries, "entries"));
    }

    /**
     * Writes the count, then each entry.
     *
     * @param out where to write
     */
    public void writeFields(WireOutput out) {
        out.writeInt(entries.size());
        for (TableEntry entry : entries) {
            entry.writeFields(out);
        }
    }

    static TableEntries readFrom(WireInput in) {
        int count = in.readCount("entries.count", TableEntry.MIN_WIRE_BYTES);
        List<TableEntry> entries = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            entries.add(TableEntry.readFrom(in));
        }
        return new TableEntries(entries);
    }
}
