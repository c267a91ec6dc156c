package io.sluice.bench;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufOutputStream;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.pravega.shared.protocol.netty.WireCommands;
import io.sluice.segment.PendingEvent;
import io.sluice.wire.AppendEncoder;
import io.sluice.wire.WireOutput;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Encoding one append block ({@code AppendBlock} + {@code events} nested {@code EVENT} frames +
 * {@code AppendBlockEnd}) for one writer, three ways on the same pre-built events:
 * <ul>
 *   <li>{@link #sluice}: what a segment writer runs for a block, {@link AppendEncoder#writeGroups} over the block's
 *       list of {@link PendingEvent}s (one event each, as {@code EventStreamWriter.writeEvent} makes them) into a
 *       reused {@link WireOutput} — the connection's socket buffer in production;</li>
 *   <li>{@link #pravega}: Pravega 0.13's {@code WireCommands} into a reused heap {@link ByteBuf}, framed as its
 *       {@code CommandEncoder.writeMessage} frames them ({@code AppendBlock} header, then each event through
 *       {@code Event.writeFields}, then {@code AppendBlockEnd});</li>
 *   <li>{@link #rawCopy}: the baseline, a bulk {@code ByteBuffer.put} of every event's bytes (no framing) into a
 *       reused heap buffer.</li>
 * </ul>
 * One operation encodes the whole block; divide the score by {@code events} for ns per event. {@link #setUp}
 * checks that the Sluice and Pravega encodings are byte-for-byte identical and refuses to run otherwise.
 *
 * <p>A JMH state: one instance per benchmark thread, not thread-safe.
 */
@Fork(value = 2, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@Warmup(iterations = 5, time = 1, timeUnit = TimeUnit.SECONDS)
@Measurement(iterations = 5, time = 1, timeUnit = TimeUnit.SECONDS)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@State(Scope.Thread)
public class AppendBlockEncodeBenchmark {
    private static final UUID WRITER_ID = new UUID(0x0123456789abcdefL, 0xfedcba9876543210L);
    private static final long REQUEST_ID = 42L;
    private static final int APPEND_BLOCK_CODE = io.pravega.shared.protocol.netty.WireCommandType.APPEND_BLOCK.getCode();
    private static final int APPEND_BLOCK_END_CODE =
            io.pravega.shared.protocol.netty.WireCommandType.APPEND_BLOCK_END.getCode();

    /** Events in the block. */
    @Param({"1", "100", "1000"})
    public int events;

    /** Bytes of each event (its payload, before the 8-byte EVENT header). */
    @Param({"10", "100", "1024"})
    public int eventSize;

    private List<ByteBuffer> payloads;
    private List<PendingEvent> batch;
    private long lastEventNumber;
    private WireOutput sluiceOut;
    private ByteBuf pravegaOut;
    private ByteBuffer rawOut;

    /** Creates the benchmark state; JMH calls it. */
    public AppendBlockEncodeBenchmark() {
    }

    /**
     * Builds the events (random bytes, fixed seed, one array each), sizes the output buffers so no benchmark grows
     * them, and checks that {@link #sluice} and {@link #pravega} write the same bytes.
     *
     * @throws IllegalStateException if the two encodings differ
     * @throws IOException never (Pravega's encoder declares it)
     */
    @Setup(Level.Trial)
    public void setUp() throws IOException {
        Random random = new Random(events * 31L + eventSize);
        List<ByteBuffer> list = new ArrayList<>(events);
        for (int i = 0; i < events; i++) {
            byte[] payload = new byte[eventSize];
            random.nextBytes(payload);
            list.add(ByteBuffer.wrap(payload));
        }
        payloads = list;
        List<PendingEvent> pending = new ArrayList<>(events);
        for (ByteBuffer payload : list) {
            pending.add(PendingEvent.of(null, payload));
        }
        batch = pending;
        lastEventNumber = 1000L + events;
        int blockBytes = AppendEncoder.blockSize(events * (8 + eventSize));
        sluiceOut = new WireOutput(blockBytes);
        pravegaOut = Unpooled.buffer(blockBytes, blockBytes);
        rawOut = ByteBuffer.allocate(events * eventSize);

        sluice();
        byte[] ours = sluiceOut.toByteArray();
        pravega();
        byte[] theirs = ByteBufUtil.getBytes(pravegaOut);
        if (!Arrays.equals(ours, theirs)) {
            throw new IllegalStateException("Sluice and Pravega encode the append block differently (" + ours.length
                    + " vs " + theirs.length + " bytes, first difference at byte " + Arrays.mismatch(ours, theirs) + ")");
        }
        if (ours.length != blockBytes) {
            throw new IllegalStateException("expected a " + blockBytes + "-byte block, got " + ours.length);
        }
    }

    /**
     * Sluice: the segment writer's call, {@link AppendEncoder#writeGroups} over the block's pending events, into a
     * cleared, reused {@link WireOutput}.
     *
     * @return the number of bytes written
     */
    @Benchmark
    public int sluice() {
        WireOutput out = sluiceOut;
        out.clear();
        AppendEncoder.writeGroups(out, WRITER_ID, batch, lastEventNumber, REQUEST_ID);
        return out.position();
    }

    /**
     * Pravega 0.13: the frames its {@code CommandEncoder} writes for a block, with its own {@code WireCommands}
     * objects and a {@link ByteBufOutputStream} per frame, into a cleared, reused heap {@link ByteBuf}.
     *
     * @return the number of bytes written
     * @throws IOException never (Pravega's {@code writeFields} declares it)
     */
    @Benchmark
    public int pravega() throws IOException {
        ByteBuf out = pravegaOut;
        out.clear();

        int blockStart = out.writerIndex();
        ByteBufOutputStream block = new ByteBufOutputStream(out);
        block.writeInt(APPEND_BLOCK_CODE);
        block.writeInt(0); // length placeholder, patched below as CommandEncoder does
        new WireCommands.AppendBlock(WRITER_ID).writeFields(block);
        int eventsStart = out.writerIndex();
        List<ByteBuffer> list = payloads;
        for (int i = 0, n = list.size(); i < n; i++) {
            new WireCommands.Event(Unpooled.wrappedBuffer(list.get(i))).writeFields(block);
        }
        int sizeOfWholeEvents = out.writerIndex() - eventsStart;
        out.setInt(blockStart + Integer.BYTES, out.writerIndex() - blockStart - WireCommands.TYPE_PLUS_LENGTH_SIZE);

        int endStart = out.writerIndex();
        ByteBufOutputStream end = new ByteBufOutputStream(out);
        end.writeInt(APPEND_BLOCK_END_CODE);
        end.writeInt(0);
        new WireCommands.AppendBlockEnd(WRITER_ID, sizeOfWholeEvents, null, list.size(), lastEventNumber, REQUEST_ID)
                .writeFields(end);
        out.setInt(endStart + Integer.BYTES, out.writerIndex() - endStart - WireCommands.TYPE_PLUS_LENGTH_SIZE);
        return out.writerIndex();
    }

    /**
     * Baseline: every event's bytes copied with an absolute bulk {@code ByteBuffer.put} (the primitive
     * {@link WireOutput} uses), without any framing, into a cleared, reused heap buffer.
     *
     * @return the number of bytes copied
     */
    @Benchmark
    public int rawCopy() {
        ByteBuffer out = rawOut;
        out.clear();
        List<ByteBuffer> list = payloads;
        for (int i = 0, n = list.size(); i < n; i++) {
            ByteBuffer e = list.get(i);
            int len = e.remaining();
            int at = out.position();
            out.put(at, e, e.position(), len);
            out.position(at + len);
        }
        return out.position();
    }
}
