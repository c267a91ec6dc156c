package io.sluice.common;

import java.nio.ByteBuffer;
import java.util.UUID;

/**
 * The seeded hashes Pravega clients use to place keys, bit-exact with the Java client (Guava's
 * {@code murmur3_128}, see docs/controller.md §4), so that Sluice and the official client send the same routing
 * key to the same segment — non-ASCII keys included.
 *
 * <p>A hash becomes a fraction in {@code [0, 1)} from the top 52 bits of the first 64-bit half; a segment owns
 * the keys whose fraction falls in its key range. Stateless and thread-safe.
 */
public final class KeyHash {
    /** {@code "EventRouter".hashCode()}: seed for event routing keys. */
    public static final int EVENT_ROUTER_SEED = 1741865571;
    /** {@code "KeyValueTableRouter".hashCode()}: seed for key-value-table primary keys. */
    public static final int KEY_VALUE_TABLE_SEED = -2020233499;
    /** {@code "SegmentAttribute".hashCode()}: seed for segment attribute ids derived from names. */
    public static final int SEGMENT_ATTRIBUTE_SEED = 817748169;

    private static final long C1 = 0x87c37b91114253d5L;
    private static final long C2 = 0x4cf5ad432745937fL;

    private KeyHash() {
    }

    /**
     * The routing-key fraction of an event, as the Java client computes it: MurmurHash3 x64-128 of the key's
     * UTF-16 code units written little-endian, seeded with {@link #EVENT_ROUTER_SEED}.
     *
     * @param routingKey the key (any string, surrogate pairs hash as two code units)
     * @return a fraction in {@code [0, 1)}
     */
    public static double routingKey(String routingKey) {
        return toFraction(hashChars(routingKey, EVENT_ROUTER_SEED)[0]);
    }

    /**
     * The fraction of a key-value table's primary key: MurmurHash3 x64-128 of the raw bytes, seeded with
     * {@link #KEY_VALUE_TABLE_SEED} (sign-extended, as Guava does).
     *
     * @param primaryKey the key bytes from position to limit (the position does not move)
     * @return a fraction in {@code [0, 1)}
     */
    public static double tableKey(ByteBuffer primaryKey) {
        return toFraction(hashBytes(primaryKey, KEY_VALUE_TABLE_SEED)[0]);
    }

    /**
     * The attribute id Pravega derives from a name (e.g. {@code "RevisionStreamClientMark"} →
     * {@code 7df9a874-246c-c9d6-9397-cdd19ead68c5}): the 16 digest bytes read as a big-endian UUID.
     *
     * @param name the attribute's name
     * @return its id
     */
    public static UUID attributeId(String name) {
        long[] h = hashChars(name, SEGMENT_ATTRIBUTE_SEED);
        return new UUID(Long.reverseBytes(h[0]), Long.reverseBytes(h[1]));
    }

    /**
     * Maps a 64-bit hash to {@code [0, 1)} using its top 52 bits as the mantissa.
     *
     * @param hash the hash
     * @return the fraction
     */
    public static double toFraction(long hash) {
        return Double.longBitsToDouble(0x3FF0000000000000L + ((hash >>> 12) & 0x000FFFFFFFFFFFFFL)) - 1.0;
    }

    /**
     * MurmurHash3 x64-128 of a string's UTF-16 code units, little-endian (Guava's {@code hashUnencodedChars}).
     *
     * @return {@code {h1, h2}}
     */
    public static long[] hashChars(String s, int seed) {
        long h1 = seed;
        long h2 = seed;
        int n = s.length();
        int i = 0;
        for (; i + 8 <= n; i += 8) {
            long k1 = chars4(s, i);
            long k2 = chars4(s, i + 4);
            h1 = mixH1(h1, h2, k1);
            h2 = mixH2(h2, h1, k2);
        }
        long k1 = 0;
        long k2 = 0;
        int rest = n - i;
        for (int j = rest - 1; j >= 0; j--) {
            long c = s.charAt(i + j);
            if (j >= 4) {
                k2 |= c << (16 * (j - 4));
            } else {
                k1 |= c << (16 * j);
            }
        }
        return finish(h1, h2, k1, k2, rest > 4, rest > 0, 2L * n);
    }

    /**
     * MurmurHash3 x64-128 of raw bytes (Guava's {@code hashBytes}).
     *
     * @param bytes from position to limit (the position does not move)
     * @return {@code {h1, h2}}
     */
    public static long[] hashBytes(ByteBuffer bytes, int seed) {
        long h1 = seed;
        long h2 = seed;
        int start = bytes.position();
        int n = bytes.remaining();
        int i = 0;
        for (; i + 16 <= n; i += 16) {
            long k1 = bytesLe(bytes, start + i, 8);
            long k2 = bytesLe(bytes, start + i + 8, 8);
            h1 = mixH1(h1, h2, k1);
            h2 = mixH2(h2, h1, k2);
        }
        int rest = n - i;
        long k1 = bytesLe(bytes, start + i, Math.min(8, rest));
        long k2 = rest > 8 ? bytesLe(bytes, start + i + 8, rest - 8) : 0;
        return finish(h1, h2, k1, k2, rest > 8, rest > 0, n);
    }

    private static long chars4(String s, int i) {
        return (long) s.charAt(i) | ((long) s.charAt(i + 1) << 16) | ((long) s.charAt(i + 2) << 32)
                | ((long) s.charAt(i + 3) << 48);
    }

    private static long bytesLe(ByteBuffer b, int at, int count) {
        long v = 0;
        for (int j = count - 1; j >= 0; j--) {
            v = (v << 8) | (b.get(at + j) & 0xFFL);
        }
        return v;
    }

    private static long mixH1(long h1, long h2, long k1) {
        h1 ^= mixK1(k1);
        h1 = Long.rotateLeft(h1, 27);
        h1 += h2;
        return h1 * 5 + 0x52dce729;
    }

    private static long mixH2(long h2, long h1, long k2) {
        h2 ^= mixK2(k2);
        h2 = Long.rotateLeft(h2, 31);
        h2 += h1;
        return h2 * 5 + 0x38495ab5;
    }

    private static long mixK1(long k1) {
        k1 *= C1;
        k1 = Long.rotateLeft(k1, 31);
        return k1 * C2;
    }

    private static long mixK2(long k2) {
        k2 *= C2;
        k2 = Long.rotateLeft(k2, 33);
        return k2 * C1;
    }

    private static long[] finish(long h1, long h2, long k1, long k2, boolean hasK2, boolean hasTail, long length) {
        if (hasK2) {
            h2 ^= mixK2(k2);
        }
        if (hasTail) {
            h1 ^= mixK1(k1);
        }
        h1 ^= length;
        h2 ^= length;
        h1 += h2;
        h2 += h1;
        h1 = fmix64(h1);
        h2 = fmix64(h2);
        h1 += h2;
        h2 += h1;
        return new long[] {h1, h2};
    }

    private static long fmix64(long k) {
        k ^= k >>> 33;
        k *= 0xff51afd7ed558ccdL;
        k ^= k >>> 33;
        k *= 0xc4ceb9fe1a85ec53L;
        k ^= k >>> 33;
        return k;
    }
}
