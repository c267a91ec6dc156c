package io.sluice.connection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.atomic.AtomicInteger;

import io.sluice.errors.IncompatibleServerException;
import io.sluice.segment.SegmentCalls;
import io.sluice.segment.SegmentLocator;
import io.sluice.segment.SegmentMetadataClient;
import io.sluice.wire.Hello;
import io.sluice.wire.LocateOffset;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link SegmentMetadataClient#locateOffset} against a segment store of wire version 16 (as Pravega 0.13): a clear
 * error naming the version, and no {@code LocateOffset} sent.
 */
@Timeout(30)
class LocateOffsetVersionTest {

    @Test
    void aVersion16SegmentStoreIsNotAskedAndTheErrorNamesItsVersion() throws Exception {
        AtomicInteger located = new AtomicInteger();
        try (FakeSegmentStore store = new FakeSegmentStore(new Hello(16, 5), (r, p) -> {
            if (r instanceof LocateOffset) {
                located.incrementAndGet();
            }
        }); ConnectionPool pool = new ConnectionPool(new TcpConnectionFactory())) {
            SegmentCalls calls = new SegmentCalls(pool, SegmentLocator.fixed(store.endpoint()), SegmentCalls.Config.DEFAULT);
            SegmentMetadataClient c = new SegmentMetadataClient(calls, "old/s/0.#epoch.0", null);
            assertThatThrownBy(() -> c.locateOffset(10)).isInstanceOf(IncompatibleServerException.class)
                    .hasMessageContaining("wire version 16").hasMessageContaining("LocateOffset")
                    .hasMessageContaining("old/s/0.#epoch.0");
            assertThat(located).hasValue(0);
        }
    }
}
