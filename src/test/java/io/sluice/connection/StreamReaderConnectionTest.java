package io.sluice.connection;

/** {@link ConnectionTest} with callers never reading: the socket is read as a stream by the reader thread alone. */
class StreamReaderConnectionTest extends ConnectionTest {
    @Override
    ConnectionConfig config() {
        return ConnectionConfig.DEFAULT.withCallerReads(false);
    }
}
