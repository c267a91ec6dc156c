package io.sluice.server.controller;

/**
 * Where the segment store sends its auto-scaling requests (Pravega's {@code AutoScaleEvent}s, which its segment store
 * writes to the controller's request stream): a stream segment that ran hot asks to be split, one that ran cold (or
 * idle) asks to be merged with its neighbours. The controller decides what to do with them (see docs/scaling.md).
 *
 * <p>Calls must not block: the segment store's rate tracker makes them from its timer. Implementations are
 * thread-safe. {@link #close()} stops handling requests.
 */
public interface ScaleRequestListener extends AutoCloseable {
    /** A listener that drops every request. */
    ScaleRequestListener NONE = new ScaleRequestListener() {
        @Override
        public void scaleUp(String segment, int splits, long timestampMillis) {
        }

        @Override
        public void scaleDown(String segment, boolean silent, long timestampMillis) {
        }
    };

    /**
     * The segment's rate has been above its target for long enough.
     *
     * @param segment the qualified segment name ({@code scope/stream/number.#epoch.epoch})
     * @param splits how many segments its traffic asks for (at least 2; the controller caps it at the stream's scale
     *     factor)
     * @param timestampMillis when the segment store made the request
     */
    void scaleUp(String segment, int splits, long timestampMillis);

    /**
     * The segment's rate has been below its target for long enough, or it has been idle.
     *
     * @param segment the qualified segment name
     * @param silent true if the segment has been idle (no traffic for twice the scale window): its cold mark then
     *     does not expire
     * @param timestampMillis when the segment store made the request
     */
    void scaleDown(String segment, boolean silent, long timestampMillis);

    /** Stops handling requests; requests made afterwards are dropped. */
    @Override
    default void close() {
    }
}
