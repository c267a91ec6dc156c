package io.sluice.storage;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantReadWriteLock;

import io.sluice.common.Threads;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The storage contract, run against every implementation: the call order of {@link ServerlessStorage}, replay of
 * snapshot + log, the services' basic behaviour, name validation and the chunk store.
 */
@Timeout(60)
abstract class StorageContractTest {
    static final String BUCKET = "container";
    static final String KEY = "3";

    Storage storage;

    /** @return a new, empty storage */
    abstract Storage newStorage();

    /**
     * @return a storage over the same data as {@code old}, as a restarted process would see it ({@code old} may be
     *         closed by this)
     */
    abstract Storage reopen(Storage old);

    @BeforeEach
    void setUp() {
        storage = newStorage();
    }

    @AfterEach
    void tearDown() {
        storage.close();
    }

    // ---- the normal sequence ----

    @Test
    void normalSequenceOnEmptyResource() {
        ServerlessStorage r = storage.resource(BUCKET, KEY);
        assertThat(r.loadLatestSnapshot()).isEmpty();
        assertThat(drain(r.loadWriteLog())).isEmpty();
        r.lock();
        assertThat(r.isLocked()).isTrue();
        assertThat(drain(r.loadWriteLog())).isEmpty();
        assertThat(r.writeLogVersion()).isZero();
        r.append(utf8("a"));
        r.appendAsync(utf8("b")).orTimeout(10, TimeUnit.SECONDS).join();
        assertThat(storage.writeLog().list(BUCKET, KEY)).containsExactly(0L);
        r.unlock();
        assertThat(r.isLocked()).isFalse();

        ServerlessStorage r2 = storage.resource(BUCKET, KEY);
        assertThat(r2.loadLatestSnapshot()).isEmpty();
        assertThat(strings(drain(r2.loadWriteLog()))).containsExactly("a", "b");
    }

    @Test
    void loadWriteLogReturnsOnlyMessagesNotReturnedBefore() {
        ServerlessStorage writer = loadedAndLocked();
        writer.append(utf8("m1"));

        ServerlessStorage follower = storage.resource(BUCKET, KEY);
        follower.loadLatestSnapshot();
        assertThat(strings(drain(follower.loadWriteLog()))).containsExactly("m1");
        assertThat(drain(follower.loadWriteLog())).isEmpty();

        writer.append(utf8("m2"));
        writer.append(utf8("m3"));
        assertThat(strings(drain(follower.loadWriteLog()))).containsExactly("m2", "m3");
        assertThat(drain(follower.loadWriteLog())).isEmpty();

        // a message counts as returned once next() returned it: a half-read reader resumes after it
        writer.append(utf8("m4"));
        writer.append(utf8("m5"));
        try (LogReader partial = follower.loadWriteLog()) {
            assertThat(new String(partial.next(), UTF_8)).isEqualTo("m4");
        }
        assertThat(strings(drain(follower.loadWriteLog()))).containsExactly("m5");

        // the handover: after the writer lets go, the follower's load after lock picks up the rest
        writer.append(utf8("m6"));
        writer.unlock();
        follower.lock();
        assertThat(strings(drain(follower.loadWriteLog()))).containsExactly("m6");
        follower.append(utf8("m7"));
        follower.unlock();

        ServerlessStorage third = storage.resource(BUCKET, KEY);
        third.loadLatestSnapshot();
        assertThat(strings(drain(third.loadWriteLog()))).containsExactly("m1", "m2", "m3", "m4", "m5", "m6", "m7");
    }

    @Test
    void snapshotIsStoredAtThePreviousVersionAndDeletesTheLogsItCovers() throws IOException {
        ServerlessStorage r = loadedAndLocked();
        r.append(utf8("a"));
        assertThat(r.incrementWriteLogVersion()).isEqualTo(1);
        r.append(utf8("b"));
        assertThat(storage.writeLog().list(BUCKET, KEY)).containsExactly(0L, 1L);

        assertThat(r.snapshot(new ByteArrayInputStream(utf8("state-after-a")))).isZero();
        assertThat(storage.snapshots().list(BUCKET, KEY)).containsExactly(0L);
        assertThat(storage.writeLog().list(BUCKET, KEY)).containsExactly(1L);
        assertThat(r.snapshotVersion()).isZero();

        r.append(utf8("c"));
        assertThat(r.incrementWriteLogVersion()).isEqualTo(2);
        assertThat(r.snapshotTo(out -> out.write(utf8("state-after-c")))).isEqualTo(1);
        // the older snapshot is gone too: without its logs it could not be replayed
        assertThat(storage.snapshots().list(BUCKET, KEY)).containsExactly(1L);
        assertThat(storage.writeLog().list(BUCKET, KEY)).isEmpty();
        r.append(utf8("d"));
        r.unlock();

        ServerlessStorage next = storage.resource(BUCKET, KEY);
        Optional<InputStream> snap = next.loadLatestSnapshot();
        assertThat(snap).isPresent();
        try (InputStream in = snap.get()) {
            assertThat(new String(in.readAllBytes(), UTF_8)).isEqualTo("state-after-c");
        }
        assertThat(next.snapshotVersion()).isEqualTo(1);
        assertThat(strings(drain(next.loadWriteLog()))).containsExactly("d");
    }

    @Test
    void severalLogsNewerThanTheSnapshotAreReadInOrder() {
        // a crash between incrementWriteLogVersion and snapshot leaves several logs after the snapshot
        ServerlessStorage r = loadedAndLocked();
        r.append(utf8("a"));
        r.incrementWriteLogVersion();
        r.append(utf8("b"));
        r.incrementWriteLogVersion();
        r.append(utf8("c"));
        r.append(utf8("d"));
        r.unlock();
        assertThat(storage.writeLog().list(BUCKET, KEY)).containsExactly(0L, 1L, 2L);

        ServerlessStorage next = storage.resource(BUCKET, KEY);
        next.loadLatestSnapshot();
        assertThat(strings(drain(next.loadWriteLog()))).containsExactly("a", "b", "c", "d");
        next.lock();
        assertThat(drain(next.loadWriteLog())).isEmpty();
        // appends continue in the newest log; the next snapshot covers all three
        assertThat(next.writeLogVersion()).isEqualTo(2);
        next.append(utf8("e"));
        next.incrementWriteLogVersion();
        assertThat(next.snapshot(new ByteArrayInputStream(utf8("abcde")))).isEqualTo(2);
        assertThat(storage.writeLog().list(BUCKET, KEY)).isEmpty();
        next.unlock();
    }

    @Test
    void snapshotPlusLogReplayEqualsTheStateBefore() {
        KvStateMachine kv = new KvStateMachine();
        ServerlessStorage r = storage.resource(BUCKET, KEY);
        kv.load(r);
        r.lock();
        kv.replay(r.loadWriteLog());
        for (int i = 0; i < 50; i++) {
            kv.put(r, "k" + (i % 17), "v" + i);
        }
        r.incrementWriteLogVersion();
        byte[] captured = kv.snapshotBytes();
        for (int i = 50; i < 80; i++) {
            kv.put(r, "k" + (i % 23), "w" + i);
        }
        r.snapshot(new ByteArrayInputStream(captured));
        for (int i = 80; i < 100; i++) {
            kv.put(r, "x" + i, "y" + i);
        }
        Map<String, String> expected = Map.copyOf(kv.map);
        r.unlock();
        storage = reopen(storage);

        KvStateMachine restored = new KvStateMachine();
        ServerlessStorage again = storage.resource(BUCKET, KEY);
        restored.load(again);
        again.lock();
        restored.replay(again.loadWriteLog());
        assertThat(restored.map).isEqualTo(expected);
        assertThat(storage.snapshots().list(BUCKET, KEY)).containsExactly(0L);
        assertThat(storage.writeLog().list(BUCKET, KEY)).containsExactly(1L);
        again.unlock();
    }

    @Test
    void snapshotsTakenWhileAppendersRunLoseNothing() throws Exception {
        ServerlessStorage r = loadedAndLocked();
        // the caller's side of the contract: applying + appending is atomic with incrementing + capturing the state
        ReentrantReadWriteLock callerLock = new ReentrantReadWriteLock();
        Set<String> state = ConcurrentHashMap.newKeySet();
        Set<String> acked = ConcurrentHashMap.newKeySet();
        AtomicBoolean stop = new AtomicBoolean();
        List<Future<?>> appenders = new ArrayList<>();
        try (ExecutorService pool = Threads.perTaskExecutor("test-racing-appender-")) {
            for (int t = 0; t < 6; t++) {
                int thread = t;
                appenders.add(pool.submit(() -> {
                    for (int i = 0; i < 300 && !stop.get(); i++) {
                        String msg = thread + ":" + i;
                        CompletableFuture<Void> done;
                        callerLock.readLock().lock();
                        try {
                            state.add(msg);
                            done = r.appendAsync(utf8(msg));
                        } finally {
                            callerLock.readLock().unlock();
                        }
                        done.join();
                        acked.add(msg);
                    }
                    return null;
                }));
            }
            for (int round = 0; round < 20; round++) {
                long old;
                byte[] captured;
                callerLock.writeLock().lock();
                try {
                    old = r.writeLogVersion();
                    r.incrementWriteLogVersion();
                    captured = utf8(String.join("\n", state));
                } finally {
                    callerLock.writeLock().unlock();
                }
                r.snapshot(new ByteArrayInputStream(captured));
                assertThat(storage.writeLog().list(BUCKET, KEY)).as("round %d", round).doesNotContain(old);
            }
            stop.set(true);
            for (Future<?> f : appenders) {
                f.get(30, TimeUnit.SECONDS);
            }
        }
        assertThat(storage.writeLog().list(BUCKET, KEY)).allMatch(v -> v == r.writeLogVersion());
        r.unlock();

        ServerlessStorage next = storage.resource(BUCKET, KEY);
        Set<String> restored = new HashSet<>();
        next.loadLatestSnapshot().ifPresent(in -> {
            try (in) {
                new String(in.readAllBytes(), UTF_8).lines().forEach(restored::add);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        restored.addAll(strings(drain(next.loadWriteLog())));
        assertThat(restored).isEqualTo(acked);
    }

    // ---- misuse ----

    @Test
    void loadWriteLogBeforeLoadLatestSnapshotIsRejected() {
        ServerlessStorage r = storage.resource(BUCKET, KEY);
        assertThatThrownBy(r::loadWriteLog).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("loadWriteLog requires loadLatestSnapshot() first");
    }

    @Test
    void lockBeforeLoadLatestSnapshotIsRejected() {
        ServerlessStorage r = storage.resource(BUCKET, KEY);
        assertThatThrownBy(r::lock).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("lock requires loadLatestSnapshot() first");
        assertThat(r.isLocked()).isFalse();
    }

    @Test
    void appendBeforeLockIsRejected() {
        ServerlessStorage r = storage.resource(BUCKET, KEY);
        assertThatThrownBy(() -> r.append(utf8("x"))).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("append requires lock()");
        r.loadLatestSnapshot();
        r.loadWriteLog();
        assertThatThrownBy(() -> r.append(utf8("x"))).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("append requires lock()");
        assertThatThrownBy(() -> r.appendAsync(utf8("x"))).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("append requires lock()");
        assertThat(storage.writeLog().list(BUCKET, KEY)).isEmpty();
    }

    @Test
    void appendAfterLockWithoutLoadingTheLogAgainIsRejected() {
        ServerlessStorage r = storage.resource(BUCKET, KEY);
        r.loadLatestSnapshot();
        r.loadWriteLog();
        r.lock();
        assertThatThrownBy(() -> r.append(utf8("x"))).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("requires loadWriteLog() after lock()");
        assertThatThrownBy(() -> r.appendAsync(utf8("x"))).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("requires loadWriteLog() after lock()");
        assertThatThrownBy(r::incrementWriteLogVersion).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("incrementWriteLogVersion requires loadWriteLog() after lock()");
        r.loadWriteLog();
        r.append(utf8("x"));
        r.unlock();
    }

    @Test
    void incrementBeforeLockIsRejected() {
        ServerlessStorage r = storage.resource(BUCKET, KEY);
        r.loadLatestSnapshot();
        assertThatThrownBy(r::incrementWriteLogVersion).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("incrementWriteLogVersion requires lock()");
    }

    @Test
    void snapshotWithoutIncrementIsRejected() {
        ServerlessStorage r = loadedAndLocked();
        r.append(utf8("a"));
        assertThatThrownBy(() -> r.snapshot(new ByteArrayInputStream(new byte[0])))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("snapshot requires incrementWriteLogVersion() since the last snapshot");
        r.incrementWriteLogVersion();
        r.snapshot(new ByteArrayInputStream(utf8("s")));
        assertThatThrownBy(() -> r.snapshotTo(out -> { }))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("snapshot requires incrementWriteLogVersion() since the last snapshot");
        assertThat(storage.snapshots().list(BUCKET, KEY)).containsExactly(0L);
        r.unlock();
    }

    @Test
    void snapshotBeforeLockIsRejected() {
        ServerlessStorage r = storage.resource(BUCKET, KEY);
        r.loadLatestSnapshot();
        assertThatThrownBy(() -> r.snapshotTo(out -> { })).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("snapshot requires lock()");
        assertThat(storage.snapshots().list(BUCKET, KEY)).isEmpty();
    }

    @Test
    void loadWriteLogAfterWritingIsRejected() {
        ServerlessStorage r = loadedAndLocked();
        r.append(utf8("a"));
        assertThatThrownBy(r::loadWriteLog).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("loadWriteLog is not allowed once this instance has appended");
        r.unlock();
    }

    @Test
    void loadLatestSnapshotAfterLockIsRejected() {
        ServerlessStorage r = loadedAndLocked();
        assertThatThrownBy(r::loadLatestSnapshot).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("loadLatestSnapshot is only allowed before lock()");
        r.unlock();
    }

    @Test
    void lockTwiceIsRejected() {
        ServerlessStorage r = loadedAndLocked();
        assertThatThrownBy(r::lock).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("already holds the lock");
        r.unlock();
    }

    @Test
    void unlockWithoutLockIsRejected() {
        ServerlessStorage r = storage.resource(BUCKET, KEY);
        assertThatThrownBy(r::unlock).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("unlock requires lock() first");
        r.loadLatestSnapshot();
        assertThatThrownBy(r::unlock).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("unlock requires lock() first");
    }

    @Test
    void everythingAfterUnlockIsRejected() {
        ServerlessStorage r = loadedAndLocked();
        r.unlock();
        assertThatThrownBy(r::unlock).isInstanceOf(IllegalStateException.class).hasMessageContaining("after unlock()");
        assertThatThrownBy(r::lock).isInstanceOf(IllegalStateException.class).hasMessageContaining("after unlock()");
        assertThatThrownBy(r::loadLatestSnapshot).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("after unlock()");
        assertThatThrownBy(r::loadWriteLog).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("after unlock()");
        assertThatThrownBy(() -> r.append(utf8("x"))).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("after unlock()");
    }

    @Test
    void serviceRejectsAppendsAndDeletesWithoutTheLock() {
        WriteLogService log = storage.writeLog();
        assertThatThrownBy(() -> log.appendMessage(BUCKET, KEY, 0, utf8("x")))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("requires the lock");
        assertThatThrownBy(() -> log.appendMessageAsync(BUCKET, KEY, 0, utf8("x")))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("requires the lock");
        assertThatThrownBy(() -> log.deleteLog(BUCKET, KEY, 0))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("requires the lock");
        assertThatThrownBy(() -> log.unlock(BUCKET, KEY))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("requires the lock");
        log.lock(BUCKET, KEY);
        log.appendMessage(BUCKET, KEY, 0, utf8("x"));
        log.unlock(BUCKET, KEY);
        assertThatThrownBy(() -> log.appendMessage(BUCKET, KEY, 0, utf8("y")))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("requires the lock");
    }

    // ---- locking ----

    @Test
    void secondHolderCannotLockUntilTheFirstUnlocks() {
        ServerlessStorage first = loadedAndLocked();
        ServerlessStorage second = storage.resource(BUCKET, KEY);
        second.loadLatestSnapshot();
        second.loadWriteLog();
        assertThatThrownBy(second::lock).isInstanceOf(ResourceLockedException.class)
                .hasMessageContaining(BUCKET).hasMessageContaining(KEY);
        assertThat(second.isLocked()).isFalse();
        // another resource is independent
        storage.writeLog().lock(BUCKET, "other");
        storage.writeLog().unlock(BUCKET, "other");

        first.unlock();
        second.lock();
        assertThat(second.isLocked()).isTrue();
        second.unlock();
    }

    @Test
    void lockFailsIfASnapshotWasWrittenSinceLoading() {
        ServerlessStorage first = loadedAndLocked();
        first.append(utf8("a"));

        ServerlessStorage late = storage.resource(BUCKET, KEY);
        late.loadLatestSnapshot();
        assertThat(strings(drain(late.loadWriteLog()))).containsExactly("a");

        first.incrementWriteLogVersion();
        first.append(utf8("b"));
        first.snapshot(new ByteArrayInputStream(utf8("a")));
        first.unlock();

        assertThatThrownBy(late::lock).isInstanceOf(StaleStateException.class)
                .hasMessageContaining("snapshot version 0 was written after version -1 was loaded");
        assertThat(late.isLocked()).isFalse();
        // it must start over: the stale failure released the lock, and lock() now needs a fresh load
        assertThatThrownBy(late::lock).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("lock requires loadLatestSnapshot() first");
        assertThat(late.loadLatestSnapshot()).isPresent();
        assertThat(strings(drain(late.loadWriteLog()))).containsExactly("b");
        late.lock();
        assertThat(drain(late.loadWriteLog())).isEmpty();
        late.unlock();
    }

    // ---- the services ----

    @Test
    void logReaderFromResumesAtAPosition() {
        WriteLogService log = storage.writeLog();
        log.lock(BUCKET, KEY);
        log.appendMessage(BUCKET, KEY, 5, utf8("one"));
        log.appendMessage(BUCKET, KEY, 5, new byte[0]);
        log.appendMessage(BUCKET, KEY, 5, utf8("three"));
        long afterFirst;
        try (LogReader reader = log.logReader(BUCKET, KEY, 5)) {
            assertThat(reader.position()).isEqualTo(LogFormat.HEADER_BYTES);
            assertThat(reader.next()).isEqualTo(utf8("one"));
            afterFirst = reader.position();
            assertThat(afterFirst).isEqualTo(LogFormat.HEADER_BYTES + LogFormat.recordBytes(3));
        }
        try (LogReader reader = log.logReaderFrom(BUCKET, KEY, 5, afterFirst)) {
            assertThat(reader.next()).isEmpty();
            assertThat(reader.next()).isEqualTo(utf8("three"));
            assertThat(reader.next()).isNull();
            long end = reader.position();
            log.appendMessage(BUCKET, KEY, 5, utf8("four"));
            assertThat(reader.next()).isEqualTo(utf8("four"));
            assertThat(reader.position()).isEqualTo(end + LogFormat.recordBytes(4));
        }
        assertThatThrownBy(() -> log.logReader(BUCKET, KEY, 6)).isInstanceOf(StorageException.class)
                .hasMessageContaining("does not exist");
        assertThatThrownBy(() -> log.logReaderFrom(BUCKET, KEY, 5, -1)).isInstanceOf(IllegalArgumentException.class);
        log.deleteLog(BUCKET, KEY, 5);
        log.deleteLog(BUCKET, KEY, 5);
        assertThat(log.list(BUCKET, KEY)).isEmpty();
        log.unlock(BUCKET, KEY);
    }

    @Test
    void messagesAreCopiedOnAppend() {
        WriteLogService log = storage.writeLog();
        log.lock(BUCKET, KEY);
        byte[] msg = utf8("original");
        CompletableFuture<Void> done = log.appendMessageAsync(BUCKET, KEY, 0, msg);
        msg[0] = 'X';
        done.orTimeout(10, TimeUnit.SECONDS).join();
        try (LogReader reader = log.logReader(BUCKET, KEY, 0)) {
            assertThat(new String(reader.next(), UTF_8)).isEqualTo("original");
        }
        log.unlock(BUCKET, KEY);
    }

    @Test
    void tooLongMessagesAreRejected() {
        WriteLogService log = storage.writeLog();
        log.lock(BUCKET, KEY);
        assertThatThrownBy(() -> log.appendMessage(BUCKET, KEY, 0, new byte[LogFormat.MAX_MESSAGE_BYTES + 1]))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("longer than the limit");
        log.unlock(BUCKET, KEY);
    }

    @Test
    void snapshotServiceStoresListsReadsAndDeletesVersions() throws IOException {
        SnapshotService snaps = storage.snapshots();
        assertThat(snaps.list(BUCKET, KEY)).isEmpty();
        byte[] big = new byte[200_000];
        for (int i = 0; i < big.length; i++) {
            big[i] = (byte) (i * 31);
        }
        snaps.write(BUCKET, KEY, 12, new ByteArrayInputStream(big));
        snaps.writeTo(BUCKET, KEY, 3, out -> out.write(utf8("three")));
        snaps.writeTo(BUCKET, KEY, 3, out -> out.write(utf8("three again")));
        assertThat(snaps.list(BUCKET, KEY)).containsExactly(3L, 12L);
        try (InputStream in = snaps.read(BUCKET, KEY, 12)) {
            assertThat(in.readAllBytes()).isEqualTo(big);
        }
        try (InputStream in = snaps.read(BUCKET, KEY, 3)) {
            assertThat(new String(in.readAllBytes(), UTF_8)).isEqualTo("three again");
        }
        assertThatThrownBy(() -> snaps.writeTo(BUCKET, KEY, 4, out -> {
            out.write(1);
            throw new IOException("writer failed");
        })).isInstanceOf(StorageException.class).hasMessageContaining("writer failed");
        assertThat(snaps.list(BUCKET, KEY)).containsExactly(3L, 12L);
        snaps.delete(BUCKET, KEY, 3);
        snaps.delete(BUCKET, KEY, 3);
        assertThat(snaps.list(BUCKET, KEY)).containsExactly(12L);
        assertThatThrownBy(() -> snaps.read(BUCKET, KEY, 3)).isInstanceOf(StorageException.class)
                .hasMessageContaining("does not exist");
    }

    // ---- names ----

    @ParameterizedTest
    @ValueSource(strings = {"", "/abs", "a/../b", "..", ".", "a//b", "a/", "a/./b", "back\\slash", "C:/x", "nul\0x",
            "line\nbreak"})
    void badNamesAreRejected(String bad) {
        assertThatThrownBy(() -> storage.resource(bad, KEY)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("bucket");
        assertThatThrownBy(() -> storage.resource(BUCKET, bad)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("key");
        assertThatThrownBy(() -> storage.writeLog().lock(bad, KEY)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> storage.writeLog().list(BUCKET, bad)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> storage.snapshots().list(bad, KEY)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> storage.snapshots().writeTo(BUCKET, bad, 0, out -> { }))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void nullAndOverlongNamesAreRejected() {
        assertThatThrownBy(() -> storage.resource(null, KEY)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("bucket must not be empty");
        assertThatThrownBy(() -> storage.resource(BUCKET, "k".repeat(201))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("longer than 200");
        assertThatThrownBy(() -> storage.writeLog().logReader(BUCKET, KEY, -1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("version must be >= 0");
    }

    @Test
    void namesThatWouldShareAPathStayApart() {
        // "a/b" + "c" and "a" + "b/c" are different resources; so are names that differ only in odd characters
        String[][] resources = {{"a/b", "c"}, {"a", "b/c"}, {"a%2Fb", "c"}, {"scope/stream", "0.#epoch.1"},
                {"ünïcode", "é"}, {"a b", "c"}};
        for (String[] r : resources) {
            storage.snapshots().writeTo(r[0], r[1], 0, out -> out.write(utf8(r[0] + "|" + r[1])));
        }
        for (String[] r : resources) {
            assertThat(storage.snapshots().list(r[0], r[1])).containsExactly(0L);
            try (InputStream in = storage.snapshots().read(r[0], r[1], 0)) {
                assertThat(new String(in.readAllBytes(), UTF_8)).isEqualTo(r[0] + "|" + r[1]);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    // ---- chunks ----

    @Test
    void chunkStoreWritesAndReadsRanges() {
        ChunkStore chunks = storage.chunks();
        ChunkRef a = chunks.write(7, ByteBuffer.wrap(utf8("hello chunk")));
        ByteBuffer source = ByteBuffer.wrap(utf8("xxsecondyy"));
        source.position(2).limit(8);
        ChunkRef b = chunks.write(7, source);
        assertThat(source.position()).isEqualTo(2);
        ChunkRef c = chunks.write(8, ByteBuffer.wrap(utf8("other owner")));
        assertThat(a.owner()).isEqualTo(7);
        assertThat(b.length()).isEqualTo(6);
        assertThat(string(chunks.read(a, 0, a.length()))).isEqualTo("hello chunk");
        assertThat(string(chunks.read(a, 6, 5))).isEqualTo("chunk");
        assertThat(string(chunks.read(b, 0, 6))).isEqualTo("second");
        assertThat(string(chunks.read(c, 0, c.length()))).isEqualTo("other owner");
        assertThat(chunks.read(a, 3, 0).remaining()).isZero();
        assertThatThrownBy(() -> chunks.read(a, 6, 6)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> chunks.read(a, -1, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> chunks.write(-1, ByteBuffer.allocate(1))).isInstanceOf(IllegalArgumentException.class);

        chunks.deleteOwner(7);
        chunks.deleteOwner(7);
        assertThatThrownBy(() -> chunks.read(a, 0, 1)).isInstanceOf(StorageException.class);
        assertThat(string(chunks.read(c, 0, 5))).isEqualTo("other");
        ChunkRef d = chunks.write(7, ByteBuffer.wrap(utf8("again")));
        assertThat(string(chunks.read(d, 0, 5))).isEqualTo("again");
    }

    @Test
    void chunkDataSurvivesReopening() {
        ChunkRef ref = storage.chunks().write(1, ByteBuffer.wrap(utf8("kept")));
        storage = reopen(storage);
        assertThat(string(storage.chunks().read(ref, 0, 4))).isEqualTo("kept");
        ChunkRef more = storage.chunks().write(1, ByteBuffer.wrap(utf8("more")));
        assertThat(string(storage.chunks().read(more, 0, 4))).isEqualTo("more");
        assertThat(string(storage.chunks().read(ref, 0, 4))).isEqualTo("kept");
    }

    // ---- helpers ----

    ServerlessStorage loadedAndLocked() {
        ServerlessStorage r = storage.resource(BUCKET, KEY);
        r.loadLatestSnapshot();
        drain(r.loadWriteLog());
        r.lock();
        drain(r.loadWriteLog());
        return r;
    }

    static List<byte[]> drain(LogReader reader) {
        try (reader) {
            List<byte[]> out = new ArrayList<>();
            for (byte[] msg = reader.next(); null != msg; msg = reader.next()) {
                out.add(msg);
            }
            return out;
        }
    }

    /** @return where the records a reader can read end: its position after the last one (closes the reader) */
    static long endOfRecords(LogReader reader) {
        try (reader) {
            while (null != reader.next()) {
                // to the last record
            }
            return reader.position();
        }
    }

    static List<String> strings(List<byte[]> messages) {
        return messages.stream().map(m -> new String(m, UTF_8)).toList();
    }

    static byte[] utf8(String s) {
        return s.getBytes(UTF_8);
    }

    static String string(ByteBuffer buf) {
        byte[] b = new byte[buf.remaining()];
        buf.get(b);
        return new String(b, UTF_8);
    }

    /** A little state machine: messages are "put k v"; its snapshot is the whole map, one "k v" line per entry. */
    static final class KvStateMachine {
        final Map<String, String> map = new TreeMap<>();

        void load(ServerlessStorage r) {
            map.clear();
            r.loadLatestSnapshot().ifPresent(in -> {
                try (in) {
                    String text = new String(in.readAllBytes(), UTF_8);
                    text.lines().forEach(line -> {
                        int space = line.indexOf(' ');
                        map.put(line.substring(0, space), line.substring(space + 1));
                    });
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
            replay(r.loadWriteLog());
        }

        void replay(LogReader log) {
            for (byte[] msg : drain(log)) {
                apply(new String(msg, UTF_8));
            }
        }

        void put(ServerlessStorage r, String k, String v) {
            String msg = "put " + k + " " + v;
            r.append(utf8(msg));
            apply(msg);
        }

        void apply(String msg) {
            String[] parts = msg.split(" ", 3);
            assertThat(parts[0]).isEqualTo("put");
            map.put(parts[1], parts[2]);
        }

        byte[] snapshotBytes() {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            map.forEach((k, v) -> out.writeBytes(utf8(k + " " + v + "\n")));
            return out.toByteArray();
        }
    }
}
