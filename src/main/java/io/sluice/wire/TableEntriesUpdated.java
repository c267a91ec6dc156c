package io.sluice.wire;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The new versions of updated table entries, reply to {@link UpdateTableEntries}. Wire type 75.
 *
 * <pre>
 * requestId i64 | count i32 | version i64 × count
 * </pre>
 *
 * @param requestId the UpdateTableEntries' request id
 * @param updatedVersions the new version of each key, in the request's order (an unmodifiable copy)
 */
public record TableEntriesUpdated(long requestId, List<Long> updatedVersions) implements Reply {

    /** Copies the list; it and its elements must not be null. */
    public TableEntriesUpdated {
        updatedVersions = List.copyOf(Objects.requireNonNull(updatedVersions, "updatedVersions"));
    }

    @Override
    public WireCommandType type() {
        return WireCommandType.TABLE_ENTRIES_UPDATED;
    }

    @Override
    public void writeFields(WireOutput out) {
        out.writeLong(requestId);
        out.writeInt(updatedVersions.size());
        for (long version : updatedVersions) {
            out.writeLong(version);
        }
    }

    static TableEntriesUpdated readFrom(WireInput in) {
        long requestId = in.readLong("requestId");
        int count = in.readCount("updatedVersions.count", Long.BYTES);
        List<Long> versions = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            versions.add(in.readLong("updatedVersions"));
        }
        return new TableEntriesUpdated(requestId, versions);
    }
}
