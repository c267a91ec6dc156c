package io.sluice.storage;

import static io.sluice.storage.StorageContractTest.drain;
import static io.sluice.storage.StorageContractTest.endOfRecords;
import static io.sluice.storage.StorageContractTest.string;
import static io.sluice.storage.StorageContractTest.strings;
import static io.sluice.storage.StorageContractTest.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.OpenOption;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.sluice.common.Threads;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** What only the file-system implementation has: formats on disk, recovery, group commit, fsync, chunk files. */
@Timeout(120)
class LocalStorageTest {
    private static final String B = "container";
    private static final String K = "7";
    private static final List<String> MESSAGES = List.of("first", "", "third message", "x".repeat(300),
            "the last record");

    @TempDir
    Path dir;

    // ---- space ahead ----

    private static long recordsBytes(List<String> messages) {
        return LogFormat.HEADER_BYTES + messages.stream().mapToLong(m -> LogFormat.recordBytes(utf8(m).length)).sum();
    }

    @Test
    void underFsyncAnOpenLogHasZeroedSpaceAfterItsRecordsAndClosedItHasNone() throws IOException {
        Path file;
        try (LocalStorage s = LocalStorage.open(dir, Durability.FSYNC)) {
            s.writeLog().lock(B, K);
            for (String m : MESSAGES) {
                s.writeLog().appendMessage(B, K, 0, utf8(m));
            }
            file = s.fileWriteLog().logFile(B, K, 0);
            long end = endOfRecords(s.writeLog().logReader(B, K, 0));
            assertThat(end).isEqualTo(recordsBytes(MESSAGES));
            assertThat(Files.size(file)).as("space ahead").isGreaterThan(end);
            byte[] bytes = Files.readAllBytes(file);
            assertThat(Arrays.copyOfRange(bytes, (int) end, bytes.length)).containsOnly(0);
            s.writeLog().unlock(B, K);
        }
        assertThat(Files.size(file)).isEqualTo(recordsBytes(MESSAGES));
    }

    @Test
    void withoutFsyncTheLogKeepsNoSpaceAhead() throws IOException {
        try (LocalStorage s = LocalStorage.open(dir, Durability.OS_BUFFERED)) {
            s.writeLog().lock(B, K);
            for (String m : MESSAGES) {
                s.writeLog().appendMessage(B, K, 0, utf8(m));
            }
            assertThat(Files.size(s.fileWriteLog().logFile(B, K, 0))).isEqualTo(recordsBytes(MESSAGES));
            s.writeLog().unlock(B, K);
        }
    }

    @Test
    void theSpaceACrashLeftIsCutOffByRecoveryAndEveryRecordIsKept() throws IOException {
        Path file = writeMessages(MESSAGES);
        // what a crash leaves: the records, then the zeroed space the open log had
        Files.write(file, new byte[FileWriteLog.RESERVE_BYTES], StandardOpenOption.APPEND);
        long end = recordsBytes(MESSAGES);
        recoverAndCheck(file, MESSAGES, end, FileWriteLog.RESERVE_BYTES, "zeroed space after the records");
    }

    /** A disk with room for files of at most {@code maxFileBytes}: a write past that fails, as ENOSPC does. */
    private record SmallDisk(long maxFileBytes) implements FileOpener {
        @Override
        public FileChannel open(Path file, OpenOption... options) throws IOException {
            return new ForwardingFileChannel(FileChannel.open(file, options)) {
                private void check(long writeEnd) throws IOException {
                    if (writeEnd > maxFileBytes) {
                        throw new IOException(FullDisk.NO_SPACE);
                    }
                }

                @Override
                public int write(ByteBuffer src) throws IOException {
                    check(file.position() + src.remaining());
                    return super.write(src);
                }

                @Override
                public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
                    long n = 0;
                    for (int i = offset; i < offset + length; i++) {
                        n += srcs[i].remaining();
                    }
                    check(file.position() + n);
                    return super.write(srcs, offset, length);
                }

                @Override
                public int write(ByteBuffer src, long position) throws IOException {
                    check(position + src.remaining());
                    return super.write(src, position);
                }
            };
        }
    }

    @Test
    void aDiskWithoutRoomForTheSpaceAheadStillTakesTheRecords() throws IOException {
        List<String> messages = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            messages.add(i + ":" + "x".repeat(1000));
        }
        try (LocalStorage s = LocalStorage.open(dir, Durability.FSYNC, new SmallDisk(64 * 1024))) {
            s.writeLog().lock(B, K);
            for (String m : messages) {
                s.writeLog().appendMessage(B, K, 0, utf8(m));
            }
            assertThat(strings(drain(s.writeLog().logReader(B, K, 0)))).isEqualTo(messages);
            assertThat(Files.size(s.fileWriteLog().logFile(B, K, 0))).as("no space ahead: nothing was left of it")
                    .isEqualTo(recordsBytes(messages));
            s.writeLog().unlock(B, K);
        }
    }

    // ---- torn tails ----

    @Test
    void aTornTailIsTruncatedAtEveryCutAndEveryCorruptByteOfTheLastRecord() throws IOException {
        Path file = writeMessages(MESSAGES);
        byte[] original = Files.readAllBytes(file);
        long goodEnd = original.length - LogFormat.recordBytes(utf8(MESSAGES.getLast()).length);
        List<String> complete = MESSAGES.subList(0, MESSAGES.size() - 1);
        int cases = 0;
        for (int cut = (int) goodEnd + 1; cut < original.length; cut++) {
            Files.write(file, Arrays.copyOf(original, cut));
            recoverAndCheck(file, complete, goodEnd, cut - goodEnd, "cut at " + cut);
            cases++;
        }
        for (int at = (int) goodEnd; at < original.length; at++) {
            byte[] damaged = original.clone();
            damaged[at] ^= 0x5A;
            Files.write(file, damaged);
            recoverAndCheck(file, complete, goodEnd, original.length - goodEnd, "byte " + at + " corrupted");
            cases++;
        }
        assertThat(cases).isEqualTo(2 * (original.length - (int) goodEnd) - 1);
    }

    @Test
    void recordsAfterABadOneAreNotTrusted() throws IOException {
        Path file = writeMessages(MESSAGES);
        byte[] damaged = Files.readAllBytes(file);
        long secondStart = LogFormat.HEADER_BYTES + LogFormat.recordBytes(utf8(MESSAGES.get(0)).length);
        long thirdStart = secondStart + LogFormat.recordBytes(0);
        // the third record's payload: records 4 and 5 after it are whole, but no longer trusted
        damaged[(int) thirdStart + LogFormat.RECORD_OVERHEAD + 2] ^= 1;
        Files.write(file, damaged);
        recoverAndCheck(file, MESSAGES.subList(0, 2), thirdStart, damaged.length - thirdStart, "third record bad");
    }

    @Test
    void aTornHeaderIsRewrittenAndAForeignFileIsRefused() throws IOException {
        try (LocalStorage s = LocalStorage.open(dir, Durability.FSYNC)) {
            Path file = s.fileWriteLog().logFile(B, K, 0);
            Files.createDirectories(file.getParent());
            Files.write(file, new byte[] {'S', 'L', 'W'});
            s.writeLog().lock(B, K);
            s.writeLog().appendMessage(B, K, 0, utf8("after torn header"));
            assertThat(s.fileWriteLog().droppedTailBytes()).isEqualTo(3);
            assertThat(strings(drain(s.writeLog().logReader(B, K, 0)))).containsExactly("after torn header");

            Path foreign = s.fileWriteLog().logFile(B, K, 1);
            byte[] notOurs = utf8("this is not a write log at all");
            Files.write(foreign, notOurs);
            assertThatThrownBy(() -> s.writeLog().appendMessage(B, K, 1, utf8("x")))
                    .isInstanceOf(CorruptedDataException.class).hasMessageContaining("is not a Sluice write log");
            assertThat(Files.readAllBytes(foreign)).isEqualTo(notOurs);
            assertThatThrownBy(() -> s.writeLog().logReader(B, K, 1)).isInstanceOf(CorruptedDataException.class);
            s.writeLog().unlock(B, K);
        }
    }

    // ---- snapshots ----

    @Test
    void aSnapshotFailingItsChecksumIsDetected() throws IOException {
        try (LocalStorage s = LocalStorage.open(dir, Durability.FSYNC)) {
            byte[] payload = new byte[100_000];
            Arrays.fill(payload, (byte) 7);
            s.snapshots().writeTo(B, K, 4, out -> out.write(payload));
            Path file = s.fileSnapshots().snapshotFile(B, K, 4);
            byte[] good = Files.readAllBytes(file);
            assertThat(good).hasSize(FileSnapshotStore.HEADER_BYTES + payload.length + FileSnapshotStore.TRAILER_BYTES);

            byte[] flipped = good.clone();
            flipped[FileSnapshotStore.HEADER_BYTES + 54_321] ^= 0x10;
            Files.write(file, flipped);
            assertThatThrownBy(() -> s.snapshots().read(B, K, 4)).isInstanceOf(CorruptedDataException.class)
                    .hasMessageContaining("failed its checksum");
            ServerlessStorage r = s.resource(B, K);
            assertThatThrownBy(r::loadLatestSnapshot).isInstanceOf(CorruptedDataException.class);

            Files.write(file, Arrays.copyOf(good, good.length - 1));
            assertThatThrownBy(() -> s.snapshots().read(B, K, 4)).isInstanceOf(CorruptedDataException.class)
                    .hasMessageContaining("bad trailer");
            Files.write(file, Arrays.copyOf(good, 10));
            assertThatThrownBy(() -> s.snapshots().read(B, K, 4)).isInstanceOf(CorruptedDataException.class)
                    .hasMessageContaining("too short");
            byte[] badHeader = good.clone();
            badHeader[0] = 'X';
            Files.write(file, badHeader);
            assertThatThrownBy(() -> s.snapshots().read(B, K, 4)).isInstanceOf(CorruptedDataException.class)
                    .hasMessageContaining("bad header");

            Files.write(file, good);
            try (InputStream in = s.snapshots().read(B, K, 4)) {
                assertThat(in.readAllBytes()).isEqualTo(payload);
            }
        }
    }

    @Test
    void snapshotsLeaveNoTemporaryFilesBehind() throws IOException {
        try (LocalStorage s = LocalStorage.open(dir, Durability.FSYNC)) {
            s.snapshots().writeTo(B, K, 0, out -> out.write(1));
            try {
                s.snapshots().writeTo(B, K, 1, out -> {
                    throw new IOException("boom");
                });
            } catch (StorageException expected) {
                // the failed write must leave nothing
            }
            try (var files = Files.list(s.fileSnapshots().snapshotFile(B, K, 0).getParent())) {
                assertThat(files.map(f -> f.getFileName().toString())).containsExactly("00000000000000000000.snap");
            }
        }
    }

    // ---- group commit and durability ----

    @Test
    void groupCommitCoversEveryAppendThatArrivedMeanwhile() throws Exception {
        int appenders = 64;
        int perAppender = 3;
        CountDownLatch allEnqueued = new CountDownLatch(appenders);
        AtomicBoolean firstForce = new AtomicBoolean(true);
        // hold the first commit until every appender has enqueued its first message, as a slow disk would
        FileWriteLog.ForceHook hook = () -> {
            if (firstForce.getAndSet(false)) {
                await(allEnqueued);
            }
        };
        try (LocalStorage s = LocalStorage.open(dir, Durability.FSYNC, LocalStorage.DEFAULT_CHUNK_ROLLOVER_BYTES, hook);
             ExecutorService pool = Threads.perTaskExecutor("test-appender-")) {
            s.writeLog().lock(B, K);
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < appenders; t++) {
                int thread = t;
                done.add(pool.submit(() -> {
                    CompletableFuture<Void> first = s.writeLog().appendMessageAsync(B, K, 0, utf8(thread + ":0"));
                    allEnqueued.countDown();
                    first.join();
                    for (int i = 1; i < perAppender; i++) {
                        s.writeLog().appendMessage(B, K, 0, utf8(thread + ":" + i));
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get(60, TimeUnit.SECONDS);
            }
            // creating the log forces it and its directory (2); the 64 first appends take at most 2 commits (the
            // hook guarantees it), the 128 later ones at most one each: fewer fsyncs than appends, whatever the timing
            assertThat(s.fileWriteLog().fsyncCount()).isBetween(3L, 2L + 2 + (perAppender - 1L) * appenders)
                    .isLessThan((long) appenders * perAppender);
            List<String> all = strings(drain(s.writeLog().logReader(B, K, 0)));
            assertThat(all).hasSize(appenders * perAppender);
            for (int t = 0; t < appenders; t++) {
                String prefix = t + ":";
                assertThat(all.stream().filter(m -> m.startsWith(prefix)).toList())
                        .as("appender %d's messages in its order", t)
                        .containsExactly(prefix + 0, prefix + 1, prefix + 2);
            }
            s.writeLog().unlock(B, K);
        }
    }

    @Test
    void aBurstOfConcurrentAppendsTakesAtMostTwoCommits() throws Exception {
        int appenders = 100;
        CountDownLatch allEnqueued = new CountDownLatch(appenders);
        AtomicBoolean firstForce = new AtomicBoolean(true);
        FileWriteLog.ForceHook hook = () -> {
            if (firstForce.getAndSet(false)) {
                await(allEnqueued);
            }
        };
        try (LocalStorage s = LocalStorage.open(dir, Durability.FSYNC, LocalStorage.DEFAULT_CHUNK_ROLLOVER_BYTES, hook);
             ExecutorService pool = Threads.perTaskExecutor("test-appender-")) {
            s.writeLog().lock(B, K);
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < appenders; t++) {
                int thread = t;
                done.add(pool.submit(() -> {
                    CompletableFuture<Void> f = s.writeLog().appendMessageAsync(B, K, 0, utf8("m" + thread));
                    allEnqueued.countDown();
                    f.join();
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get(60, TimeUnit.SECONDS);
            }
            // 2 for creating the log, then the first batch (held by the hook) and one batch for all the rest (or a
            // single batch, if all 100 were queued before the log was open)
            assertThat(s.fileWriteLog().fsyncCount()).isBetween(3L, 4L);
            assertThat(drain(s.writeLog().logReader(B, K, 0))).hasSize(appenders);
            s.writeLog().unlock(B, K);
        }
    }

    @Test
    void aReaderDoesNotSeeAnAppendBeforeItIsDurable() throws Exception {
        CountDownLatch forcing = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicBoolean firstForce = new AtomicBoolean(true);
        FileWriteLog.ForceHook hook = () -> {
            if (firstForce.getAndSet(false)) {
                forcing.countDown();
                await(release);
            }
        };
        try (LocalStorage s = LocalStorage.open(dir, Durability.FSYNC, LocalStorage.DEFAULT_CHUNK_ROLLOVER_BYTES, hook)) {
            s.writeLog().lock(B, K);
            CompletableFuture<Void> done = s.writeLog().appendMessageAsync(B, K, 0, utf8("pending"));
            await(forcing);
            try (LogReader reader = s.writeLog().logReader(B, K, 0)) {
                // written to the file, but not yet forced: neither the ack nor a reader may see it
                assertThat(lengthFieldAt(s.fileWriteLog().logFile(B, K, 0), LogFormat.HEADER_BYTES)).isEqualTo(7);
                assertThat(done).isNotDone();
                assertThat(reader.next()).isNull();
                release.countDown();
                done.get(10, TimeUnit.SECONDS);
                assertThat(reader.next()).isEqualTo(utf8("pending"));
            }
            s.writeLog().unlock(B, K);
        }
    }

    @Test
    void osBufferedAppendsDoNotForce() {
        try (LocalStorage s = LocalStorage.open(dir, Durability.OS_BUFFERED)) {
            s.writeLog().lock(B, K);
            for (int i = 0; i < 20; i++) {
                s.writeLog().appendMessage(B, K, 0, utf8("m" + i));
            }
            assertThat(s.fileWriteLog().fsyncCount()).isZero();
            assertThat(drain(s.writeLog().logReader(B, K, 0))).hasSize(20);
            s.writeLog().unlock(B, K);
        }
        try (LocalStorage s = LocalStorage.open(dir, Durability.FSYNC)) {
            assertThat(drain(s.writeLog().logReader(B, K, 0))).hasSize(20);
        }
    }

    // ---- locks within one JVM ----

    @Test
    void twoStorageInstancesOnOneDirectoryExcludeEachOther() throws IOException {
        try (LocalStorage first = LocalStorage.open(dir, Durability.FSYNC);
             LocalStorage second = LocalStorage.open(dir, Durability.FSYNC)) {
            first.writeLog().lock(B, K);
            assertThatThrownBy(() -> second.writeLog().lock(B, K)).isInstanceOf(ResourceLockedException.class)
                    .hasMessageContaining("another storage instance in this process");
            assertThatThrownBy(() -> first.writeLog().lock(B, K)).isInstanceOf(ResourceLockedException.class)
                    .hasMessageContaining("already locked by this storage");
            // the failed attempts must not have disturbed the holder
            first.writeLog().appendMessage(B, K, 0, utf8("still mine"));
            Path lockFile = first.fileWriteLog().logFile(B, K, 0).resolveSibling(FileWriteLog.LOCK_FILE);
            assertThat(Files.readString(lockFile)).isEqualTo("pid " + ProcessHandle.current().pid() + "\n");
            first.writeLog().unlock(B, K);
            assertThat(lockFile).exists();
            second.writeLog().lock(B, K);
            second.writeLog().unlock(B, K);
        }
    }

    @Test
    void closingTheStorageReleasesItsLocksAfterPendingAppends() {
        LocalStorage s = LocalStorage.open(dir, Durability.FSYNC);
        s.writeLog().lock(B, K);
        List<CompletableFuture<Void>> pending = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            pending.add(s.writeLog().appendMessageAsync(B, K, 0, utf8("m" + i)));
        }
        s.close();
        assertThat(pending).allMatch(f -> f.isDone() && !f.isCompletedExceptionally());
        assertThatThrownBy(() -> s.writeLog().lock(B, K)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("closed");
        try (LocalStorage again = LocalStorage.open(dir, Durability.FSYNC)) {
            again.writeLog().lock(B, K);
            assertThat(drain(again.writeLog().logReader(B, K, 0))).hasSize(50);
            again.writeLog().unlock(B, K);
        }
    }

    // ---- layout ----

    @Test
    void filesAreWhereTheDocumentationSays() throws IOException {
        try (LocalStorage s = LocalStorage.open(dir, Durability.FSYNC)) {
            ServerlessStorage r = s.resource("scope/stream", "seg 1");
            r.loadLatestSnapshot();
            drain(r.loadWriteLog());
            r.lock();
            drain(r.loadWriteLog());
            r.append(utf8("a"));
            r.incrementWriteLogVersion();
            r.append(utf8("b"));
            r.snapshotTo(out -> out.write(utf8("a")));
            r.unlock();
            s.chunks().write(42, ByteBuffer.wrap(utf8("data")));
        }
        Path resource = dir.resolve("resources").resolve("scope%2Fstream").resolve("seg%201");
        try (var files = Files.list(resource)) {
            assertThat(files.map(f -> f.getFileName().toString()))
                    .containsExactlyInAnyOrder("lock", "00000000000000000001.log", "00000000000000000000.snap");
        }
        assertThat(dir.resolve("chunks").resolve("42").resolve("00000000000000000000.chunk")).hasContent("data");
        byte[] log = Files.readAllBytes(resource.resolve("00000000000000000001.log"));
        ByteBuffer buf = ByteBuffer.wrap(log);
        assertThat(buf.getInt()).isEqualTo(LogFormat.MAGIC);
        assertThat(buf.getInt()).isEqualTo(LogFormat.FORMAT_VERSION);
        assertThat(buf.getInt()).isEqualTo(1);
        assertThat(buf.getInt()).isEqualTo(LogFormat.crc(1, utf8("b"), 0, 1));
        assertThat(buf.get()).isEqualTo((byte) 'b');
        assertThat(buf.hasRemaining()).isFalse();
    }

    // ---- chunks ----

    @Test
    void chunksRollOverAndANewProcessStartsANewChunk() {
        ChunkRef a;
        ChunkRef b;
        ChunkRef c;
        ChunkRef big;
        try (LocalStorage s = LocalStorage.open(dir, Durability.FSYNC, 100)) {
            a = s.chunks().write(3, ByteBuffer.wrap(new byte[40]));
            b = s.chunks().write(3, ByteBuffer.wrap(new byte[40]));
            c = s.chunks().write(3, ByteBuffer.wrap(new byte[40]));
            big = s.chunks().write(3, ByteBuffer.wrap(new byte[250]));
        }
        assertThat(List.of(a.chunk(), a.offset(), b.chunk(), b.offset())).containsExactly(0L, 0L, 0L, 40L);
        assertThat(List.of(c.chunk(), c.offset())).containsExactly(1L, 0L);
        assertThat(List.of(big.chunk(), big.offset(), (long) big.length())).containsExactly(2L, 0L, 250L);
        try (LocalStorage s = LocalStorage.open(dir, Durability.FSYNC, 100)) {
            ChunkRef next = s.chunks().write(3, ByteBuffer.wrap(new byte[1]));
            assertThat(next.chunk()).isEqualTo(3);
            assertThat(s.chunks().read(big, 200, 50).remaining()).isEqualTo(50);
        }
    }

    @Test
    void concurrentChunkWritesGetDisjointRangesAndReadBack() throws Exception {
        try (LocalStorage s = LocalStorage.open(dir, Durability.OS_BUFFERED, 4096);
             ExecutorService pool = Threads.perTaskExecutor("test-chunk-writer-")) {
            List<Future<List<ChunkRef>>> results = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                int thread = t;
                results.add(pool.submit(() -> {
                    List<ChunkRef> refs = new ArrayList<>();
                    for (int i = 0; i < 50; i++) {
                        refs.add(s.chunks().write(9, ByteBuffer.wrap(utf8("t" + thread + "-" + i + "|"))));
                    }
                    return refs;
                }));
            }
            Set<String> ranges = new HashSet<>();
            for (int t = 0; t < 8; t++) {
                List<ChunkRef> refs = results.get(t).get(60, TimeUnit.SECONDS);
                for (int i = 0; i < refs.size(); i++) {
                    ChunkRef ref = refs.get(i);
                    assertThat(ranges.add(ref.chunk() + ":" + ref.offset())).isTrue();
                    assertThat(string(s.chunks().read(ref, 0, ref.length()))).isEqualTo("t" + t + "-" + i + "|");
                }
            }
        }
    }

    // ---- helpers ----

    /** Writes messages to log 0 of (B, K) and closes the storage; returns the log file. */
    private Path writeMessages(List<String> messages) {
        try (LocalStorage s = LocalStorage.open(dir, Durability.FSYNC)) {
            s.writeLog().lock(B, K);
            for (String m : messages) {
                s.writeLog().appendMessage(B, K, 0, utf8(m));
            }
            s.writeLog().unlock(B, K);
            return s.fileWriteLog().logFile(B, K, 0);
        }
    }

    /** Opens the damaged log as a restarted process would, and checks what recovery kept and dropped. */
    private void recoverAndCheck(Path file, List<String> expected, long goodEnd, long dropped, String what)
            throws IOException {
        try (LocalStorage s = LocalStorage.open(dir, Durability.FSYNC)) {
            // a reader stops at the last good record, before any recovery
            assertThat(strings(drain(s.writeLog().logReader(B, K, 0)))).as(what).isEqualTo(expected);
            s.writeLog().lock(B, K);
            s.writeLog().appendMessage(B, K, 0, utf8("new"));
            assertThat(s.fileWriteLog().droppedTailBytes()).as(what).isEqualTo(dropped);
            List<String> withNew = new ArrayList<>(expected);
            withNew.add("new");
            assertThat(strings(drain(s.writeLog().logReader(B, K, 0)))).as(what).isEqualTo(withNew);
            s.writeLog().unlock(B, K);
        }
        // closed, the log keeps no space past its last record
        assertThat(Files.size(file)).as(what).isEqualTo(goodEnd + LogFormat.recordBytes(3));
    }

    /** @return the int32 at {@code offset} of a file (a record's length field) */
    private static int lengthFieldAt(Path file, long offset) throws IOException {
        try (FileChannel ch = FileChannel.open(file)) {
            ByteBuffer b = ByteBuffer.allocate(Integer.BYTES);
            assertThat(FileUtil.readFully(ch, b, offset)).as("the file holds a length field at " + offset).isTrue();
            return b.flip().getInt();
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            if (!latch.await(30, TimeUnit.SECONDS)) {
                throw new AssertionError("latch not released in 30 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
