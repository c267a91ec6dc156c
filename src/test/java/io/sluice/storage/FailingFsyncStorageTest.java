package io.sluice.storage;

import static io.sluice.storage.StorageContractTest.drain;
import static io.sluice.storage.StorageContractTest.endOfRecords;
import static io.sluice.storage.StorageContractTest.string;
import static io.sluice.storage.StorageContractTest.strings;
import static io.sluice.storage.StorageContractTest.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;

import io.sluice.common.Await;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The local storage when {@code fsync} fails ({@link FailingFsync}, which loses the unforced bytes and reports the
 * failure once, as Linux does): the appends the failed force covered fail and are cut from the log, even though a
 * second force would succeed; the log accepts appends again only after a resume has checked that forcing works; a
 * snapshot whose force fails is not stored and the logs it would cover stay; and a chunk write in flight while another
 * write's force failed fails too. After a restart on the same directory, exactly what was acknowledged is there.
 */
@Timeout(60)
class FailingFsyncStorageTest {
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
        } catch (TimeoutException e) {
            throw new AssertionError("neither failed nor succeeded in time", e);
        }
        throw new AssertionError("succeeded although its fsync failed");
    }

    private static boolean isLog(Path p) {
        return p.getFileName().toString().endsWith(LogFormat.SUFFIX);
    }

    /** What a fresh storage (no fault injection) on the same directory reads: the snapshot's text, then the log. */
    private List<String> afterRestart() throws IOException {
        try (LocalStorage storage = LocalStorage.open(dir, Durability.FSYNC)) {
            ServerlessStorage r = storage.resource(B, K);
            List<String> out = new java.util.ArrayList<>();
            var snap = r.loadLatestSnapshot();
            if (snap.isPresent()) {
                try (var in = snap.get()) {
                    out.add("snapshot:" + new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8));
                }
            }
            out.addAll(strings(drain(r.loadWriteLog())));
            r.lock();
            out.addAll(strings(drain(r.loadWriteLog())));
            assertThat(storage.fileWriteLog().droppedTailBytes()).as("no torn or zeroed tail left to recover")
                    .isZero();
            return out;
        }
    }

    @Test
    void anAppendWhoseFsyncFailedOnceIsNotAcknowledgedAlthoughTheNextFsyncWouldSucceed() throws Exception {
        FailingFsync disk = new FailingFsync();
        try (LocalStorage storage = LocalStorage.open(dir, Durability.FSYNC, disk)) {
            ServerlessStorage r = open(storage);
            r.append(utf8("acknowledged 1"));
            Path log = storage.fileWriteLog().logFile(B, K, r.writeLogVersion());
            long goodLength = endOfRecords(storage.writeLog().logReader(B, K, r.writeLogVersion()));

            disk.failOnce(FailingFsyncStorageTest::isLog);
            Throwable failed = failureOf(r.appendAsync(utf8("lost")));
            assertThat(failed).isInstanceOf(StorageException.class).hasMessageContaining(FailingFsync.EIO)
                    .hasMessageContaining("accepts no more appends until resumeAppends()");
            assertThat(disk.lostBytes()).as("the failed force dropped the record's bytes").isPositive();
            assertThat(Files.size(log)).as("the lost record was cut off at once").isEqualTo(goodLength);
            // forcing works again by itself, but the log still refuses until its owner has seen the failure
            assertThat(failureOf(r.appendAsync(utf8("after the failure, before resuming"))))
                    .hasMessageContaining(FailingFsync.EIO);
            r.resumeAppends().get(30, TimeUnit.SECONDS);
            r.append(utf8("acknowledged 2"));
        }
        assertThat(afterRestart()).containsExactly("acknowledged 1", "acknowledged 2");
    }

    @Test
    void whileFsyncKeepsFailingTheLogStaysClosedAndOpensOnceItWorks() throws Exception {
        FailingFsync disk = new FailingFsync();
        try (LocalStorage storage = LocalStorage.open(dir, Durability.FSYNC, disk)) {
            ServerlessStorage r = open(storage);
            r.append(utf8("acknowledged 1"));
            disk.fail(FailingFsyncStorageTest::isLog);
            // several appends in one batch or several: every one fails, none is acknowledged
            List<CompletableFuture<Void>> batch = Stream.of("lost 1", "lost 2", "lost 3")
                    .map(s -> r.appendAsync(utf8(s))).toList();
            for (CompletableFuture<Void> f : batch) {
                assertThat(failureOf(f)).isInstanceOf(StorageException.class).hasMessageContaining(FailingFsync.EIO);
            }
            for (int i = 0; i < 3; i++) {
                assertThat(failureOf(r.resumeAppends())).as("resuming while fsync fails")
                        .hasMessageContaining("still cannot be written").hasMessageContaining(FailingFsync.EIO);
            }
            int failedForces = disk.failed();
            assertThat(failedForces).isGreaterThanOrEqualTo(4);

            disk.heal();
            r.resumeAppends().get(30, TimeUnit.SECONDS);
            r.append(utf8("acknowledged 2"));
            r.append(utf8("acknowledged 3"));
        }
        assertThat(afterRestart()).containsExactly("acknowledged 1", "acknowledged 2", "acknowledged 3");
    }

    /**
     * A new log file whose directory entry could not be forced could vanish in a crash with everything in it: before
     * the fix the failure of the directory's fsync was logged at DEBUG and ignored, and the appends acknowledged.
     */
    @Test
    void appendsToANewLogFailWhileItsDirectoryCannotBeForcedAndSucceedOnceItCan() throws Exception {
        FailingFsync disk = new FailingFsync();
        try (LocalStorage storage = LocalStorage.open(dir, Durability.FSYNC, disk)) {
            ServerlessStorage r = open(storage);
            disk.fail(Files::isDirectory);
            // the first append creates the log file
            assertThat(failureOf(r.appendAsync(utf8("lost")))).isInstanceOf(StorageException.class)
                    .hasMessageContaining(FailingFsync.EIO);
            assertThat(disk.failedFileContaining(K)).as("the resource directory's fsync failed").isTrue();
            assertThat(failureOf(r.resumeAppends())).hasMessageContaining("still cannot be written");
            disk.heal();
            r.resumeAppends().get(30, TimeUnit.SECONDS);
            r.append(utf8("kept"));
        }
        assertThat(afterRestart()).containsExactly("kept");
    }

    @Test
    void aSnapshotWhoseDirectoryCannotBeForcedIsNotTakenAndTheLogsStay() throws Exception {
        FailingFsync disk = new FailingFsync();
        try (LocalStorage storage = LocalStorage.open(dir, Durability.FSYNC, disk)) {
            ServerlessStorage r = open(storage);
            r.append(utf8("a"));
            r.incrementWriteLogVersion();
            r.append(utf8("b"));
            disk.fail(Files::isDirectory);
            assertThatThrownBy(() -> r.snapshot(new java.io.ByteArrayInputStream(utf8("a"))))
                    .isInstanceOf(StorageException.class).hasMessageContaining(FailingFsync.EIO);
            assertThat(storage.writeLog().list(B, K)).as("the logs the snapshot would cover stay").hasSize(2);
            disk.heal();
            r.snapshot(new java.io.ByteArrayInputStream(utf8("a")));
            assertThat(storage.writeLog().list(B, K)).as("the retried snapshot replaced the first log").hasSize(1);
        }
        assertThat(afterRestart()).containsExactly("snapshot:a", "b");
    }

    @Test
    void aSnapshotWhoseFsyncFailsIsNotStoredAndTheLogsItWouldCoverStay() throws Exception {
        FailingFsync disk = new FailingFsync();
        try (LocalStorage storage = LocalStorage.open(dir, Durability.FSYNC, disk)) {
            ServerlessStorage r = open(storage);
            r.append(utf8("a"));
            r.append(utf8("b"));
            r.incrementWriteLogVersion();
            r.append(utf8("c"));
            disk.fail(p -> p.getFileName().toString().contains(FileSnapshotStore.SUFFIX));
            assertThatThrownBy(() -> r.snapshot(new java.io.ByteArrayInputStream(utf8("a b"))))
                    .isInstanceOf(StorageException.class).hasMessageContaining("cannot write snapshot")
                    .hasMessageContaining(FailingFsync.EIO);
            assertThat(storage.snapshots().list(B, K)).as("no snapshot stored").isEmpty();
            try (Stream<Path> files = Files.walk(dir)) {
                assertThat(files.map(Path::toString).filter(f -> f.endsWith(".tmp")).toList())
                        .as("the unfinished snapshot file is removed").isEmpty();
            }
            assertThat(storage.writeLog().list(B, K)).as("the logs the snapshot would cover stay").hasSize(2);
            r.append(utf8("d"));
        }
        assertThat(afterRestart()).containsExactly("a", "b", "c", "d");

        // once fsync works, the same snapshot is taken and replaces the logs it covers
        try (LocalStorage storage = LocalStorage.open(dir, Durability.FSYNC, disk)) {
            disk.heal();
            ServerlessStorage r = open(storage);
            r.incrementWriteLogVersion();
            r.snapshot(new java.io.ByteArrayInputStream(utf8("a b c d")));
            r.append(utf8("e"));
        }
        assertThat(afterRestart()).containsExactly("snapshot:a b c d", "e");
    }

    @Test
    void aChunkWriteFailsWhenItsFsyncFailsAndTheNextWriteGoesToANewChunk() {
        FailingFsync disk = new FailingFsync();
        ChunkRef kept;
        ChunkRef later;
        try (LocalStorage storage = LocalStorage.open(dir, Durability.FSYNC, disk)) {
            kept = storage.chunks().write(7, ByteBuffer.wrap(utf8("kept")));
            disk.failOnce(p -> p.getFileName().toString().endsWith(FileChunkStore.SUFFIX));
            assertThatThrownBy(() -> storage.chunks().write(7, ByteBuffer.wrap(utf8("lost"))))
                    .isInstanceOf(StorageException.class).hasMessageContaining(FailingFsync.EIO);
            later = storage.chunks().write(7, ByteBuffer.wrap(utf8("later")));
            assertThat(later.chunk()).as("a chunk file whose fsync failed takes no more writes")
                    .isNotEqualTo(kept.chunk());
        }
        try (LocalStorage storage = LocalStorage.open(dir, Durability.FSYNC)) {
            assertThat(string(storage.chunks().read(kept, 0, 4))).isEqualTo("kept");
            assertThat(string(storage.chunks().read(later, 0, 5))).isEqualTo("later");
        }
    }

    /**
     * Two writers of one chunk file: the first one's force fails after the second has written, so the kernel lost the
     * second one's bytes too, and the second one's force succeeds (the error is reported once). The second write must
     * fail all the same: before the fix it returned a reference to zeros.
     */
    @Test
    void aChunkWriteInFlightWhileAnotherWritesFsyncFailedFailsToo() throws Exception {
        FailingFsync disk = new FailingFsync();
        try (LocalStorage storage = LocalStorage.open(dir, Durability.FSYNC, disk);
             var threads = java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor()) {
            storage.chunks().write(9, ByteBuffer.wrap(utf8("first")));   // the chunk file exists
            int writesBefore = disk.writes();
            java.util.concurrent.atomic.AtomicReference<Thread> firstWriter = new java.util.concurrent.atomic.AtomicReference<>();
            disk.beforeForce(() -> {
                if (Thread.currentThread() == firstWriter.get()) {
                    // the first writer's force waits until the second writer has written
                    Await.until("the second writer wrote", () -> disk.writes() >= writesBefore + 2);
                    disk.failOnce(p -> p.getFileName().toString().endsWith(FileChunkStore.SUFFIX));
                } else {
                    Await.until("the first writer's force failed", () -> disk.failed() >= 1);
                }
            });
            CompletableFuture<ChunkRef> first = CompletableFuture.supplyAsync(() -> {
                firstWriter.set(Thread.currentThread());
                return storage.chunks().write(9, ByteBuffer.wrap(utf8("one-one-one")));
            }, threads);
            Await.until("the first writer wrote", () -> disk.writes() >= writesBefore + 1);
            CompletableFuture<ChunkRef> second = CompletableFuture.supplyAsync(
                    () -> storage.chunks().write(9, ByteBuffer.wrap(utf8("two-two-two"))), threads);
            // the second writer's force runs after the first one's failed (it waits for it in the hook)
            assertThatThrownBy(() -> first.get(30, TimeUnit.SECONDS)).hasCauseInstanceOf(StorageException.class)
                    .hasMessageContaining(FailingFsync.EIO);
            assertThat(disk.lostBytes()).as("both writers' bytes were lost").isGreaterThanOrEqualTo(22);
            assertThatThrownBy(() -> second.get(30, TimeUnit.SECONDS)).as("acknowledged zeros")
                    .hasCauseInstanceOf(StorageException.class)
                    .hasMessageContaining("an fsync of the owner's chunks failed while they were being written");
        }
    }
}
