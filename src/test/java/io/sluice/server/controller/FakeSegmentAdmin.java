package io.sluice.server.controller;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;

import io.sluice.errors.NoSuchSegmentException;
import io.sluice.errors.SegmentSealedException;
import io.sluice.errors.ServiceUnavailableException;

/**
 * An in-memory segment store for controller tests: keeps segments (length, start offset, sealed, table) and records
 * every call as a line such as {@code "create s/x/0.#epoch.0"}. Merges can be held at a gate so a test can observe a
 * transaction while it is COMMITTING. Thread-safe.
 */
final class FakeSegmentAdmin implements SegmentAdmin {
    private static final class Segment {
        long startOffset;
        long length;
        boolean sealed;
        final boolean table;
        final int keyLength;
        /** Bytes appended with appendEvent (pretended appends have none). */
        final ByteArrayOutputStream data = new ByteArrayOutputStream();
        final Map<UUID, Long> attributes = new TreeMap<>();

        Segment(boolean table, int keyLength) {
            this.table = table;
            this.keyLength = keyLength;
        }
    }

    private final ReentrantLock lock = new ReentrantLock();
    private final Map<String, Segment> segments = new TreeMap<>();
    private final List<String> calls = new ArrayList<>();
    private volatile CountDownLatch deletions = new CountDownLatch(0);
    private final AtomicInteger failingMerges = new AtomicInteger();
    private volatile CountDownLatch mergeGate;
    private volatile CountDownLatch mergeReached;

    @Override
    public boolean createSegment(String name, byte scaleType, int targetRate, long rolloverSizeBytes) {
        lock.lock();
        try {
            calls.add("create " + name);
            return segments.putIfAbsent(name, new Segment(false, 0)) == null;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public boolean createTableSegment(String name, int keyLength) {
        lock.lock();
        try {
            calls.add("createTable " + name + " keyLength=" + keyLength);
            return segments.putIfAbsent(name, new Segment(true, keyLength)) == null;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public boolean sealSegment(String name) {
        lock.lock();
        try {
            calls.add("seal " + name);
            Segment s = require(name);
            boolean changed = !s.sealed;
            s.sealed = true;
            return changed;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public boolean deleteSegment(String name) {
        lock.lock();
        try {
            calls.add("delete " + name);
            deletions.countDown();
            return segments.remove(name) != null;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void truncateSegment(String name, long offset) {
        lock.lock();
        try {
            calls.add("truncate " + name + " " + offset);
            Segment s = require(name);
            if (offset > s.length) {
                throw new IllegalArgumentException("offset " + offset + " beyond " + s.length);
            }
            s.startOffset = Math.max(s.startOffset, offset);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public long mergeSegments(String target, String source) {
        if (failingMerges.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
            throw new ServiceUnavailableException("merge of " + source + " failed (injected)");
        }
        CountDownLatch reached = mergeReached;
        if (reached != null) {
            reached.countDown();
        }
        CountDownLatch gate = mergeGate;
        if (gate != null) {
            try {
                if (!gate.await(30, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("merge gate never opened");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
        lock.lock();
        try {
            calls.add("merge " + source + " -> " + target);
            Segment t = require(target);
            Segment s = require(source);
            if (t.sealed) {
                throw new SegmentSealedException("target " + target + " is sealed");
            }
            segments.remove(source);
            t.length += s.length;
            return t.length;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public long appendEvent(String name, long expectedLength, ByteBuffer payload) {
        lock.lock();
        try {
            calls.add("appendEvent " + name);
            Segment s = require(name);
            if (s.sealed) {
                throw new SegmentSealedException(name);
            }
            if (s.length != expectedLength) {
                return -1;
            }
            ByteBuffer p = payload.duplicate();
            byte[] bytes = new byte[p.remaining()];
            p.get(bytes);
            s.data.writeBytes(ByteBuffer.allocate(8).putInt(0).putInt(bytes.length).array());
            s.data.writeBytes(bytes);
            s.length += 8 + bytes.length;
            return s.length;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public ByteBuffer read(String name, long offset, int maxLength) {
        lock.lock();
        try {
            byte[] all = require(name).data.toByteArray();
            if (offset < 0 || offset > all.length) {
                throw new IllegalArgumentException("offset " + offset + " beyond " + all.length);
            }
            int n = (int) Math.min(maxLength, all.length - offset);
            return ByteBuffer.wrap(all, (int) offset, n).slice();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public long attribute(String name, UUID attribute) {
        lock.lock();
        try {
            return require(name).attributes.getOrDefault(attribute, Long.MIN_VALUE);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public boolean compareAndSetAttribute(String name, UUID attribute, long expected, long newValue) {
        lock.lock();
        try {
            Segment s = require(name);
            if (s.attributes.getOrDefault(attribute, Long.MIN_VALUE) != expected) {
                return false;
            }
            s.attributes.put(attribute, newValue);
            return true;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public Optional<SegmentInfo> segmentInfo(String name) {
        lock.lock();
        try {
            Segment s = segments.get(name);
            return s == null ? Optional.empty()
                    : Optional.of(new SegmentInfo(name, s.startOffset, s.length, s.sealed, s.table, 0));
        } finally {
            lock.unlock();
        }
    }

    private Segment require(String name) {
        Segment s = segments.get(name);
        if (s == null) {
            throw new NoSuchSegmentException("no segment " + name);
        }
        return s;
    }

    // ------------------------------------------------------------------ test helpers

    /** Pretends a writer appended bytes. */
    void append(String name, long bytes) {
        lock.lock();
        try {
            Segment s = require(name);
            if (s.sealed) {
                throw new SegmentSealedException(name);
            }
            s.length += bytes;
        } finally {
            lock.unlock();
        }
    }

    /** Makes the next {@code count} merges fail. */
    void failMerges(int count) {
        failingMerges.set(count);
    }

    /** @return counts down on each of the next {@code count} deletions */
    CountDownLatch awaitDeletions(int count) {
        CountDownLatch latch = new CountDownLatch(count);
        deletions = latch;
        return latch;
    }

    /** @return every call so far, in order */
    List<String> calls() {
        lock.lock();
        try {
            return List.copyOf(calls);
        } finally {
            lock.unlock();
        }
    }

    /** @return calls starting with the prefix */
    List<String> calls(String prefix) {
        return calls().stream().filter(c -> c.startsWith(prefix)).toList();
    }

    void clearCalls() {
        lock.lock();
        try {
            calls.clear();
        } finally {
            lock.unlock();
        }
    }

    boolean exists(String name) {
        return segmentInfo(name).isPresent();
    }

    boolean sealed(String name) {
        return segmentInfo(name).map(SegmentInfo::sealed).orElse(false);
    }

    long length(String name) {
        return segmentInfo(name).orElseThrow().length();
    }

    long startOffset(String name) {
        return segmentInfo(name).orElseThrow().startOffset();
    }

    int keyLength(String name) {
        lock.lock();
        try {
            return require(name).keyLength;
        } finally {
            lock.unlock();
        }
    }

    /** @return names of existing segments that start with the prefix */
    List<String> segmentsStartingWith(String prefix) {
        lock.lock();
        try {
            return segments.keySet().stream().filter(n -> n.startsWith(prefix)).toList();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Holds every following merge until {@link #openMerges()}.
     *
     * @return counts down when a merge reaches the gate
     */
    CountDownLatch holdMerges() {
        mergeReached = new CountDownLatch(1);
        mergeGate = new CountDownLatch(1);
        return mergeReached;
    }

    void openMerges() {
        CountDownLatch gate = mergeGate;
        mergeGate = null;
        mergeReached = null;
        if (gate != null) {
            gate.countDown();
        }
    }
}
