package io.sluice.server;

import java.nio.file.Path;

/** Placeholder until the storage branch is merged (not committed). */
final class DurableSegmentStore {
    private DurableSegmentStore() {
    }

    static EmbeddedServer.StoreAndStorage open(Path dir, int containers, boolean fsync) {
        throw new UnsupportedOperationException("durable storage is not wired yet");
    }
}
