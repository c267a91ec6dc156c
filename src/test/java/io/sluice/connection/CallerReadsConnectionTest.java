package io.sluice.connection;

/** {@link ConnectionTest} on connections that awaiting callers may read: a selector over a non-blocking channel. */
class CallerReadsConnectionTest extends ConnectionTest {
    @Override
    ConnectionConfig config() {
        return ConnectionConfig.DEFAULT.withCallerReads(true);
    }
}
