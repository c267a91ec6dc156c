package io.sluice.storage;

import java.io.IOException;
import java.io.OutputStream;

/**
 * Writes a snapshot's bytes into a stream that the snapshot service provides (so the state can be serialized
 * straight into the file, without an intermediate copy).
 */
@FunctionalInterface
public interface SnapshotWriter {
    /**
     * Writes the whole snapshot into {@code out}. Must not close {@code out}.
     *
     * @param out where the snapshot's bytes go
     * @throws IOException if writing fails; the snapshot is then not stored
     */
    void writeTo(OutputStream out) throws IOException;
}
