package io.sluice.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Random;

import io.sluice.wire.samples.AllSamples;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Random and mutated frames: the decoder returns a command, asks for more bytes, or throws
 * {@link InvalidWireCommandException} — nothing else, never hangs, and never allocates more than a small multiple
 * of the bytes it was given (so a lying length or count cannot make it allocate up to the frame limit).
 */
@Timeout(120)
class DecoderFuzzTest {
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    /** Fixed overhead a decode may allocate whatever the input (objects, small arrays). */
    private static final long BASE_ALLOWANCE = 16 * 1024;

    private boolean measuring;
    private long maxAllocation;
    private int decoded;
    private int rejected;
    private int incomplete;

    private void decodeAll(byte[] input) {
        ByteBuffer in = ByteBuffer.wrap(input);
        long before = THREADS.getCurrentThreadAllocatedBytes();
        try {
            while (in.hasRemaining()) {
                WireCommand c = FrameCodec.decode(in);
                if (c == null) {
                    incomplete++;
                    break;
                }
                decoded++;
                // what was decoded must encode again: no half-built command escapes the decoder
                FrameCodec.encode(c);
            }
        } catch (InvalidWireCommandException e) {
            rejected++;
            assertThat(e.problem()).isNotNull();
            assertThat(e.getMessage()).isNotBlank();
        } catch (IllegalArgumentException e) {
            // re-encoding may refuse a decoded string longer than 65535 bytes of modified UTF-8? impossible: the
            // decoder only reads strings of at most 65535 bytes; anything here is a bug
            fail("decoder produced an unencodable command", e);
        } catch (RuntimeException | Error e) {
            fail("decoder threw " + e + " for input of " + input.length + " bytes", e);
        }
        long allocated = THREADS.getCurrentThreadAllocatedBytes() - before;
        if (!measuring) {
            return;
        }
        // strings decode to char arrays (2 bytes per input byte) plus their String; re-encoding copies once more
        long allowance = BASE_ALLOWANCE + 8L * input.length;
        if (allocated > allowance) {
            fail("decoding " + input.length + " bytes allocated " + allocated + " bytes");
        }
        maxAllocation = Math.max(maxAllocation, allocated);
    }

    /**
     * Runs every decoding path once before allocation is measured: first-time class loading, lambda and
     * string-concatenation bootstraps allocate far more than decoding itself.
     */
    @BeforeEach
    void warmUp() {
        Random random = new Random(-1);
        for (int round = 0; round < 5; round++) {
            for (WireCommand c : AllSamples.samples(new Random(round))) {
                byte[] valid = FrameCodec.encode(c);
                for (int m = 0; m < 12; m++) {
                    decodeAll(mutate(valid, random));
                }
            }
        }
        decoded = 0;
        rejected = 0;
        incomplete = 0;
        measuring = true;
    }

    @Test
    void mutatedValidFramesNeverBreakTheDecoder() {
        Random random = new Random(2024);
        for (int round = 0; round < 40; round++) {
            List<WireCommand> samples = AllSamples.samples(new Random(round));
            for (WireCommand c : samples) {
                byte[] valid = FrameCodec.encode(c);
                for (int m = 0; m < 12; m++) {
                    decodeAll(mutate(valid, random));
                }
            }
        }
        assertThat(decoded).as("some mutants still decode").isGreaterThan(1000);
        assertThat(rejected).as("some mutants are rejected").isGreaterThan(1000);
        assertThat(incomplete).as("some mutants are incomplete").isGreaterThan(100);
    }

    @Test
    void randomBytesNeverBreakTheDecoder() {
        Random random = new Random(77);
        for (int i = 0; i < 50_000; i++) {
            byte[] b = new byte[random.nextInt(64)];
            random.nextBytes(b);
            if (b.length >= 8 && random.nextBoolean()) {
                // aim at real type codes so payload decoders get exercised, not just the header check
                WireCommandType[] types = WireCommandType.topLevel();
                ByteBuffer.wrap(b).putInt(types[random.nextInt(types.length)].code())
                        .putInt(random.nextInt(b.length - 7));
            }
            decodeAll(b);
        }
        assertThat(decoded + rejected + incomplete).isGreaterThanOrEqualTo(50_000);
    }

    @Test
    void lyingCountsAndLengthsDoNotAllocate() {
        // TableEntriesUpdated claiming 2^30 versions in an 12-byte payload
        byte[] updated = ByteBuffer.allocate(8 + 12).putInt(75).putInt(12).putLong(1).putInt(1 << 30).array();
        decodeAll(updated);
        // StorageChunksListed claiming Integer.MAX_VALUE chunks
        byte[] chunks = ByteBuffer.allocate(8 + 12).putInt(-6).putInt(12).putLong(1).putInt(Integer.MAX_VALUE).array();
        decodeAll(chunks);
        // SegmentRead whose data length claims 16 MiB inside a 40-byte payload
        byte[] read = ByteBuffer.allocate(8 + 40).putInt(10).putInt(40).putShort((short) 1).put((byte) 's')
                .putLong(0).put((byte) 0).put((byte) 0).putInt(16 << 20).array();
        decodeAll(read);
        // a header announcing the largest frame, with none of it present
        byte[] header = ByteBuffer.allocate(8).putInt(3).putInt(WireProtocol.MAX_WIRECOMMAND_SIZE
                - WireProtocol.HEADER_SIZE).array();
        decodeAll(header);
        assertThat(rejected).isEqualTo(3);
        assertThat(incomplete).isEqualTo(1);
        assertThat(maxAllocation).isLessThan(BASE_ALLOWANCE + 8 * 48);
    }

    private static byte[] mutate(byte[] valid, Random random) {
        byte[] b = valid.clone();
        switch (random.nextInt(7)) {
            case 0 -> { // flip a few random bits
                for (int i = 0; i < 1 + random.nextInt(4); i++) {
                    int at = random.nextInt(b.length);
                    b[at] ^= (byte) (1 << random.nextInt(8));
                }
            }
            case 1 -> { // truncate the payload but keep the header's length
                b = java.util.Arrays.copyOf(b, 8 + random.nextInt(Math.max(1, b.length - 8)));
                ByteBuffer.wrap(b).putInt(4, b.length - 8);
            }
            case 2 -> ByteBuffer.wrap(b).putInt(4, random.nextInt()); // lying length
            case 3 -> { // random byte somewhere in the payload
                if (b.length > 8) {
                    b[8 + random.nextInt(b.length - 8)] = (byte) random.nextInt();
                }
            }
            case 4 -> { // a large value in a random int-aligned position (counts, lengths)
                if (b.length >= 12) {
                    int at = 8 + random.nextInt(b.length - 11);
                    ByteBuffer.wrap(b).putInt(at, random.nextBoolean() ? Integer.MAX_VALUE : -random.nextInt(1000));
                }
            }
            case 5 -> b = java.util.Arrays.copyOf(b, random.nextInt(b.length + 1)); // cut anywhere
            default -> ByteBuffer.wrap(b).putInt(0, random.nextInt(256) - 128); // another type code
        }
        return b;
    }
}
