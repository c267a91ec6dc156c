package io.sluice.compat;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.LongFunction;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.sluice.client.ClientInternals;
import io.sluice.common.Deadline;
import io.sluice.connection.Connection;
import io.sluice.connection.Flow;
import io.sluice.connection.TcpConnectionFactory;
import io.sluice.stream.Segment;
import io.sluice.wire.AppendEncoder;
import io.sluice.wire.AppendSetup;
import io.sluice.wire.DataAppended;
import io.sluice.wire.GetStreamSegmentInfo;
import io.sluice.wire.ReadSegment;
import io.sluice.wire.Reply;
import io.sluice.wire.Request;
import io.sluice.wire.SealSegment;
import io.sluice.wire.SegmentRead;
import io.sluice.wire.SegmentSealed;
import io.sluice.wire.SetupAppend;
import io.sluice.wire.StreamSegmentInfo;
import io.sluice.wire.WireOutput;

/**
 * Reads at and near the tail of a segment, over the raw wire, on the REAL Pravega 0.13 segment store and on Sluice's
 * embedded one: what {@code atTail} and {@code endOfSegment} say, and how many bytes come back, must agree. Covered:
 * reads of existing data shorter than, exactly as long as and longer than what is there, and long polls (reads parked
 * at the tail) answered by an append that fits the read and by one larger than the read; then reads of the sealed
 * segment.
 */
@CompatTest
@Timeout(120)
class TailReadCompatTest {
    private static final Logger LOG = LoggerFactory.getLogger(TailReadCompatTest.class);

    @RegisterExtension
    static final RealPravegaScope real = new RealPravegaScope("compat-tail");
    private static BothServers servers;

    @BeforeAll
    static void start() {
        servers = new BothServers(real);
    }

    @AfterEach
    void deleteStreams() {
        servers.deleteCreated();
    }

    @AfterAll
    static void stop() {
        if (servers != null) {
            servers.close();
        }
    }

    private static Deadline wait30() {
        return Deadline.after(Duration.ofSeconds(30));
    }

    /** What a client can observe of a SegmentRead. */
    record Observed(long offset, boolean atTail, boolean endOfSegment, int bytes) {
        static Observed of(Reply r) {
            assertThat(r).isInstanceOf(SegmentRead.class);
            SegmentRead read = (SegmentRead) r;
            return new Observed(read.offset(), read.atTail(), read.endOfSegment(), read.data().remaining());
        }
    }

    /** One wire connection to the segment store holding a fresh one-segment stream's segment. */
    private static final class Wire implements AutoCloseable {
        final Connection connection;
        final Flow flow;
        final String segment;
        final UUID writer = UUID.randomUUID();
        long eventNumber;

        Wire(BothServers.Target t, String stream) {
            Segment s = Segment.of(t.createStream(stream), 0, 0);
            segment = s.qualifiedName();
            connection = new TcpConnectionFactory().connect(ClientInternals.controller(t.client()).endpointFor(s), wait30());
            flow = connection.openFlow();
            assertThat(call(id -> new SetupAppend(id, writer, segment, ""))).isInstanceOf(AppendSetup.class);
        }

        Reply call(LongFunction<Request> request) {
            long id = flow.nextRequestId();
            flow.send(request.apply(id));
            return flow.await(wait30());
        }

        /** Appends one event of {@code size} bytes (framed: 8 more); @return the segment's length after it */
        long append(int size) {
            WireOutput out = new WireOutput();
            long id = flow.nextRequestId();
            byte[] data = "x".repeat(size).getBytes(StandardCharsets.UTF_8);
            AppendEncoder.writeBlockEndOnly(out, writer, List.of(ByteBuffer.wrap(data)), ++eventNumber, id);
            connection.sendFrames(out.buffer());
            Reply r = flow.await(wait30());
            assertThat(r).isInstanceOf(DataAppended.class);
            return ((DataAppended) r).currentSegmentWriteOffset();
        }

        Observed read(long offset, int length) {
            return Observed.of(call(id -> new ReadSegment(segment, offset, length, "", id)));
        }

        /**
         * Reads from 0 until the read returns the {@code length} bytes appended and acknowledged. The real segment store
         * (seen once in CI) may answer a read sent right after an append's {@code DataAppended} with the data as it was
         * before that append, flagged {@code atTail}: its read index catches up with its acknowledgements a moment
         * later. The cases below are about reads of data the store serves, so they wait for that moment.
         */
        void awaitReadable(long length) {
            Deadline deadline = wait30();
            int reads = 0;
            for (Observed seen = read(0, (int) length); seen.bytes() < length; seen = read(0, (int) length)) {
                reads++;
                assertThat(deadline.expired()).as("the store still serves %s of the %s bytes it acknowledged after %s reads",
                        seen.bytes(), length, reads).isFalse();
            }
            if (reads > 0) {
                LOG.info("{}: {} read(s) returned less than the {} acknowledged bytes", segment, reads, length);
            }
        }

        /**
         * Parks a read at {@code offset} (the tail), then appends an event of {@code size} bytes on the same connection
         * (so the read reaches the server first); @return what answers the read
         */
        Observed parkedRead(long offset, int length, int size) {
            Flow reader = connection.openFlow();
            long id = reader.nextRequestId();
            reader.send(new ReadSegment(segment, offset, length, "", id));
            // a request behind it on the same connection: once answered, the read has been served or parked
            assertThat(call(i -> new GetStreamSegmentInfo(i, segment, ""))).isInstanceOf(StreamSegmentInfo.class);
            assertThat(reader.poll()).as("the read at the tail waits").isNull();
            append(size);
            Reply r = reader.await(wait30());
            assertThat(r.requestId()).isEqualTo(id);
            return Observed.of(r);
        }

        @Override
        public void close() {
            connection.close();
        }
    }

    /** @return what each case observes on {@code t}, by case name */
    private static Map<String, Observed> observe(BothServers.Target t) {
        Map<String, Observed> seen = new LinkedHashMap<>();
        try (Wire w = new Wire(t, "tail-" + UUID.randomUUID().toString().substring(0, 8))) {
            seen.put("long poll, append fits the read", w.parkedRead(0, 1000, 12));          // 20 bytes framed
            long length = w.append(12);                                                      // 40
            w.awaitReadable(length);
            seen.put("read shorter than the data", w.read(0, 30));
            seen.put("read exactly to the tail", w.read(0, (int) length));
            seen.put("read past the tail", w.read(0, 1000));
            seen.put("read from mid-segment past the tail", w.read(20, 1000));
            seen.put("long poll, append larger than the read", w.parkedRead(length, 10, 40)); // 48 bytes framed
            long after = length + 48;
            seen.put("long poll with a suggested length of 0", w.parkedRead(after, 0, 12));
            long end = after + 20;
            assertThat(w.call(id -> new SealSegment(id, w.segment, ""))).isInstanceOf(SegmentSealed.class);
            seen.put("sealed, read past the end", w.read(0, (int) end + 100));
            seen.put("sealed, read ending before the end", w.read(0, 10));
            seen.put("sealed, read at the end", w.read(end, 100));
        }
        return seen;
    }

    @Test
    void atTailAndEndOfSegmentAgreeWithTheRealSegmentStore() {
        Map<String, Observed> onReal = observe(servers.target("real"));
        Map<String, Observed> onEmbedded = observe(servers.target("embedded"));
        List<String> differences = new ArrayList<>();
        onReal.forEach((name, r) -> {
            LOG.info("{}: real {}, embedded {}", name, r, onEmbedded.get(name));
            if (!r.equals(onEmbedded.get(name))) {
                differences.add(name + ": real " + r + ", embedded " + onEmbedded.get(name));
            }
        });
        assertThat(differences).as("reads the two segment stores answer differently").isEmpty();
        assertThat(onReal.get("long poll, append fits the read").atTail()).isTrue();
    }
}
