package io.sluice.reliability;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

import io.sluice.stream.EventPointer;

/**
 * The mixed workload's account of its events: what the writers had acknowledged or saw fail, per routing key and
 * sequence number, and what the readers got, so that at the end it can say what was lost, duplicated or read out of
 * order. Readers record as they read, before they read on (a reader group hands a segment to another reader only
 * between two reads of its owner, so the order of the records per key is the order of the stream). Thread-safe.
 */
final class EventLedger {
    private static final int EXAMPLES = 20;

    /** One routing key's events. */
    private static final class Key {
        private final ReentrantLock lock = new ReentrantLock();
        /** Guarded by lock, like every field below: sequence numbers acknowledged, failed, read. */
        private final BitSet acked = new BitSet();
        private final BitSet failed = new BitSet();
        private final BitSet seen = new BitSet();
        private long lastSeen = -1;
        /** The marker's number once a writer wrote it (-1 before), and whether it was read. */
        private long marker = -1;
        private boolean markerSeen;
        /** Where each sequence number was read (the segment's offset) and by which reader, for a duplicate's story. */
        private long[] offsets = new long[64];
        private String[] readers = new String[64];

        void where(int seq, long offset, String reader) {
            if (seq >= offsets.length) {
                int n = Math.max(seq + 1, offsets.length * 2);
                offsets = Arrays.copyOf(offsets, n);
                readers = Arrays.copyOf(readers, n);
            }
            offsets[seq] = offset;
            readers[seq] = reader;
        }
    }

    private final Map<String, Key> keys = new ConcurrentHashMap<>();
    private final Map<String, BitSet> txnSeen = new ConcurrentHashMap<>();
    private final ReentrantLock txnLock = new ReentrantLock();
    private final AtomicLong read = new AtomicLong();
    private final AtomicLong readBytes = new AtomicLong();
    private final AtomicLong duplicates = new AtomicLong();
    private final AtomicLong outOfOrder = new AtomicLong();
    private final AtomicLong corrupt = new AtomicLong();
    private final AtomicLong markersSeen = new AtomicLong();
    private final List<String> examples = new CopyOnWriteArrayList<>();

    private Key key(String name) {
        return keys.computeIfAbsent(name, k -> new Key());
    }

    /** A writer's event on {@code name} with {@code seq} was acknowledged. */
    void acked(String name, long seq) {
        Key k = key(name);
        k.lock.lock();
        try {
            k.acked.set(Math.toIntExact(seq));
        } finally {
            k.lock.unlock();
        }
    }

    /** A writer's event on {@code name} with {@code seq} failed (it may or may not be in the stream). */
    void failed(String name, long seq) {
        Key k = key(name);
        k.lock.lock();
        try {
            k.failed.set(Math.toIntExact(seq));
        } finally {
            k.lock.unlock();
        }
    }

    /** The end marker of {@code name}, numbered after its last event, was acknowledged. */
    void markerAcked(String name, long number) {
        Key k = key(name);
        k.lock.lock();
        try {
            k.marker = number;
        } finally {
            k.lock.unlock();
        }
    }

    /**
     * Records what a reader read.
     *
     * @param payload the event
     * @param pointer where it was read from
     * @param reader who read it
     * @param seed the workload's seed, to check the payload's bytes
     */
    void read(byte[] payload, EventPointer pointer, String reader, long seed) {
        read.incrementAndGet();
        readBytes.addAndGet(payload.length);
        Payloads.Header h;
        try {
            h = Payloads.check(payload, seed);
        } catch (IllegalArgumentException e) {
            corrupt.incrementAndGet();
            example("corrupt event: " + e.getMessage());
            return;
        }
        switch (h.kind()) {
            case 'E' -> readEvent(h, pointer, reader);
            case 'M' -> readMarker(h);
            case 'T' -> readTxnEvent(h);
            default -> {
                corrupt.incrementAndGet();
                example("an event of unknown kind: " + h);
            }
        }
    }

    private void readEvent(Payloads.Header h, EventPointer pointer, String reader) {
        Key k = key(h.name());
        int seq = Math.toIntExact(h.number());
        k.lock.lock();
        try {
            if (k.seen.get(seq)) {
                duplicates.incrementAndGet();
                // the same offset twice: delivered twice; another offset: stored twice
                example("duplicate: " + h.name() + " #" + seq + " read by " + k.readers[seq] + " at offset "
                        + k.offsets[seq] + ", then by " + reader + " at " + pointer);
                return;
            }
            k.where(seq, pointer == null ? -1 : pointer.offset(), reader);
            if (seq < k.lastSeen || k.markerSeen) {
                outOfOrder.incrementAndGet();
                example("out of order: " + h.name() + " #" + seq + " after #" + k.lastSeen
                        + (k.markerSeen ? " and the key's end marker" : ""));
            }
            k.seen.set(seq);
            k.lastSeen = Math.max(k.lastSeen, seq);
        } finally {
            k.lock.unlock();
        }
    }

    private void readMarker(Payloads.Header h) {
        Key k = key(h.name());
        k.lock.lock();
        try {
            if (k.markerSeen) {
                duplicates.incrementAndGet();
                example("duplicate end marker of " + h.name());
                return;
            }
            k.markerSeen = true;
        } finally {
            k.lock.unlock();
        }
        markersSeen.incrementAndGet();
    }

    private void readTxnEvent(Payloads.Header h) {
        int index = Math.toIntExact(h.number());
        txnLock.lock();
        try {
            BitSet seen = txnSeen.computeIfAbsent(h.name(), n -> new BitSet());
            if (seen.get(index)) {
                duplicates.incrementAndGet();
                example("duplicate: " + h.name() + " #" + index);
                return;
            }
            if (seen.length() > index) {
                outOfOrder.incrementAndGet();
                example("out of order: " + h.name() + " #" + index + " after #" + (seen.length() - 1));
            }
            seen.set(index);
        } finally {
            txnLock.unlock();
        }
    }

    private void example(String what) {
        if (examples.size() < EXAMPLES) {
            examples.add(what);
        }
    }

    /** @return how many end markers the readers read */
    long markersSeen() {
        return markersSeen.get();
    }

    /** @return events read so far, markers and transaction events included */
    long eventsRead() {
        return read.get();
    }

    /** @return bytes of events read so far */
    long bytesRead() {
        return readBytes.get();
    }

    /** @return how many events of the transaction with routing key {@code name} were read */
    int txnEventsRead(String name) {
        txnLock.lock();
        try {
            BitSet seen = txnSeen.get(name);
            return seen == null ? 0 : seen.cardinality();
        } finally {
            txnLock.unlock();
        }
    }

    /**
     * @param markers how many keys have end markers
     * @return whether every acknowledged event and every acknowledged marker was read
     */
    boolean allRead(int markers) {
        if (markersSeen.get() < markers) {
            return false;
        }
        for (Key k : keys.values()) {
            k.lock.lock();
            try {
                BitSet missing = (BitSet) k.acked.clone();
                missing.andNot(k.seen);
                if (!missing.isEmpty() || (k.marker >= 0 && !k.markerSeen)) {
                    return false;
                }
            } finally {
                k.lock.unlock();
            }
        }
        return true;
    }

    /** The figures and the problems found in the events, once reading is over. */
    record Account(long acked, long failed, long read, long lost, long duplicates, long outOfOrder, long corrupt,
                   long unexpected, List<String> problems) {
    }

    /** @return the account of the events (transactions aside: see {@link #txnEventsRead}) */
    Account account() {
        long acked = 0;
        long failed = 0;
        long lost = 0;
        long unexpected = 0;
        List<String> problems = new ArrayList<>();
        for (Map.Entry<String, Key> e : keys.entrySet()) {
            Key k = e.getValue();
            k.lock.lock();
            try {
                acked += k.acked.cardinality();
                failed += k.failed.cardinality();
                BitSet missing = (BitSet) k.acked.clone();
                missing.andNot(k.seen);
                if (!missing.isEmpty()) {
                    lost += missing.cardinality();
                    problems.add("lost: " + missing.cardinality() + " acknowledged events of " + e.getKey()
                            + ", the first #" + missing.nextSetBit(0));
                }
                BitSet extra = (BitSet) k.seen.clone();
                extra.andNot(k.acked);
                extra.andNot(k.failed);
                if (!extra.isEmpty()) {
                    unexpected += extra.cardinality();
                    problems.add("read but never written: " + extra.cardinality() + " events of " + e.getKey()
                            + ", the first #" + extra.nextSetBit(0));
                }
                if (k.marker >= 0 && !k.markerSeen) {
                    problems.add("lost: the end marker of " + e.getKey());
                }
            } finally {
                k.lock.unlock();
            }
        }
        if (duplicates.get() > 0) {
            problems.add(duplicates.get() + " duplicated events");
        }
        if (outOfOrder.get() > 0) {
            problems.add(outOfOrder.get() + " events out of their key's order");
        }
        if (corrupt.get() > 0) {
            problems.add(corrupt.get() + " corrupt events");
        }
        if ((lost > 0 || duplicates.get() > 0 || outOfOrder.get() > 0 || corrupt.get() > 0) && !examples.isEmpty()) {
            problems.add("examples: " + examples);
        }
        return new Account(acked, failed, read.get(), lost, duplicates.get(), outOfOrder.get(), corrupt.get(),
                unexpected, problems);
    }
}
