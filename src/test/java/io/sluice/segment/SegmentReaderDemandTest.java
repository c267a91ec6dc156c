package io.sluice.segment;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import io.sluice.common.Await;
import io.sluice.connection.ConnectionPool;
import io.sluice.connection.TcpConnectionFactory;
import io.sluice.server.SegmentStore;
import io.sluice.server.SegmentStoreServer;
import io.sluice.server.TokenVerifier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A reader without {@link SegmentReader.Config#fetchLargeAhead}: of an event larger than its window it holds at most
 * the window until the consumer asks for the event, so a consumer that handles one event at a time (the batch
 * client's iterator) never holds two large events at once. With it (the default), the event is fetched whole at once.
 */
@Timeout(60)
class SegmentReaderDemandTest {
    private static final String SEG = "scope/stream/0.#epoch.0";
    private static final int WINDOW = 16 * 1024;
    private static final int EVENT = 1024 * 1024;
    private static final int EVENTS = 3;

    private SegmentStore store;
    private SegmentStoreServer server;
    private ConnectionPool pool;
    private final LinkedBlockingQueue<SegmentReader> ready = new LinkedBlockingQueue<>();
    private final List<SegmentReader> readers = new ArrayList<>();

    @BeforeEach
    void start() throws Exception {
        store = SegmentStore.inMemory(1);
        server = new SegmentStoreServer(store, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), null,
                TokenVerifier.ACCEPT_ALL);
        pool = new ConnectionPool(new TcpConnectionFactory());
        store.createSegment(SEG, (byte) 0, 0, 0);
        try (SegmentWriter w = new SegmentWriter(SEG, UUID.randomUUID(), pool, SegmentLocator.fixed(server.endpoint()),
                () -> null, SegmentWriter.Config.DEFAULT, (s, u) -> { })) {
            List<CompletableFuture<Void>> acks = new ArrayList<>();
            for (int i = 0; i < EVENTS; i++) {
                PendingEvent e = PendingEvent.of(null, ByteBuffer.wrap(body(i)));
                w.write(e);
                acks.add(e.future());
            }
            CompletableFuture.allOf(acks.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
        }
    }

    @AfterEach
    void stop() {
        readers.forEach(SegmentReader::close);
        pool.close();
        server.close();
    }

    private static byte[] body(int i) {
        byte[] b = new byte[EVENT];
        for (int k = 0; k < b.length; k++) {
            b[k] = (byte) (i * 31 + k);
        }
        return b;
    }

    private SegmentReader reader(boolean fetchLargeAhead) {
        SegmentReader r = new SegmentReader(SEG, 0, Long.MAX_VALUE, pool, SegmentLocator.fixed(server.endpoint()),
                () -> null, new SegmentReader.Config(WINDOW, SegmentReader.Config.DEFAULT.retry(), fetchLargeAhead),
                ready::add);
        readers.add(r);
        return r;
    }

    /** Asks for the next event and waits for it. */
    private SegmentReader.ReadEvent take(SegmentReader r) throws InterruptedException {
        while (true) {
            SegmentReader.ReadEvent e = r.next();
            if (e != null) {
                return e;
            }
            assertThat(r.isFinished()).as("finished before the event came").isFalse();
            assertThat(ready.poll(30, TimeUnit.SECONDS)).as("reader signals the event").isNotNull();
        }
    }

    @Test
    void aLargeEventIsFetchedOnlyOnceTheConsumerAsksForIt() throws Exception {
        SegmentReader r = reader(false);
        for (int i = 0; i < EVENTS; i++) {
            // the window of event i is here, and no more of it until it is asked for
            Await.until("the reader holds back event " + i, r::waitsForDemand);
            assertThat(r.available()).as("bytes held before event %d is asked for", i).isLessThanOrEqualTo(WINDOW);
            assertThat(r.hasSomething()).isFalse();
            SegmentReader.ReadEvent e = take(r);
            assertThat(e.payload()).isEqualTo(ByteBuffer.wrap(body(i)));
        }
        assertThat(r.next()).isNull();
        assertThat(r.waitsForDemand()).isFalse();
    }

    @Test
    void byDefaultALargeEventIsFetchedWholeAhead() throws Exception {
        SegmentReader r = reader(true);
        Await.until("the first event fetched whole", r::hasSomething);
        assertThat(r.available()).isGreaterThanOrEqualTo(EVENT);
        assertThat(r.waitsForDemand()).isFalse();
        for (int i = 0; i < EVENTS; i++) {
            assertThat(take(r).payload()).isEqualTo(ByteBuffer.wrap(body(i)));
        }
    }
}
