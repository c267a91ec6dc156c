package io.sluice.wire.samples;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;

import io.sluice.wire.AppendBlock;
import io.sluice.wire.AppendBlockEnd;
import io.sluice.wire.AppendSetup;
import io.sluice.wire.Bytes;
import io.sluice.wire.DataAppended;
import io.sluice.wire.FrameCodec;
import io.sluice.wire.Hello;
import io.sluice.wire.KeepAlive;
import io.sluice.wire.NoSuchSegment;
import io.sluice.wire.Padding;
import io.sluice.wire.PartialEvent;
import io.sluice.wire.SegmentRead;
import io.sluice.wire.SetupAppend;
import io.sluice.wire.WireCommand;
import io.sluice.wire.WireOutput;
import io.sluice.wire.Event;

/** Samples of the connection, append and read commands. */
public final class CoreSamples {
    private CoreSamples() {
    }

    /** @return at least three instances of each core command: random, edge and typical values */
    public static List<WireCommand> samples(Random random) {
        List<WireCommand> out = new ArrayList<>();
        UUID writer = Gen.uuid(random);
        out.add(new Hello(random.nextInt(), random.nextInt()));
        out.add(new Hello(Integer.MAX_VALUE, Integer.MIN_VALUE));
        out.add(Hello.current());
        out.add(new KeepAlive());
        out.add(new Padding(random.nextInt(100)));
        out.add(new Padding(0));
        out.add(new Padding(1950));
        out.add(new PartialEvent(Gen.bytes(random, 64)));
        out.add(new PartialEvent(Bytes.EMPTY));
        out.add(new PartialEvent(utf8("half an ev")));
        out.add(new SetupAppend(random.nextLong(), writer, Gen.string(random), Gen.string(random)));
        out.add(new SetupAppend(Long.MIN_VALUE, new UUID(0, 0), "", ""));
        out.add(new SetupAppend(1L << 32, writer, "golden/golden/0.#epoch.0", ""));
        out.add(new AppendSetup(random.nextLong(), Gen.string(random), writer, random.nextLong()));
        out.add(new AppendSetup(-1, "", new UUID(-1, -1), Long.MIN_VALUE));
        out.add(new AppendSetup(1L << 32, "golden/golden/0.#epoch.0", writer, 3));
        out.add(new AppendBlock(writer, Gen.bytes(random, 64)));
        out.add(new AppendBlock(writer, Bytes.EMPTY));
        out.add(new AppendBlock(writer, blockWithPadding()));
        out.add(new AppendBlockEnd(writer, random.nextInt(), Gen.bytes(random, 64), random.nextInt(), random.nextLong(),
                random.nextLong()));
        out.add(new AppendBlockEnd(writer, 0, Bytes.EMPTY, 0, Long.MIN_VALUE, -1));
        out.add(new AppendBlockEnd(writer, 30, Bytes.EMPTY, 2, 3, 1L << 32));
        out.add(new DataAppended(random.nextLong(), writer, random.nextLong(), random.nextLong(), random.nextLong()));
        out.add(new DataAppended(-1, writer, 0, Long.MIN_VALUE, -1));
        out.add(new DataAppended(1L << 32, writer, 1, Long.MIN_VALUE, 15));
        out.add(new SegmentRead(Gen.string(random), random.nextLong(), random.nextBoolean(), random.nextBoolean(),
                Gen.bytes(random, 64), random.nextLong()));
        out.add(new SegmentRead("", Long.MIN_VALUE, false, true, Bytes.EMPTY, -1));
        out.add(new SegmentRead("golden/golden/0.#epoch.0", 0, true, false, blockWithPadding(), 5));
        out.add(new NoSuchSegment(random.nextLong(), Gen.string(random), Gen.string(random), random.nextLong()));
        out.add(new NoSuchSegment(-1, "", "", -1));
        out.add(new NoSuchSegment(7, "scope/stream/0.#epoch.0", "java.lang.Exception: gone", 100));
        return out;
    }

    private static ByteBuffer utf8(String s) {
        return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
    }

    private static ByteBuffer blockWithPadding() {
        WireOutput out = new WireOutput();
        new Event(utf8("event-2")).writeFramed(out);
        new Event(utf8("event-3")).writeFramed(out);
        FrameCodec.encode(new Padding(40), out);
        return out.buffer();
    }
}
