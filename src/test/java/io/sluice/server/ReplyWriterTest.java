package io.sluice.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.DataInputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.sluice.common.Await;
import io.sluice.wire.DataAppended;
import io.sluice.wire.FrameCodec;
import io.sluice.wire.Reply;
import io.sluice.wire.SegmentRead;
import io.sluice.wire.WireCommand;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class ReplyWriterTest {
    private static final UUID WRITER = UUID.randomUUID();

    /** A connected pair: the server's end for a ReplyWriter, the client's end to read what it writes. */
    private record Pair(Socket server, Socket client, DataInputStream in) implements AutoCloseable {
        static Pair open() throws IOException {
            try (ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                Socket client = new Socket(listener.getInetAddress(), listener.getLocalPort());
                return new Pair(listener.accept(), client, new DataInputStream(client.getInputStream()));
            }
        }

        WireCommand next() throws IOException {
            int type = in.readInt();
            int length = in.readInt();
            byte[] payload = new byte[length];
            in.readFully(payload);
            return FrameCodec.decodePayload(FrameCodec.checkHeader(type, length), ByteBuffer.wrap(payload));
        }

        @Override
        public void close() throws IOException {
            client.close();
            server.close();
        }
    }

    private static DataAppended ack(long eventNumber) {
        return new DataAppended(eventNumber, WRITER, eventNumber, eventNumber - 1, 100 * eventNumber);
    }

    @Test
    void repliesOtherThreadsSendWhileTheReaderHoldsTheSocketGoOutAfterTheReadersOwn() throws Exception {
        try (Pair p = Pair.open()) {
            CountDownLatch closed = new CountDownLatch(1);
            ReplyWriter replies = new ReplyWriter(p.server(), "test", 1 << 20, closed::countDown);
            replies.start();
            replies.readerIs(Thread.currentThread());
            replies.send(ack(1)); // the reader claims the socket: written by writeClaimed, after the request
            Thread other = Thread.ofVirtual().start(() -> replies.send(ack(2)));
            other.join();
            // the writer thread has ack 2 and must wait for the reader's claim, or the client would see 2 before 1
            Await.until("the writer thread waits for the claim", replies::writerWaitsForClaim);
            replies.send(ack(3)); // queued behind ack 2 now: the reader may not write before what is queued
            replies.writeClaimed();
            List<Long> order = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                order.add(((DataAppended) p.next()).eventNumber());
            }
            assertThat(order).as("acknowledgements in the order they were sent").containsExactly(1L, 2L, 3L);
            assertThat(closed.getCount()).as("connection closed").isEqualTo(1);
        }
    }

    @Test
    void theReadersRepliesNeedItsWriteAndOthersGoStraightToTheWriterThread() throws Exception {
        try (Pair p = Pair.open()) {
            ReplyWriter replies = new ReplyWriter(p.server(), "test", 1 << 20, () -> { });
            replies.start();
            Thread reader = Thread.ofVirtual().unstarted(() -> { });
            replies.readerIs(reader);
            // not the reader: queued and written by the writer thread with no call of writeClaimed
            replies.send(ack(1));
            assertThat(((DataAppended) p.next()).eventNumber()).isEqualTo(1);

            replies.readerIs(Thread.currentThread());
            // larger than a claim may be: queued even though the reader sends it
            SegmentRead big = new SegmentRead("scope/stream/0.#epoch.0", 0, false, false,
                    ByteBuffer.allocate(32 * 1024), 7);
            replies.send(big);
            Reply r = (Reply) p.next();
            assertThat(r).isInstanceOf(SegmentRead.class);
            assertThat(((SegmentRead) r).data().remaining()).isEqualTo(32 * 1024);

            replies.send(ack(2));
            replies.writeClaimed();
            assertThat(((DataAppended) p.next()).eventNumber()).isEqualTo(2);
        }
    }

    @Test
    void stoppingReleasesAWriterWaitingForTheClaimAndDropsWhatIsQueued() throws Exception {
        try (Pair p = Pair.open()) {
            CountDownLatch closed = new CountDownLatch(1);
            ReplyWriter replies = new ReplyWriter(p.server(), "test", 1 << 20, closed::countDown);
            replies.start();
            replies.readerIs(Thread.currentThread());
            replies.send(ack(1));
            Thread.ofVirtual().start(() -> replies.send(ack(2))).join();
            Await.until("the writer thread waits for the claim", replies::writerWaitsForClaim);
            replies.stop();
            assertThat(closed.await(10, TimeUnit.SECONDS)).as("the writer thread ended and closed the connection")
                    .isTrue();
            replies.writeClaimed(); // stopped: writes nothing
            p.server().close();
            assertThat(p.in().read()).as("nothing was written after the stop").isEqualTo(-1);
        }
    }
}
