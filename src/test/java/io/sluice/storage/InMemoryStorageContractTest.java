package io.sluice.storage;

import org.junit.jupiter.api.Timeout;

/** The storage contract in memory; "reopening" keeps the same instance (its data is all there is). */
@Timeout(60)
class InMemoryStorageContractTest extends StorageContractTest {
    @Override
    Storage newStorage() {
        return new InMemoryStorage();
    }

    @Override
    Storage reopen(Storage old) {
        return old;
    }
}
