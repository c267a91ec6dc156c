package io.sluice.common;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import java.util.UUID;

import com.google.common.hash.HashCode;
import com.google.common.hash.Hashing;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The routing hash against the vectors of docs/controller.md §4 and against Guava, which the Java client uses. */
@Timeout(30)
class KeyHashTest {

    @Test
    void seedsAreTheHashCodesOfTheirNames() {
        assertThat(KeyHash.EVENT_ROUTER_SEED).isEqualTo("EventRouter".hashCode());
        assertThat(KeyHash.KEY_VALUE_TABLE_SEED).isEqualTo("KeyValueTableRouter".hashCode());
        assertThat(KeyHash.SEGMENT_ATTRIBUTE_SEED).isEqualTo("SegmentAttribute".hashCode());
    }

    @Test
    void routingKeyVectorsFromTheJavaClient() {
        assertThat(KeyHash.hashChars("hello", KeyHash.EVENT_ROUTER_SEED)[0]).isEqualTo(0xa8a1a07ba5f63abfL);
        assertThat(KeyHash.routingKey("hello")).isEqualTo(0.658716230571337);
        assertThat(KeyHash.routingKey("")).isEqualTo(0.24117842791623523);
        assertThat(KeyHash.routingKey("a")).isEqualTo(0.9433912753816884);
        assertThat(KeyHash.routingKey("routingKey")).isEqualTo(0.9115813645916913);
        assertThat(KeyHash.routingKey("\u00e9")).isEqualTo(0.6688272069632242);
        assertThat(KeyHash.routingKey("\ud83d\ude00")).isEqualTo(0.7750255912171164);
    }

    @Test
    void tableKeyVector() {
        assertThat(KeyHash.tableKey(ByteBuffer.wrap(new byte[] {1, 2, 3, 4}))).isEqualTo(0.022915216405436478);
    }

    @Test
    void attributeIdVector() {
        assertThat(KeyHash.attributeId("RevisionStreamClientMark"))
                .isEqualTo(UUID.fromString("7df9a874-246c-c9d6-9397-cdd19ead68c5"));
    }

    @Test
    void matchesGuavaOnRandomStringsOfEveryLength() {
        Random random = new Random(42);
        for (int len = 0; len < 70; len++) {
            for (int trial = 0; trial < 20; trial++) {
                StringBuilder sb = new StringBuilder();
                for (int i = 0; i < len; i++) {
                    // mix ASCII, Latin-1, BMP and lone surrogates: hashing works on code units, not code points
                    sb.append(switch (random.nextInt(4)) {
                        case 0 -> (char) ('a' + random.nextInt(26));
                        case 1 -> (char) (0x80 + random.nextInt(0x780));
                        case 2 -> (char) random.nextInt(0x10000);
                        default -> (char) (0xD800 + random.nextInt(0x800));
                    });
                }
                String key = sb.toString();
                HashCode expected = Hashing.murmur3_128(KeyHash.EVENT_ROUTER_SEED).hashUnencodedChars(key);
                long[] actual = KeyHash.hashChars(key, KeyHash.EVENT_ROUTER_SEED);
                assertThat(actual[0]).as("h1 of %s", key).isEqualTo(expected.asLong());
                assertThat(ByteBuffer.wrap(expected.asBytes()).order(java.nio.ByteOrder.LITTLE_ENDIAN).getLong(8))
                        .as("h2 of %s", key).isEqualTo(actual[1]);
            }
        }
    }

    @Test
    void matchesGuavaOnRandomBytesOfEveryLength() {
        Random random = new Random(7);
        for (int len = 0; len < 70; len++) {
            byte[] bytes = new byte[len];
            random.nextBytes(bytes);
            // a buffer with a non-zero position checks that only position..limit is hashed
            ByteBuffer framed = ByteBuffer.allocate(len + 3).put(new byte[] {9, 9, 9}).put(bytes).position(3);
            long expected = Hashing.murmur3_128(KeyHash.KEY_VALUE_TABLE_SEED).hashBytes(bytes).asLong();
            assertThat(KeyHash.hashBytes(framed, KeyHash.KEY_VALUE_TABLE_SEED)[0]).as("length %d", len).isEqualTo(expected);
            assertThat(framed.position()).isEqualTo(3);
        }
    }

    @Test
    void fractionsStayBelowOne() {
        assertThat(KeyHash.toFraction(-1L)).isLessThan(1.0).isGreaterThan(0.999);
        assertThat(KeyHash.toFraction(0L)).isEqualTo(0.0);
        assertThat(KeyHash.routingKey(new String("x".getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8)))
                .isBetween(0.0, 1.0);
    }
}
