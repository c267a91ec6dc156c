package io.sluice.server;

import io.sluice.wire.Reply;

/** Where a reply goes: a client connection's send queue. Must not block. */
@FunctionalInterface
interface ReplySink {
    /** A sink that drops everything (replay, in-process callers that read results directly). */
    ReplySink NONE = reply -> { };

    void send(Reply reply);
}
