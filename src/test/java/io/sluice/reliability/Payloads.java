package io.sluice.reliability;

import java.nio.charset.StandardCharsets;

/**
 * The bytes the mixed workload writes, each self-describing so a reader can check it alone: an ASCII header
 * {@code "<kind> <name> <number> <length>\n"} followed by filler derived from the seed, the name and the number, up
 * to {@code length} bytes in all. Kinds: {@code E} an event (name = routing key, number = its sequence number on
 * that key), {@code M} a key's end marker (number = how many events came before it), {@code T} an event of a
 * transaction (name = the transaction's routing key, number = its index in the transaction). Byte stream chunks are
 * filler only ({@link #chunk}).
 */
final class Payloads {
    /** What a payload's header says. */
    record Header(char kind, String name, long number, int length) {
    }

    private Payloads() {
    }

    /**
     * @param kind the kind
     * @param name the routing key
     * @param number the sequence number or index
     * @param length the payload's length in all, at least the header's
     * @param seed the workload's seed
     * @return the payload
     */
    static byte[] make(char kind, String name, long number, int length, long seed) {
        byte[] header = (kind + " " + name + " " + number + " " + length + "\n").getBytes(StandardCharsets.US_ASCII);
        byte[] out = new byte[Math.max(length, header.length)];
        System.arraycopy(header, 0, out, 0, header.length);
        int start = start(seed, name, number);
        for (int i = header.length; i < out.length; i++) {
            out[i] = filler(start, i);
        }
        return out;
    }

    /**
     * Parses and checks a payload.
     *
     * @param payload what a reader got
     * @param seed the workload's seed
     * @return its header
     * @throws IllegalArgumentException naming what is wrong: no header, a wrong length, a wrong byte
     */
    static Header check(byte[] payload, long seed) {
        int nl = -1;
        for (int i = 0; i < Math.min(payload.length, 200); i++) {
            if (payload[i] == '\n') {
                nl = i;
                break;
            }
        }
        if (nl < 0) {
            throw new IllegalArgumentException("no header in a payload of " + payload.length + " bytes");
        }
        String[] parts = new String(payload, 0, nl, StandardCharsets.US_ASCII).split(" ");
        if (parts.length != 4 || parts[0].length() != 1) {
            throw new IllegalArgumentException("a malformed header: " + new String(payload, 0, nl,
                    StandardCharsets.US_ASCII));
        }
        Header h;
        try {
            h = new Header(parts[0].charAt(0), parts[1], Long.parseLong(parts[2]), Integer.parseInt(parts[3]));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("a malformed header: " + String.join(" ", parts), e);
        }
        if (payload.length != Math.max(h.length(), nl + 1)) {
            throw new IllegalArgumentException(h + " came with " + payload.length + " bytes");
        }
        int start = start(seed, h.name(), h.number());
        for (int i = nl + 1; i < payload.length; i++) {
            if (payload[i] != filler(start, i)) {
                throw new IllegalArgumentException(h + " has a wrong byte at " + i);
            }
        }
        return h;
    }

    /**
     * @param index the chunk's index
     * @param maxBytes the longest a chunk may be
     * @param seed the workload's seed
     * @return byte stream chunk {@code index}: 1 to {@code maxBytes} bytes of filler
     */
    static byte[] chunk(int index, int maxBytes, long seed) {
        int start = start(seed, "chunk", index);
        byte[] out = new byte[1 + Math.floorMod(start, maxBytes)];
        for (int i = 0; i < out.length; i++) {
            out[i] = filler(start, i);
        }
        return out;
    }

    private static int start(long seed, String name, long number) {
        long h = seed * 0x9E3779B97F4A7C15L + name.hashCode() * 31L + number;
        h ^= h >>> 33;
        h *= 0xff51afd7ed558ccdL;
        h ^= h >>> 33;
        return (int) h;
    }

    private static byte filler(int start, int i) {
        return (byte) (((start + i) * 0x9E3779B1) >>> 24);
    }
}
