package io.sluice.storage;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.ReentrantLock;

/**
 * {@link WriteLogService} in memory, with the same contract as {@link FileWriteLog}: appends require the lock,
 * a second lock attempt on a held resource fails, positions count bytes as the file format does (so they are
 * interchangeable in tests). An append is "durable" as soon as it is stored. Thread-safe; one lock guards
 * everything and nothing blocks under it.
 */
final class MemoryWriteLog implements WriteLogService {
    private final ReentrantLock lock = new ReentrantLock();
    /** Guarded by {@code lock}. */
    private final Map<ResourceId, Resource> resources = new HashMap<>();

    @Override
    public void appendMessage(String bucket, String key, long version, byte[] msg) {
        Futures.await(appendMessageAsync(bucket, key, version, msg), "append");
    }

    @Override
    public CompletableFuture<Void> appendMessageAsync(String bucket, String key, long version, byte[] msg) {
        ResourceId id = new ResourceId(bucket, key);
        FileWriteLog.checkVersion(version);
        Objects.requireNonNull(msg, "msg");
        LogFormat.checkLength(msg.length);
        byte[] copy = msg.clone();
        lock.lock();
        try {
            Resource r = lockedResource("appendMessage", id);
            r.logs.computeIfAbsent(version, v -> new Log()).add(copy);
        } finally {
            lock.unlock();
        }
        return CompletableFuture.completedFuture(null);
    }

    /** Appends to memory never fail: there is nothing to repair. */
    @Override
    public CompletableFuture<Void> resumeAppends(String bucket, String key) {
        ResourceId id = new ResourceId(bucket, key);
        lock.lock();
        try {
            lockedResource("resumeAppends", id);
        } finally {
            lock.unlock();
        }
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public LogReader logReader(String bucket, String key, long version) {
        return logReaderFrom(bucket, key, version, 0);
    }

    @Override
    public LogReader logReaderFrom(String bucket, String key, long version, long offset) {
        ResourceId id = new ResourceId(bucket, key);
        FileWriteLog.checkVersion(version);
        if (offset < 0) {
            throw new IllegalArgumentException("offset must be >= 0, not " + offset);
        }
        lock.lock();
        try {
            Resource r = resources.get(id);
            Log log = null == r ? null : r.logs.get(version);
            if (null == log) {
                throw new StorageException("write log " + id + " version " + version + " does not exist");
            }
            int index;
            if (offset == 0 || offset == LogFormat.HEADER_BYTES) {
                index = 0;
            } else if (offset == log.end) {
                index = log.messages.size();
            } else {
                index = Collections.binarySearch(log.positions, offset);
                if (index < 0) {
                    throw new IllegalArgumentException("offset " + offset + " of write log " + id + " version "
                            + version + " is not a message boundary");
                }
            }
            return new Reader(log, index);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void deleteLog(String bucket, String key, long version) {
        ResourceId id = new ResourceId(bucket, key);
        FileWriteLog.checkVersion(version);
        lock.lock();
        try {
            lockedResource("deleteLog", id).logs.remove(version);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public List<Long> list(String bucket, String key) {
        ResourceId id = new ResourceId(bucket, key);
        lock.lock();
        try {
            Resource r = resources.get(id);
            return null == r ? List.of() : List.copyOf(r.logs.keySet());
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void lock(String bucket, String key) {
        ResourceId id = new ResourceId(bucket, key);
        lock.lock();
        try {
            Resource r = resources.computeIfAbsent(id, i -> new Resource());
            if (r.locked) {
                throw new ResourceLockedException("resource " + id + " is already locked");
            }
            r.locked = true;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void unlock(String bucket, String key) {
        ResourceId id = new ResourceId(bucket, key);
        lock.lock();
        try {
            lockedResource("unlock", id).locked = false;
        } finally {
            lock.unlock();
        }
    }

    /** Called with {@code lock} held. */
    private Resource lockedResource(String operation, ResourceId id) {
        Resource r = resources.get(id);
        if (null == r || !r.locked) {
            throw new IllegalStateException(operation + " requires the lock of resource " + id
                    + ", which this storage does not hold: call lock(bucket, key) first");
        }
        return r;
    }

    private static final class Resource {
        boolean locked;
        final TreeMap<Long, Log> logs = new TreeMap<>();
    }

    /** One log; guarded by the service's lock. */
    private static final class Log {
        final List<byte[]> messages = new ArrayList<>();
        /** Position of each message, as in a log file. */
        final List<Long> positions = new ArrayList<>();
        long end = LogFormat.HEADER_BYTES;

        void add(byte[] msg) {
            messages.add(msg);
            positions.add(end);
            end += LogFormat.recordBytes(msg.length);
        }
    }

    private final class Reader implements LogReader {
        private final Log log;
        private int index;
        private long position;

        Reader(Log log, int index) {
            this.log = log;
            this.index = index;
            this.position = index < log.positions.size() ? log.positions.get(index) : log.end;
        }

        @Override
        public byte[] next() {
            lock.lock();
            try {
                if (index >= log.messages.size()) {
                    return null;
                }
                byte[] msg = log.messages.get(index++);
                position = index < log.positions.size() ? log.positions.get(index) : log.end;
                return msg.clone();
            } finally {
                lock.unlock();
            }
        }

        @Override
        public long position() {
            return position;
        }

        @Override
        public void close() {
        }
    }
}
