package io.sluice.server;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;

/**
 * One segment held by a container: stream, transient or table. All fields are guarded by the container lock.
 */
final class Segment {
    /** What kind of segment. */
    enum Kind { STREAM, TRANSIENT, TABLE }

    /** A read waiting at the tail of the segment for data (a long poll). */
    record ParkedRead(long offset, int maxLength, long requestId, ReplySink sink, Object owner) {
    }

    final String name;
    final long id;
    final Kind kind;
    byte scaleType;
    int targetRate;
    long rolloverSizeBytes;
    boolean sealed;
    long lastModifiedMillis;
    final SegmentData data = new SegmentData();
    final TableState table;
    final Map<UUID, Long> attributes = new HashMap<>();
    final List<ParkedRead> parked = new ArrayList<>(0);
    /** Offsets where appends began (event boundaries for event streams), for LocateOffset; sparse. */
    final TreeMap<Long, Boolean> boundaries = new TreeMap<>();

    Segment(String name, long id, Kind kind, int keyLength) {
        this.name = name;
        this.id = id;
        this.kind = kind;
        this.table = kind == Kind.TABLE ? new TableState(keyLength) : null;
    }

    long length() {
        return table != null ? table.length() : data.length();
    }

    long startOffset() {
        return table != null ? 0 : data.startOffset();
    }

    boolean isTable() {
        return table != null;
    }
}
