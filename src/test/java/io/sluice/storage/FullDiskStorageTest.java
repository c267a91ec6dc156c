package io.sluice.storage;

import static io.sluice.storage.StorageContractTest.drain;
import static io.sluice.storage.StorageContractTest.endOfRecords;
import static io.sluice.storage.StorageContractTest.strings;
import static io.sluice.storage.StorageContractTest.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The write log on a disk that fills up and frees again ({@link FullDisk}): a failed append leaves no part of its
 * record in the log, appends after it fail too until the log is resumed, resuming fails while the disk is still full
 * and succeeds once it is not, and a restart reads exactly the appends that succeeded.
 */
@Timeout(60)
class FullDiskStorageTest {
    private static final String B = "containers";
    private static final String K = "container-0";

    @TempDir
    Path dir;

    private static ServerlessStorage open(Storage storage) {
        ServerlessStorage r = storage.resource(B, K);
        r.loadLatestSnapshot();
        drain(r.loadWriteLog());
        r.lock();
        drain(r.loadWriteLog());
        return r;
    }

    private static Throwable failureOf(CompletableFuture<Void> f) throws InterruptedException {
        try {
            f.get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            return e.getCause();
        } catch (java.util.concurrent.TimeoutException e) {
            throw new AssertionError("the append neither failed nor succeeded in time", e);
        }
        throw new AssertionError("the append succeeded on a full disk");
    }

    @Test
    void aFailedAppendLeavesNothingInTheLogAndTheLogResumesOnceTheDiskHasRoom() throws Exception {
        FullDisk disk = new FullDisk();
        Path log;
        long goodLength;
        try (LocalStorage storage = LocalStorage.open(dir, Durability.FSYNC, disk)) {
            ServerlessStorage r = open(storage);
            r.append(utf8("acknowledged 1"));
            log = storage.fileWriteLog().logFile(B, K, r.writeLogVersion());
            goodLength = endOfRecords(storage.writeLog().logReader(B, K, r.writeLogVersion()));

            disk.fill();
            Throwable failed = failureOf(r.appendAsync(utf8("x".repeat(1000))));
            assertThat(failed).isInstanceOf(StorageException.class).hasMessageContaining(FullDisk.NO_SPACE);
            assertThat(Files.size(log)).as("the torn record was cut off at once").isEqualTo(goodLength);
            assertThat(failureOf(r.resumeAppends())).as("resuming while the disk is full")
                    .hasMessageContaining("still cannot be written").hasMessageContaining(FullDisk.NO_SPACE);

            disk.free();
            // enqueued before the resume: fails although the disk has room, so nothing after a lost append is written
            CompletableFuture<Void> beforeResume = r.appendAsync(utf8("after the failure, before resuming"));
            CompletableFuture<Void> resumed = r.resumeAppends();
            assertThat(failureOf(beforeResume)).hasMessageContaining(FullDisk.NO_SPACE);
            resumed.get(30, TimeUnit.SECONDS);
            r.append(utf8("acknowledged 2"));
            assertThat(disk.refused()).isPositive();
        }
        try (LocalStorage storage = LocalStorage.open(dir, Durability.FSYNC)) {
            ServerlessStorage r = storage.resource(B, K);
            r.loadLatestSnapshot();
            assertThat(strings(drain(r.loadWriteLog()))).containsExactly("acknowledged 1", "acknowledged 2");
            r.lock();
            drain(r.loadWriteLog());
            assertThat(storage.fileWriteLog().droppedTailBytes()).as("no torn tail left to recover").isZero();
        }
    }

    @Test
    void aLogThatCouldNotBeCreatedIsCreatedWhenResumed() throws Exception {
        FullDisk disk = new FullDisk();
        try (LocalStorage storage = LocalStorage.open(dir, Durability.FSYNC, disk)) {
            ServerlessStorage r = open(storage);
            disk.fill();
            // the first append creates the log file and writes its header: that fails
            assertThat(failureOf(r.appendAsync(utf8("lost")))).hasMessageContaining(FullDisk.NO_SPACE);
            disk.free();
            r.resumeAppends().get(30, TimeUnit.SECONDS);
            r.append(utf8("kept"));
        }
        try (LocalStorage storage = LocalStorage.open(dir, Durability.FSYNC)) {
            ServerlessStorage r = storage.resource(B, K);
            r.loadLatestSnapshot();
            assertThat(strings(drain(r.loadWriteLog()))).isEqualTo(List.of("kept"));
        }
    }

    @Test
    void resumingRequiresTheLock() {
        try (LocalStorage storage = LocalStorage.open(dir, Durability.FSYNC, new FullDisk())) {
            ServerlessStorage r = storage.resource(B, K);
            r.loadLatestSnapshot();
            assertThatThrownBy(r::resumeAppends).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("resumeAppends requires lock()");
        }
    }
}
