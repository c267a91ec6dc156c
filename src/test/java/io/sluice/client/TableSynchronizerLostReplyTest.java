package io.sluice.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.sluice.common.Endpoint;
import io.sluice.common.Retry;
import io.sluice.common.Threads;
import io.sluice.connection.ConnectionPool;
import io.sluice.connection.TcpConnectionFactory;
import io.sluice.segment.SegmentCalls;
import io.sluice.segment.SegmentLocator;
import io.sluice.segment.TableSegmentClient;
import io.sluice.server.EmbeddedServer;
import io.sluice.stream.Serializers;
import io.sluice.table.TableSynchronizer;
import io.sluice.table.TableSynchronizerScenarios;
import io.sluice.wire.WireCommandType;

/**
 * A table synchronizer whose write reaches the segment store but whose reply is lost with the connection: the call
 * layer sends the write again, which then fails its conditions; the synchronizer's marker key shows the first attempt
 * was applied, so the update is neither lost nor applied twice.
 */
@Timeout(60)
class TableSynchronizerLostReplyTest {
    private static EmbeddedServer server;
    private static ConnectionPool pool;

    @BeforeAll
    static void start() {
        server = EmbeddedServer.builder().inMemory().build();
        pool = new ConnectionPool(new TcpConnectionFactory());
    }

    @AfterAll
    static void stop() {
        if (pool != null) {
            pool.close();
        }
        if (server != null) {
            server.close();
        }
    }

    @Test
    void anUpdateWhoseReplyWasLostIsAppliedOnce() throws Exception {
        try (ReplyDroppingProxy proxy = new ReplyDroppingProxy(server.segmentStoreEndpoint())) {
            SegmentCalls calls = new SegmentCalls(pool, SegmentLocator.fixed(proxy.endpoint()), new SegmentCalls.Config(
                    Retry.withExpBackoff(Duration.ofMillis(1), 2, 5, Duration.ofMillis(50)), Duration.ofSeconds(10)));
            TableSegmentClient table = new TableSegmentClient(calls, "lost/_SYNCcounters/0.#epoch.0", null);
            assertThat(table.create()).isTrue();
            TableSynchronizer<String, Long> sync = new TableSynchronizerImpl<>("lost", "counters", table,
                    Serializers.utf8(), TableSynchronizerScenarios.LONGS);
            sync.update(m -> Map.of("n", 1L));
            AtomicInteger calledWith = new AtomicInteger();
            proxy.dropNextReply();
            Map<String, Long> after = sync.update(m -> {
                calledWith.incrementAndGet();
                return Map.of("n", m.get("n") + 1);
            });
            assertThat(proxy.dropped()).as("a reply was dropped").isTrue();
            assertThat(proxy.updates()).as("the write was sent twice").isGreaterThanOrEqualTo(3);
            assertThat(after).isEqualTo(Map.of("n", 2L));
            assertThat(calledWith.get()).as("the function ran once: the marker showed the write was in").isEqualTo(1);
            TableSynchronizer<String, Long> fresh = new TableSynchronizerImpl<>("lost", "counters",
                    new TableSegmentClient(calls, table.segment(), null), Serializers.utf8(),
                    TableSynchronizerScenarios.LONGS);
            fresh.fetchUpdates();
            assertThat(fresh.snapshot()).isEqualTo(Map.of("n", 2L));
        }
    }

    /**
     * A proxy that passes frames both ways and, when armed, forwards the next {@code UpdateTableEntries} but drops
     * the reply to it and closes the connection.
     */
    private static final class ReplyDroppingProxy implements AutoCloseable {
        private final Endpoint target;
        private final ServerSocket listener;
        private final List<Socket> sockets = new CopyOnWriteArrayList<>();
        private final AtomicBoolean armed = new AtomicBoolean();
        private final AtomicBoolean dropped = new AtomicBoolean();
        private final AtomicInteger updates = new AtomicInteger();

        ReplyDroppingProxy(Endpoint target) throws IOException {
            this.target = target;
            this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            Threads.startVirtual("test-drop-accept", this::accept);
        }

        Endpoint endpoint() {
            return new Endpoint(listener.getInetAddress().getHostAddress(), listener.getLocalPort());
        }

        void dropNextReply() {
            armed.set(true);
        }

        boolean dropped() {
            return dropped.get();
        }

        int updates() {
            return updates.get();
        }

        private void accept() {
            while (true) {
                try {
                    Socket client = listener.accept();
                    Socket server = new Socket();
                    server.connect(new InetSocketAddress(target.host(), target.port()));
                    sockets.add(client);
                    sockets.add(server);
                    Threads.startVirtual("test-drop-up", () -> pass(client, server, true));
                    Threads.startVirtual("test-drop-down", () -> pass(server, client, false));
                } catch (IOException e) {
                    return;
                }
            }
        }

        private void pass(Socket from, Socket to, boolean up) {
            try (DataInputStream in = new DataInputStream(from.getInputStream()); OutputStream out = to.getOutputStream()) {
                byte[] header = new byte[8];
                while (true) {
                    in.readFully(header);
                    int type = ((header[0] & 0xFF) << 24) | ((header[1] & 0xFF) << 16) | ((header[2] & 0xFF) << 8)
                            | (header[3] & 0xFF);
                    int length = ((header[4] & 0xFF) << 24) | ((header[5] & 0xFF) << 16) | ((header[6] & 0xFF) << 8)
                            | (header[7] & 0xFF);
                    byte[] payload = new byte[length];
                    in.readFully(payload);
                    if (up && type == WireCommandType.UPDATE_TABLE_ENTRIES.code()) {
                        updates.incrementAndGet();
                    }
                    if (!up && type == WireCommandType.TABLE_ENTRIES_UPDATED.code() && armed.compareAndSet(true, false)) {
                        dropped.set(true);
                        from.close();
                        to.close();
                        return;
                    }
                    out.write(header);
                    out.write(payload);
                    out.flush();
                }
            } catch (IOException e) {
                closeQuietly(from);
                closeQuietly(to);
            }
        }

        private static void closeQuietly(Socket s) {
            try {
                s.close();
            } catch (IOException e) {
                // closing anyway
            }
        }

        @Override
        public void close() throws IOException {
            listener.close();
            sockets.forEach(ReplyDroppingProxy::closeQuietly);
        }
    }
}
