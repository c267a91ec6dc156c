package io.sluice.compat.official;

import java.nio.ByteBuffer;

import io.pravega.client.stream.Serializer;

/**
 * The events of the {@code events} part and of {@code bench}: event {@code i} goes to routing key
 * {@code key-(i % KEYS)} and carries its key index and per-key sequence number {@code i / KEYS}, then filler bytes
 * that are a function of (key, sequence, position), so a reader can check each event's content on its own.
 *
 * <pre>
 *   int32 key | int32 sequence | filler[size - 8], filler[j] = (byte) (key * 7 + sequence * 13 + j)
 * </pre>
 * Stateless and thread-safe.
 */
final class Payload {
    /** Routing keys used by the workload, as in Sluice's {@code bench}. */
    static final int KEYS = 64;
    /** Bytes of key index and sequence number at the start of every event. */
    static final int HEADER_BYTES = 8;
    /** Largest event the official client accepts without large-event support (8 MiB). */
    static final int MAX_EVENT_BYTES = 8 * 1024 * 1024;

    /** Filler bytes copied or compared at a time. */
    private static final int FILLER_CHUNK = 64 * 1024;
    /** {@code FILLER[i] = (byte) i}: the filler repeats every 256 bytes, so any run of it is a slice of this. */
    private static final byte[] FILLER = new byte[FILLER_CHUNK + 256];

    private static final String[] ROUTING_KEYS = new String[KEYS];

    static {
        for (int k = 0; k < KEYS; k++) {
            ROUTING_KEYS[k] = "key-" + k;
        }
        for (int i = 0; i < FILLER.length; i++) {
            FILLER[i] = (byte) i;
        }
    }

    /** Passes {@link ByteBuffer}s through unchanged: the driver builds the payload bytes itself. */
    static final Serializer<ByteBuffer> SERIALIZER = new Serializer<>() {
        @Override
        public ByteBuffer serialize(ByteBuffer value) {
            return value;
        }

        @Override
        public ByteBuffer deserialize(ByteBuffer serializedValue) {
            return serializedValue;
        }
    };

    private Payload() {
    }

    /** @return the key index of event number {@code i} */
    static int keyOf(long i) {
        return (int) (i % KEYS);
    }

    /** @return the per-key sequence number of event number {@code i} */
    static int seqOf(long i) {
        return (int) (i / KEYS);
    }

    /** @return the routing key for key index {@code key} */
    static String routingKey(int key) {
        return ROUTING_KEYS[key];
    }

    /** @return how many of {@code events} events go to key index {@code key} */
    static long expectedPerKey(long events, int key) {
        return events / KEYS + (key < events % KEYS ? 1 : 0);
    }

    /** @return a new buffer of {@code size} bytes for (key, seq) */
    static ByteBuffer encode(int key, int seq, int size) {
        byte[] b = new byte[size];
        b[0] = (byte) (key >>> 24);
        b[1] = (byte) (key >>> 16);
        b[2] = (byte) (key >>> 8);
        b[3] = (byte) key;
        b[4] = (byte) (seq >>> 24);
        b[5] = (byte) (seq >>> 16);
        b[6] = (byte) (seq >>> 8);
        b[7] = (byte) seq;
        int base = key * 7 + seq * 13;
        for (int j = HEADER_BYTES; j < size; j += FILLER_CHUNK) {
            System.arraycopy(FILLER, (base + j) & 0xFF, b, j, Math.min(FILLER_CHUNK, size - j));
        }
        return ByteBuffer.wrap(b);
    }

    /** @return the key index of an event read back, or -1 if it is too short to have one */
    static int key(ByteBuffer event) {
        return event.remaining() < HEADER_BYTES ? -1 : event.getInt(event.position());
    }

    /** @return the sequence number of an event read back (call {@link #key} first to check its length) */
    static int seq(ByteBuffer event) {
        return event.getInt(event.position() + 4);
    }

    /** @return true if the event has exactly {@code size} bytes and the filler its header implies */
    static boolean contentOk(ByteBuffer event, int size) {
        if (event.remaining() != size) {
            return false;
        }
        int p = event.position();
        int key = event.getInt(p);
        int seq = event.getInt(p + 4);
        if (key < 0 || key >= KEYS || seq < 0) {
            return false;
        }
        int base = key * 7 + seq * 13;
        for (int j = HEADER_BYTES; j < size; j += FILLER_CHUNK) {
            int n = Math.min(FILLER_CHUNK, size - j);
            int from = (base + j) & 0xFF;
            if (event.slice(p + j, n).mismatch(ByteBuffer.wrap(FILLER, from, n)) >= 0) {
                return false;
            }
        }
        return true;
    }
}
