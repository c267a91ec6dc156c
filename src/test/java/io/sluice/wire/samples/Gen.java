package io.sluice.wire.samples;

import java.nio.ByteBuffer;
import java.util.Random;
import java.util.UUID;

/** Random field values for sample commands: strings with non-ASCII, NUL and surrogate pairs; small buffers. */
public final class Gen {
    private Gen() {
    }

    /** @return a random string of 0..20 characters mixing ASCII, NUL, Latin, BMP and supplementary characters */
    public static String string(Random random) {
        int len = random.nextInt(21);
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < len; i++) {
            switch (random.nextInt(6)) {
                case 0 -> sb.append((char) 0);
                case 1 -> sb.append((char) (0xA0 + random.nextInt(0x700)));
                case 2 -> sb.append((char) (0x800 + random.nextInt(0xD000)));
                case 3 -> sb.appendCodePoint(0x10000 + random.nextInt(0xFFFF));
                default -> sb.append((char) (' ' + random.nextInt(95)));
            }
        }
        return sb.toString();
    }

    /** @return a read-only buffer of 0..max random bytes */
    public static ByteBuffer bytes(Random random, int max) {
        byte[] b = new byte[random.nextInt(max + 1)];
        random.nextBytes(b);
        return ByteBuffer.wrap(b).asReadOnlyBuffer();
    }

    /** @return a random UUID */
    public static UUID uuid(Random random) {
        return new UUID(random.nextLong(), random.nextLong());
    }
}
