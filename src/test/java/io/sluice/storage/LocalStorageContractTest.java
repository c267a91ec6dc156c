package io.sluice.storage;

import java.nio.file.Path;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The storage contract on the file system; "reopening" closes the storage and opens the directory again. */
@Timeout(60)
class LocalStorageContractTest extends StorageContractTest {
    @TempDir
    Path dir;

    @Override
    Storage newStorage() {
        return LocalStorage.open(dir, Durability.FSYNC);
    }

    @Override
    Storage reopen(Storage old) {
        old.close();
        return LocalStorage.open(dir, Durability.FSYNC);
    }
}
