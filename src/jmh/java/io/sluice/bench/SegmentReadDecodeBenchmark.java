package io.sluice.bench;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.pravega.shared.protocol.netty.CommandDecoder;
import io.pravega.shared.protocol.netty.WireCommand;
import io.pravega.shared.protocol.netty.WireCommands;
import io.sluice.segment.PendingEvent;
import io.sluice.segment.SegmentReader;
import io.sluice.wire.Bytes;
import io.sluice.wire.EventFrames;
import io.sluice.wire.FrameCodec;
import io.sluice.wire.SegmentRead;
import io.sluice.wire.WireCommandType;
import io.sluice.wire.WireOutput;
import io.sluice.wire.WireProtocol;
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
import org.openjdk.jmh.infra.Blackhole;

/**
 * Decoding one {@code SegmentRead} frame whose data is {@code dataKiB} KiB of whole events of {@code eventSize}
 * bytes, and visiting every event, three ways on the same frame bytes:
 * <ul>
 *   <li>{@link #sluice}: what the client runs on a read's reply, without the socket and the locks: the connection's
 *       decoding ({@link FrameCodec#checkHeader} on the header, {@link FrameCodec#decodePayload} on the payload's
 *       own array, as its reader thread does after {@code readFully}), then the segment reader's: the data added to
 *       an {@link EventFrames.Reassembler} and every event taken out of it ({@link EventFrames.Reassembler#take},
 *       a read-only slice per event) as a {@link SegmentReader.ReadEvent}, each to the blackhole;</li>
 *   <li>{@link #pravega}: Pravega 0.13's {@code CommandDecoder.parseCommand} into a {@code WireCommands.SegmentRead},
 *       then a walk over its data reading each event header ({@code readInt} type, {@code readInt} length) and
 *       {@code readSlice(length)}, each slice to the blackhole, then {@code release()};</li>
 *   <li>{@link #rawCopy}: the baseline, one bulk {@code ByteBuffer.put} of the whole frame into a reused heap
 *       buffer.</li>
 * </ul>
 * One operation decodes the whole frame; divide the score by {@link #eventCount()} for ns per event. {@link #setUp}
 * checks that both decoders see the same events and refuses to run otherwise.
 *
 * <p>A JMH state: one instance per benchmark thread, not thread-safe.
 */
@Fork(value = 2, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@Warmup(iterations = 5, time = 1, timeUnit = TimeUnit.SECONDS)
@Measurement(iterations = 5, time = 1, timeUnit = TimeUnit.SECONDS)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@State(Scope.Thread)
public class SegmentReadDecodeBenchmark {
    private static final String SEGMENT = "benchmark-scope/benchmark-stream/0.#epoch.0";
    private static final long REQUEST_ID = 42L;
    private static final int EVENT_HEADER = WireCommands.TYPE_PLUS_LENGTH_SIZE;
    private static final int EVENT_CODE = io.pravega.shared.protocol.netty.WireCommandType.EVENT.getCode();

    /** Bytes of each event (its payload, before the 8-byte EVENT header). */
    @Param({"10", "100", "1024"})
    public int eventSize;

    /** Upper bound of the frame's data, in KiB: as many whole events as fit. */
    @Param({"256"})
    public int dataKiB;

    private int eventCount;
    private int frameType;
    private int frameLength;
    private byte[] sluicePayload;
    private EventFrames.Reassembler reassembler;
    private ByteBuf pravegaIn;
    private ByteBuffer rawIn;
    private ByteBuffer rawOut;

    /** Creates the benchmark state; JMH calls it. */
    public SegmentReadDecodeBenchmark() {
    }

    /**
     * Builds the frame (random event bytes, fixed seed) with Sluice's encoder, wraps it for each decoder, and checks
     * that {@link #sluice} and {@link #pravega} visit the same events.
     *
     * @throws IllegalStateException if the decoders disagree
     * @throws IOException never (Pravega's decoder declares it)
     */
    @Setup(Level.Trial)
    public void setUp() throws IOException {
        eventCount = dataKiB * 1024 / (EVENT_HEADER + eventSize);
        if (eventCount < 1) {
            throw new IllegalArgumentException("dataKiB=" + dataKiB + " holds no event of " + eventSize + " bytes");
        }
        Random random = new Random(eventSize * 31L + dataKiB);
        WireOutput data = new WireOutput(eventCount * (EVENT_HEADER + eventSize));
        byte[] payload = new byte[eventSize];
        for (int i = 0; i < eventCount; i++) {
            random.nextBytes(payload);
            data.writeInt(EVENT_CODE);
            data.writeInt(eventSize);
            data.writeBytes(payload, 0, eventSize);
        }
        byte[] frame = FrameCodec.encode(new SegmentRead(SEGMENT, 1L << 20, false, false, data.buffer(), REQUEST_ID));
        ByteBuffer header = ByteBuffer.wrap(frame);
        frameType = header.getInt(0);
        frameLength = header.getInt(Integer.BYTES);
        sluicePayload = Arrays.copyOfRange(frame, WireProtocol.HEADER_SIZE, frame.length);
        reassembler = new EventFrames.Reassembler(0, PendingEvent.MAX_EVENT_SIZE);
        pravegaIn = Unpooled.wrappedBuffer(frame);
        rawIn = ByteBuffer.wrap(frame);
        rawOut = ByteBuffer.allocate(frame.length);

        List<String> ours = new ArrayList<>();
        int oursConsumed = decodeWithSluice(e -> ours.add(HexFormat.of().formatHex(Bytes.toArray(e.payload()))));
        List<String> theirs = new ArrayList<>();
        int theirsCount = decodeWithPravega(pravegaIn, e -> theirs.add(ByteBufUtil.hexDump(e)));
        if (ours.size() != eventCount || !ours.equals(theirs) || theirsCount != eventCount
                || oursConsumed != eventCount * (EVENT_HEADER + eventSize)) {
            throw new IllegalStateException("Sluice saw " + ours.size() + " events, Pravega " + theirs.size()
                    + ", expected " + eventCount + (ours.equals(theirs) ? "" : " (contents differ)"));
        }
        if (reassembler.buffered() != 0) {
            throw new IllegalStateException(reassembler.buffered() + " bytes left in the reassembler");
        }
        if (pravegaIn.refCnt() != 1) {
            throw new IllegalStateException("Pravega's SegmentRead was not released: refCnt " + pravegaIn.refCnt());
        }
    }

    /** @return the number of events in the frame (valid after setup) */
    public int eventCount() {
        return eventCount;
    }

    /**
     * Sluice: decode the frame as the connection does and take every event out of it as the segment reader does,
     * each to the blackhole.
     *
     * @return the number of data bytes taken by the events
     */
    @Benchmark
    public int sluice(Blackhole bh) {
        return decodeWithSluice(bh::consume);
    }

    /**
     * Pravega 0.13: parse the frame, walk the events of its data as a slice each, release the command.
     *
     * @return the number of events
     * @throws IOException never (Pravega's decoder declares it)
     */
    @Benchmark
    public int pravega(Blackhole bh) throws IOException {
        return decodeWithPravega(pravegaIn, bh::consume);
    }

    /**
     * Baseline: the whole frame copied with one absolute bulk {@code ByteBuffer.put} into a reused heap buffer.
     *
     * @return the number of bytes copied
     */
    @Benchmark
    public int rawCopy() {
        ByteBuffer in = rawIn;
        ByteBuffer out = rawOut;
        out.clear();
        out.put(0, in, 0, in.limit());
        out.position(in.limit());
        return out.position();
    }

    /** The connection's reader thread, then {@code SegmentReader}'s prefetcher and consumer, on one frame. */
    private int decodeWithSluice(Consumer<SegmentReader.ReadEvent> sink) {
        WireCommandType type = FrameCodec.checkHeader(frameType, frameLength);
        SegmentRead read = (SegmentRead) FrameCodec.decodePayload(type, ByteBuffer.wrap(sluicePayload));
        EventFrames.Reassembler events = reassembler;
        long start = events.offset();
        events.add(read.data());
        while (true) {
            long offset = events.offset();
            ByteBuffer payload = events.take();
            if (payload == null) {
                break;
            }
            sink.accept(new SegmentReader.ReadEvent(SEGMENT, offset, payload));
        }
        return (int) (events.offset() - start);
    }

    private static int decodeWithPravega(ByteBuf in, Consumer<ByteBuf> sink) throws IOException {
        in.readerIndex(0);
        WireCommand command = CommandDecoder.parseCommand(in);
        WireCommands.SegmentRead read = (WireCommands.SegmentRead) command;
        try {
            ByteBuf data = read.getData();
            int events = 0;
            while (data.readableBytes() >= EVENT_HEADER) {
                int type = data.readInt();
                int length = data.readInt();
                if (type != EVENT_CODE) {
                    throw new IllegalStateException("expected an EVENT frame, found type " + type);
                }
                if (length < 0 || length > data.readableBytes()) {
                    throw new IllegalStateException("EVENT of length " + length + " with " + data.readableBytes()
                            + " bytes left");
                }
                sink.accept(data.readSlice(length));
                events++;
            }
            return events;
        } finally {
            read.release();
        }
    }
}
