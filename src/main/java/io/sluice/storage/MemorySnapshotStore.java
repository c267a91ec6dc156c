package io.sluice.storage;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * {@link SnapshotService} in memory. A snapshot's bytes are collected before the lock is taken, so a failing or
 * slow writer stores nothing and blocks nobody. Thread-safe.
 */
final class MemorySnapshotStore implements SnapshotService {
    private final ReentrantLock lock = new ReentrantLock();
    /** Guarded by {@code lock}. */
    private final Map<ResourceId, TreeMap<Long, byte[]>> snapshots = new HashMap<>();

    @Override
    public InputStream read(String bucket, String key, long version) {
        ResourceId id = new ResourceId(bucket, key);
        FileWriteLog.checkVersion(version);
        lock.lock();
        try {
            TreeMap<Long, byte[]> versions = snapshots.get(id);
            byte[] data = null == versions ? null : versions.get(version);
            if (null == data) {
                throw new StorageException("snapshot " + id + " version " + version + " does not exist");
            }
            return new ByteArrayInputStream(data);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void write(String bucket, String key, long version, InputStream data) {
        Objects.requireNonNull(data, "data");
        writeTo(bucket, key, version, data::transferTo);
    }

    @Override
    public void writeTo(String bucket, String key, long version, SnapshotWriter writer) {
        ResourceId id = new ResourceId(bucket, key);
        FileWriteLog.checkVersion(version);
        Objects.requireNonNull(writer, "writer");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try {
            writer.writeTo(out);
        } catch (IOException e) {
            throw new StorageException("cannot write snapshot " + id + " version " + version + ": " + e, e);
        }
        byte[] bytes = out.toByteArray();
        lock.lock();
        try {
            snapshots.computeIfAbsent(id, i -> new TreeMap<>()).put(version, bytes);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public List<Long> list(String bucket, String key) {
        ResourceId id = new ResourceId(bucket, key);
        lock.lock();
        try {
            TreeMap<Long, byte[]> versions = snapshots.get(id);
            return null == versions ? List.of() : List.copyOf(versions.keySet());
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void delete(String bucket, String key, long version) {
        ResourceId id = new ResourceId(bucket, key);
        FileWriteLog.checkVersion(version);
        lock.lock();
        try {
            TreeMap<Long, byte[]> versions = snapshots.get(id);
            if (null != versions) {
                versions.remove(version);
            }
        } finally {
            lock.unlock();
        }
    }
}
