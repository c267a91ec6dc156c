package io.sluice.server;

import io.sluice.wire.WireOutput;

/** Texts the server puts on the wire: names in messages kept short, and whether a name can be encoded at all. */
final class WireText {
    /** Names longer than this are shortened in messages. */
    static final int MAX_NAME_IN_MESSAGE = 200;

    private WireText() {
    }

    /**
     * @return {@code text} if it is short, else its start and its length: a message naming it then always fits on
     *     the wire (a name may be up to 65535 bytes, and the message around it adds more)
     */
    static String abbreviate(String text) {
        if (text == null || text.length() <= MAX_NAME_IN_MESSAGE) {
            return text;
        }
        return text.substring(0, MAX_NAME_IN_MESSAGE) + "... (" + text.length() + " characters)";
    }

    /** @return true if {@code name} fits a wire string (at most 65535 bytes of modified UTF-8) */
    static boolean fits(String name) {
        return WireOutput.utfLength(name) <= WireOutput.MAX_UTF_LENGTH;
    }
}
