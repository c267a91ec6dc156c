package io.sluice.server;

import java.util.List;

/**
 * One input of {@link WireFuzzTest}: the bytes one fuzz connection sends, in the writes it sends them in, and how
 * the connection behaves afterwards. Everything is derived from {@link #seed}, so an input can be replayed.
 *
 * @param seed the seed it was generated from ({@code -Dsluice.fuzz.seed=} replays it)
 * @param description what was generated and mutated, for the report of a failure
 * @param writes the bytes, one array per socket write (frames straddle writes on purpose)
 * @param behaviour what the connection does besides sending
 */
record FuzzInput(long seed, String description, List<byte[]> writes, Behaviour behaviour) {

    /** What a fuzz connection does after (or instead of) reading its replies. */
    enum Behaviour {
        /** Sends, then a sentinel request, and reads replies until the sentinel's answer, the end or a pause. */
        READ_REPLIES,
        /** Sends and closes without reading a byte. */
        NEVER_READ,
        /** Sends, shuts its output down (FIN) and reads what comes until the server closes. */
        HALF_CLOSE,
        /** Sends and then goes silent with the socket open, never reading, until the end of its batch. */
        HALF_OPEN,
        /** Sends and closes with a reset (SO_LINGER 0), dropping whatever the server sent. */
        RESET
    }

    /** @return the number of bytes the input sends */
    int bytes() {
        return writes.stream().mapToInt(b -> b.length).sum();
    }

    @Override
    public String toString() {
        return "seed " + seed + " (" + bytes() + " bytes, " + behaviour + "): " + description;
    }
}
