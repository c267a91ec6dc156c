package io.sluice.storage;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

/**
 * {@link ChunkStore} on the file system: chunk {@code n} of owner {@code o} is the raw file
 * {@code <root>/<o>/<n, 20 digits>.chunk}, holding the written bytes back to back (no framing: a {@link ChunkRef}
 * says where each write's bytes are).
 *
 * <p>A writer reserves its range in the owner's current chunk under a short lock (no I/O), then writes it with a
 * positional write and forces the file (under {@link Durability#FSYNC}) without any lock, so writers of one owner
 * overlap. Each process starts a new chunk for an owner the first time it writes to it and never appends to chunks
 * written before: a crash can leave unwritten holes or a torn end in old chunks, but only in ranges whose write never
 * returned, which nothing refers to.
 *
 * <p><b>A failed fsync.</b> After a failed {@code fsync} the kernel may have dropped the dirty pages of the file and
 * reports the error only once (PostgreSQL's "fsyncgate"): a write whose force fails fails, and so does every write of
 * the same owner that was in flight meanwhile, even if its own force then succeeds; the next write starts a new
 * chunk file. Nothing refers to the ranges of failed writes.
 *
 * <p>An owner keeps at most {@value #MAX_OPEN_PER_OWNER} chunk files open, the least recently used closed first
 * (never the one being written); a read or write whose channel was closed under it (by that limit, or by an
 * interrupt of another thread using it) forgets it and tries again on a new one: positional reads and whole
 * positional writes of immutable ranges can be repeated.
 *
 * <p>Thread-safe.
 */
final class FileChunkStore implements ChunkStore {
    static final String SUFFIX = ".chunk";
    /**
     * Chunk files an owner keeps open at most (the one being written among them): a segment's older chunks are
     * reopened when read. Without a limit every chunk ever written stayed open, one descriptor per 64 MiB of data.
     */
    static final int MAX_OPEN_PER_OWNER = 4;
    /** Tries of one read or write whose channel the limit closed under it, before giving up. */
    private static final int MAX_ATTEMPTS_ON_CLOSED = 5;
    /** Orders the uses of channels, so the least recently used ones are closed first. */
    private final AtomicLong uses = new AtomicLong();

    private final Path root;
    private final Durability durability;
    private final long rolloverBytes;
    private final FileOpener files;
    private final ConcurrentHashMap<Long, CompletableFuture<Owner>> owners = new ConcurrentHashMap<>();

    /**
     * @param root directory of the owners' directories (created when needed)
     * @param rolloverBytes a chunk that would grow past this many bytes is closed and a new one started
     */
    FileChunkStore(Path root, Durability durability, long rolloverBytes) {
        this(root, durability, rolloverBytes, FileOpener.DEFAULT);
    }

    /**
     * @param files opens the chunk files (tests pass one that fails like a full disk)
     */
    FileChunkStore(Path root, Durability durability, long rolloverBytes, FileOpener files) {
        this.files = Objects.requireNonNull(files, "files");
        this.root = Objects.requireNonNull(root, "root");
        this.durability = Objects.requireNonNull(durability, "durability");
        if (rolloverBytes <= 0) {
            throw new IllegalArgumentException("chunk rollover size must be > 0 bytes, not " + rolloverBytes);
        }
        this.rolloverBytes = rolloverBytes;
    }

    /** @return the file of a chunk */
    Path chunkFile(long owner, long chunk) {
        return root.resolve(Long.toString(owner)).resolve(String.format("%020d%s", chunk, SUFFIX));
    }

    @Override
    public ChunkRef write(long owner, ByteBuffer data) {
        checkOwner(owner);
        Objects.requireNonNull(data, "data");
        int length = data.remaining();
        Owner o = owner(owner);
        long chunk;
        long offset;
        o.lock.lock();
        try {
            if (o.currentChunk < 0 || (o.currentSize > 0 && o.currentSize + length > rolloverBytes)) {
                o.currentChunk = o.nextChunk++;
                o.currentSize = 0;
            }
            chunk = o.currentChunk;
            offset = o.currentSize;
            o.currentSize += length;
        } finally {
            o.lock.unlock();
        }
        ChunkRef ref = new ChunkRef(owner, chunk, offset, length);
        if (length == 0) {
            return ref;
        }
        long failedForcesBefore = o.failedForces.get();
        for (int attempt = 1; ; attempt++) {
            FileChannel ch = o.channel(chunk, true);
            try {
                // positional and whole: a write redone on a reopened channel writes the same bytes at the same place
                FileUtil.writeFully(ch, data.duplicate(), offset);
                if (durability == Durability.FSYNC) {
                    ch.force(true);
                }
                break;
            } catch (ClosedChannelException e) {
                o.forget(chunk, ch);
                if (e instanceof ClosedByInterruptException || attempt >= MAX_ATTEMPTS_ON_CLOSED) {
                    throw new StorageException("cannot write " + length + " bytes to " + chunkFile(owner, chunk)
                            + ": " + e, e);
                }
                // closed by the limit on open chunk files while this write was on it: again on a fresh channel
            } catch (IOException e) {
                if (durability == Durability.FSYNC) {
                    o.forceFailed(chunk);
                }
                throw new StorageException("cannot write " + length + " bytes to " + chunkFile(owner, chunk) + ": " + e, e);
            }
        }
        if (o.failedForces.get() != failedForcesBefore) {
            // another writer's fsync of this owner failed meanwhile: the kernel may have dropped our pages with its,
            // and it reports that failure once, so our own fsync succeeding proves nothing
            throw new StorageException("cannot write " + length + " bytes to " + chunkFile(owner, chunk)
                    + ": an fsync of the owner's chunks failed while they were being written, so they may not be on"
                    + " disk");
        }
        return ref;
    }

    @Override
    public ByteBuffer read(ChunkRef ref, int offsetInRef, int length) {
        Objects.requireNonNull(ref, "ref");
        if (offsetInRef < 0 || length < 0 || (long) offsetInRef + length > ref.length()) {
            throw new IllegalArgumentException("cannot read " + length + " bytes at " + offsetInRef + " of " + ref);
        }
        ByteBuffer dst = ByteBuffer.allocate(length);
        if (length == 0) {
            return dst;
        }
        Owner o = owner(ref.owner());
        for (int attempt = 1; ; attempt++) {
            FileChannel ch = o.channel(ref.chunk(), false);
            try {
                if (!FileUtil.readFully(ch, dst.clear(), ref.offset() + offsetInRef)) {
                    throw new CorruptedDataException("chunk " + chunkFile(ref.owner(), ref.chunk())
                            + " is shorter than " + ref + " says");
                }
                return dst.flip();
            } catch (ClosedChannelException e) {
                o.forget(ref.chunk(), ch);
                if (e instanceof ClosedByInterruptException || attempt >= MAX_ATTEMPTS_ON_CLOSED) {
                    throw new StorageException("cannot read " + ref + ": " + e, e);
                }
                // closed by the limit on open chunk files while this read was on it: again on a fresh channel
            } catch (IOException e) {
                throw new StorageException("cannot read " + ref + ": " + e, e);
            }
        }
    }

    /** @return the chunk files of {@code owner} open now (for tests) */
    int openChannels(long owner) {
        CompletableFuture<Owner> f = owners.get(owner);
        return f == null || !f.isDone() || f.isCompletedExceptionally() ? 0 : f.join().openChannels();
    }

    @Override
    public void deleteOwner(long owner) {
        checkOwner(owner);
        CompletableFuture<Owner> f = owners.remove(owner);
        if (null != f && !f.isCompletedExceptionally()) {
            f.join().closeAll();
        }
        Path dir = root.resolve(Long.toString(owner));
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
            for (Path file : files) {
                Files.deleteIfExists(file);
            }
        } catch (NoSuchFileException e) {
            return;
        } catch (IOException e) {
            throw new StorageException("cannot delete the chunks of owner " + owner + " in " + dir + ": " + e, e);
        }
        try {
            Files.deleteIfExists(dir);
            FileUtil.fsyncDirectoryQuietly(files, root);
        } catch (IOException e) {
            throw new StorageException("cannot delete " + dir + ": " + e, e);
        }
    }

    @Override
    public void close() {
        for (Long id : List.copyOf(owners.keySet())) {
            CompletableFuture<Owner> f = owners.remove(id);
            if (null != f && !f.isCompletedExceptionally()) {
                f.join().closeAll();
            }
        }
    }

    private static void checkOwner(long owner) {
        if (owner < 0) {
            throw new IllegalArgumentException("owner must be >= 0, not " + owner);
        }
    }

    /** The owner's state, loaded (its directory listed) by the first caller; others wait for it. */
    private Owner owner(long id) {
        CompletableFuture<Owner> f = owners.get(id);
        if (null == f) {
            CompletableFuture<Owner> mine = new CompletableFuture<>();
            f = owners.putIfAbsent(id, mine);
            if (null == f) {
                f = mine;
                try {
                    mine.complete(new Owner(id, root.resolve(Long.toString(id)), firstFreeChunk(id)));
                } catch (RuntimeException e) {
                    owners.remove(id, mine);
                    mine.completeExceptionally(e);
                }
            }
        }
        try {
            return f.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof RuntimeException re) {
                throw re;
            }
            throw e;
        }
    }

    private long firstFreeChunk(long owner) {
        Path dir = root.resolve(Long.toString(owner));
        long next = 0;
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
            for (Path file : files) {
                long n = LogFormat.parseVersion(file.getFileName().toString(), SUFFIX);
                next = Math.max(next, n + 1);
            }
        } catch (NoSuchFileException e) {
            return 0;
        } catch (IOException e) {
            throw new StorageException("cannot list the chunks of owner " + owner + " in " + dir + ": " + e, e);
        }
        return next;
    }

    /** One owner's chunks. */
    private final class Owner {
        final long id;
        final Path dir;
        final ReentrantLock lock = new ReentrantLock();
        /** Guarded by {@code lock}: the chunk being filled, -1 before the first write of this process. */
        long currentChunk = -1;
        /** Guarded by {@code lock}: bytes reserved in the current chunk. */
        long currentSize;
        /** Guarded by {@code lock}. */
        long nextChunk;
        final ConcurrentHashMap<Long, CompletableFuture<FileChannel>> channels = new ConcurrentHashMap<>();
        /** How many forces of this owner's chunks failed: a write that sees it change did not become durable. */
        final AtomicLong failedForces = new AtomicLong();
        /** When each open chunk was last used (a tick of {@code uses}). */
        final ConcurrentHashMap<Long, Long> lastUse = new ConcurrentHashMap<>();

        Owner(long id, Path dir, long firstFreeChunk) {
            this.id = id;
            this.dir = dir;
            this.nextChunk = firstFreeChunk;
        }

        /**
         * Opens (once; concurrent callers wait for the first) a chunk's channel. Opening one beyond
         * {@link #MAX_OPEN_PER_OWNER} closes the least recently used others, except the chunk being written; a read or
         * write that was on a channel closed so retries on a new one.
         */
        FileChannel channel(long chunk, boolean create) {
            lastUse.put(chunk, uses.incrementAndGet());
            CompletableFuture<FileChannel> f = channels.get(chunk);
            if (null == f) {
                CompletableFuture<FileChannel> mine = new CompletableFuture<>();
                f = channels.putIfAbsent(chunk, mine);
                if (null == f) {
                    f = mine;
                    Path file = chunkFile(id, chunk);
                    try {
                        FileChannel ch;
                        if (create) {
                            Files.createDirectories(dir);
                            ch = files.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
                                    StandardOpenOption.WRITE);
                            if (durability == Durability.FSYNC) {
                                try {
                                    FileUtil.fsyncDirectory(files, dir);
                                } catch (IOException e) {
                                    ch.close();
                                    throw e;
                                }
                            }
                        } else {
                            ch = files.open(file, StandardOpenOption.READ);
                        }
                        mine.complete(ch);
                        closeLeastRecentlyUsed(chunk);
                    } catch (NoSuchFileException e) {
                        channels.remove(chunk, mine);
                        mine.completeExceptionally(new StorageException("chunk " + file + " does not exist"));
                    } catch (IOException e) {
                        channels.remove(chunk, mine);
                        mine.completeExceptionally(new StorageException("cannot open chunk " + file + ": " + e, e));
                    }
                }
            }
            try {
                return f.join();
            } catch (CompletionException e) {
                if (e.getCause() instanceof RuntimeException re) {
                    throw re;
                }
                throw e;
            }
        }

        /** After a failed force of {@code chunk}: counts it and has the next write start a new chunk file. */
        void forceFailed(long chunk) {
            lock.lock();
            try {
                failedForces.incrementAndGet();
                if (currentChunk == chunk) {
                    currentChunk = -1;
                }
            } finally {
                lock.unlock();
            }
        }

        /** Forgets {@code closed}, a channel found closed, so the next use of {@code chunk} opens a new one. */
        void forget(long chunk, FileChannel closed) {
            channels.computeIfPresent(chunk, (k, f) -> f.isDone() && !f.isCompletedExceptionally()
                    && f.join() == closed ? null : f);
            lastUse.keySet().retainAll(channels.keySet());
            FileUtil.closeQuietly(closed);
        }

        /** Closes open channels beyond the limit, least recently used first, never {@code keep} or the current chunk. */
        private void closeLeastRecentlyUsed(long keep) {
            while (channels.size() > MAX_OPEN_PER_OWNER) {
                long current;
                lock.lock();
                try {
                    current = currentChunk;
                } finally {
                    lock.unlock();
                }
                long victim = -1;
                long oldest = Long.MAX_VALUE;
                for (Map.Entry<Long, CompletableFuture<FileChannel>> e : channels.entrySet()) {
                    long chunk = e.getKey();
                    long used = lastUse.getOrDefault(chunk, 0L);
                    // one still being opened is not closed here: its opener closes beyond the limit in its turn
                    if (chunk != keep && chunk != current && e.getValue().isDone() && used < oldest) {
                        oldest = used;
                        victim = chunk;
                    }
                }
                if (victim < 0) {
                    break;
                }
                CompletableFuture<FileChannel> f = channels.remove(victim);
                lastUse.remove(victim);
                if (f != null && f.isDone() && !f.isCompletedExceptionally()) {
                    FileUtil.closeQuietly(f.join());
                }
            }
            lastUse.keySet().retainAll(channels.keySet());
        }

        /** @return channels open now (for tests) */
        int openChannels() {
            return channels.size();
        }

        void closeAll() {
            List<CompletableFuture<FileChannel>> open = new ArrayList<>(channels.values());
            channels.clear();
            lastUse.clear();
            for (CompletableFuture<FileChannel> f : open) {
                if (f.isDone() && !f.isCompletedExceptionally()) {
                    FileUtil.closeQuietly(f.join());
                }
            }
        }
    }
}
