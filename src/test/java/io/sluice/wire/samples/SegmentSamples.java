package io.sluice.wire.samples;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;

import io.sluice.wire.Bytes;
import io.sluice.wire.ChunkInfo;
import io.sluice.wire.ConditionalAppend;
import io.sluice.wire.ConditionalAttributeUpdate;
import io.sluice.wire.ConditionalBlockEnd;
import io.sluice.wire.ConditionalCheckFailed;
import io.sluice.wire.CreateSegment;
import io.sluice.wire.CreateTransientSegment;
import io.sluice.wire.DeleteSegment;
import io.sluice.wire.Event;
import io.sluice.wire.FlushToStorage;
import io.sluice.wire.GetSegmentAttribute;
import io.sluice.wire.GetStreamSegmentInfo;
import io.sluice.wire.ListStorageChunks;
import io.sluice.wire.LocateOffset;
import io.sluice.wire.MergeSegments;
import io.sluice.wire.MergeSegmentsBatch;
import io.sluice.wire.OffsetLocated;
import io.sluice.wire.ReadSegment;
import io.sluice.wire.SealSegment;
import io.sluice.wire.SegmentAttribute;
import io.sluice.wire.SegmentAttributeUpdated;
import io.sluice.wire.SegmentCreated;
import io.sluice.wire.SegmentDeleted;
import io.sluice.wire.SegmentPolicyUpdated;
import io.sluice.wire.SegmentSealed;
import io.sluice.wire.SegmentTruncated;
import io.sluice.wire.SegmentsBatchMerged;
import io.sluice.wire.SegmentsMerged;
import io.sluice.wire.StorageChunksListed;
import io.sluice.wire.StorageFlushed;
import io.sluice.wire.StreamSegmentInfo;
import io.sluice.wire.TruncateSegment;
import io.sluice.wire.UpdateSegmentAttribute;
import io.sluice.wire.UpdateSegmentPolicy;
import io.sluice.wire.WireCommand;

/** Samples of the conditional-append, segment management, merge and admin commands. */
public final class SegmentSamples {
    private static final String SEGMENT = "scope/stream/0.#epoch.0";
    private static final String TOKEN = "eyJhbGciOiJIUzUxMiJ9.e30.c2lnbmF0dXJl";
    /** The attribute the Java RevisionedStreamClient uses as its mark. */
    private static final UUID MARK = UUID.fromString("7df9a874-246c-c9d6-9397-cdd19ead68c5");

    private SegmentSamples() {
    }

    /** @return at least three instances of each command of the group: random, edge and typical values */
    public static List<WireCommand> samples(Random random) {
        List<WireCommand> out = new ArrayList<>();
        UUID writer = Gen.uuid(random);
        UUID edgeId = new UUID(0, 0);
        long flowRequest = (3L << 32) | 17;

        out.add(new ConditionalAppend(writer, random.nextLong(), random.nextLong(), new Event(Gen.bytes(random, 64)),
                random.nextLong()));
        out.add(new ConditionalAppend(edgeId, Long.MIN_VALUE, -1, new Event(Bytes.EMPTY), -1));
        out.add(new ConditionalAppend(writer, 5, 1024, new Event(utf8("state update")), flowRequest));

        out.add(new ConditionalCheckFailed(writer, random.nextLong(), random.nextLong()));
        out.add(new ConditionalCheckFailed(new UUID(-1, -1), Long.MAX_VALUE, -1));
        out.add(new ConditionalCheckFailed(writer, 5, flowRequest));

        out.add(new ConditionalBlockEnd(writer, random.nextLong(), random.nextLong(), Gen.bytes(random, 64),
                random.nextLong()));
        out.add(new ConditionalBlockEnd(edgeId, Long.MIN_VALUE, Long.MAX_VALUE, Bytes.EMPTY, Long.MIN_VALUE));
        out.add(new ConditionalBlockEnd(writer, 1, 0, framed("large-event-part"), flowRequest));

        out.add(new ReadSegment(Gen.string(random), random.nextLong(), random.nextInt(), Gen.string(random),
                random.nextLong()));
        out.add(new ReadSegment("", Long.MIN_VALUE, Integer.MAX_VALUE, "", -1));
        out.add(new ReadSegment(SEGMENT, 4096, 1024 * 1024, TOKEN, flowRequest));

        out.add(new GetStreamSegmentInfo(random.nextLong(), Gen.string(random), Gen.string(random)));
        out.add(new GetStreamSegmentInfo(Long.MIN_VALUE, "", ""));
        out.add(new GetStreamSegmentInfo(flowRequest, SEGMENT, TOKEN));

        out.add(new StreamSegmentInfo(random.nextLong(), Gen.string(random), random.nextBoolean(),
                random.nextBoolean(), random.nextBoolean(), random.nextLong(), random.nextLong(), random.nextLong()));
        out.add(new StreamSegmentInfo(-1, "", false, true, true, 0, 0, 0));
        out.add(new StreamSegmentInfo(flowRequest, SEGMENT, true, false, false, 1_700_000_000_000L, 65536, 1024));

        out.add(new CreateSegment(random.nextLong(), Gen.string(random), (byte) random.nextInt(),
                random.nextInt(), Gen.string(random), random.nextLong()));
        out.add(new CreateSegment(Long.MIN_VALUE, "", Byte.MIN_VALUE, Integer.MAX_VALUE, "", -1));
        out.add(new CreateSegment(flowRequest, SEGMENT, CreateSegment.IN_KBYTES_PER_SEC, 1024, TOKEN,
                64L * 1024 * 1024));

        out.add(new SegmentCreated(random.nextLong(), Gen.string(random)));
        out.add(new SegmentCreated(-1, ""));
        out.add(new SegmentCreated(flowRequest, SEGMENT + "#transient.00000000000000010000000000000002"
                + ".0123456789abcdef0123456789abcdef"));

        out.add(new SealSegment(random.nextLong(), Gen.string(random), Gen.string(random)));
        out.add(new SealSegment(Long.MAX_VALUE, "", ""));
        out.add(new SealSegment(flowRequest, SEGMENT, TOKEN));

        out.add(new SegmentSealed(random.nextLong(), Gen.string(random)));
        out.add(new SegmentSealed(Long.MIN_VALUE, ""));
        out.add(new SegmentSealed(flowRequest, SEGMENT));

        out.add(new DeleteSegment(random.nextLong(), Gen.string(random), Gen.string(random)));
        out.add(new DeleteSegment(-1, "", ""));
        out.add(new DeleteSegment(flowRequest, SEGMENT, TOKEN));

        out.add(new SegmentDeleted(random.nextLong(), Gen.string(random)));
        out.add(new SegmentDeleted(0, ""));
        out.add(new SegmentDeleted(flowRequest, SEGMENT));

        out.add(new UpdateSegmentPolicy(random.nextLong(), Gen.string(random), (byte) random.nextInt(),
                random.nextInt(), Gen.string(random)));
        out.add(new UpdateSegmentPolicy(-1, "", Byte.MAX_VALUE, Integer.MIN_VALUE, ""));
        out.add(new UpdateSegmentPolicy(flowRequest, SEGMENT, CreateSegment.IN_EVENTS_PER_SEC, 100, TOKEN));

        out.add(new SegmentPolicyUpdated(random.nextLong(), Gen.string(random)));
        out.add(new SegmentPolicyUpdated(Long.MAX_VALUE, ""));
        out.add(new SegmentPolicyUpdated(flowRequest, SEGMENT));

        out.add(new GetSegmentAttribute(random.nextLong(), Gen.string(random), Gen.uuid(random), Gen.string(random)));
        out.add(new GetSegmentAttribute(Long.MIN_VALUE, "", edgeId, ""));
        out.add(new GetSegmentAttribute(flowRequest, SEGMENT, writer, TOKEN));

        out.add(new SegmentAttribute(random.nextLong(), random.nextLong()));
        out.add(new SegmentAttribute(-1, Long.MIN_VALUE));
        out.add(new SegmentAttribute(flowRequest, 42));

        out.add(new UpdateSegmentAttribute(random.nextLong(), Gen.string(random), Gen.uuid(random), random.nextLong(),
                random.nextLong(), Gen.string(random)));
        out.add(new UpdateSegmentAttribute(-1, "", new UUID(-1, -1), Long.MAX_VALUE, Long.MIN_VALUE, ""));
        out.add(new UpdateSegmentAttribute(flowRequest, SEGMENT, MARK, 128, 64, TOKEN));

        out.add(new SegmentAttributeUpdated(random.nextLong(), random.nextBoolean()));
        out.add(new SegmentAttributeUpdated(Long.MIN_VALUE, false));
        out.add(new SegmentAttributeUpdated(flowRequest, true));

        out.add(new TruncateSegment(random.nextLong(), Gen.string(random), random.nextLong(), Gen.string(random)));
        out.add(new TruncateSegment(-1, "", -1, ""));
        out.add(new TruncateSegment(flowRequest, SEGMENT, 8192, TOKEN));

        out.add(new SegmentTruncated(random.nextLong(), Gen.string(random)));
        out.add(new SegmentTruncated(Long.MIN_VALUE, ""));
        out.add(new SegmentTruncated(flowRequest, SEGMENT));

        out.add(new CreateTransientSegment(random.nextLong(), Gen.uuid(random), Gen.string(random),
                Gen.string(random)));
        out.add(new CreateTransientSegment(Long.MAX_VALUE, edgeId, "", ""));
        out.add(new CreateTransientSegment(flowRequest, writer, SEGMENT, TOKEN));

        out.add(new LocateOffset(random.nextLong(), Gen.string(random), random.nextLong(), Gen.string(random)));
        out.add(new LocateOffset(-1, "", Long.MIN_VALUE, ""));
        out.add(new LocateOffset(flowRequest, SEGMENT, 1_000_000, TOKEN));

        out.add(new OffsetLocated(random.nextLong(), Gen.string(random), random.nextLong()));
        out.add(new OffsetLocated(Long.MIN_VALUE, "", -1));
        out.add(new OffsetLocated(flowRequest, SEGMENT, 1_000_123));

        out.add(new MergeSegments(random.nextLong(), Gen.string(random), Gen.string(random), Gen.string(random),
                randomUpdates(random)));
        out.add(new MergeSegments(-1, "", "", "", List.of()));
        out.add(new MergeSegments(flowRequest, SEGMENT, SEGMENT + "#transaction.0123456789abcdef0123456789abcdef",
                TOKEN, List.of(new ConditionalAttributeUpdate(MARK, ConditionalAttributeUpdate.REPLACE_IF_EQUALS,
                        10, Long.MIN_VALUE), new ConditionalAttributeUpdate(writer,
                        ConditionalAttributeUpdate.REPLACE, 3, 0))));

        out.add(new SegmentsMerged(random.nextLong(), Gen.string(random), Gen.string(random), random.nextLong()));
        out.add(new SegmentsMerged(Long.MIN_VALUE, "", "", -1));
        out.add(new SegmentsMerged(flowRequest, SEGMENT, SEGMENT + "#transient.x", 4096));

        out.add(new MergeSegmentsBatch(random.nextLong(), Gen.string(random), randomStrings(random),
                Gen.string(random)));
        out.add(new MergeSegmentsBatch(-1, "", List.of(), ""));
        out.add(new MergeSegmentsBatch(flowRequest, SEGMENT, List.of("scope/stream/1.#epoch.0",
                "scope/stream/2.#epoch.0"), TOKEN));

        List<String> merged = randomStrings(random);
        List<Long> offsets = new ArrayList<>();
        for (int i = 0; i < merged.size(); i++) {
            offsets.add(random.nextLong());
        }
        out.add(new SegmentsBatchMerged(random.nextLong(), Gen.string(random), merged, offsets));
        out.add(new SegmentsBatchMerged(Long.MIN_VALUE, "", List.of(), List.of()));
        out.add(new SegmentsBatchMerged(flowRequest, SEGMENT, List.of("scope/stream/1.#epoch.0",
                "scope/stream/2.#epoch.0"), List.of(100L, 250L)));

        out.add(new FlushToStorage(random.nextInt(), Gen.string(random), random.nextLong()));
        out.add(new FlushToStorage(Integer.MIN_VALUE, "", -1));
        out.add(new FlushToStorage(3, TOKEN, 9));

        out.add(new StorageFlushed(random.nextLong()));
        out.add(new StorageFlushed(Long.MIN_VALUE));
        out.add(new StorageFlushed(9));

        out.add(new ListStorageChunks(Gen.string(random), Gen.string(random), random.nextLong()));
        out.add(new ListStorageChunks("", "", -1));
        out.add(new ListStorageChunks(SEGMENT, TOKEN, 10));

        out.add(new StorageChunksListed(random.nextLong(), randomChunks(random)));
        out.add(new StorageChunksListed(-1, List.of()));
        out.add(new StorageChunksListed(10, List.of(
                new ChunkInfo(4096, 4096, 0, SEGMENT + ".E-1-O-0.0123abcd", true),
                new ChunkInfo(1000, 0, 4096, SEGMENT + ".E-1-O-4096.4567ef01", false))));
        return out;
    }

    private static List<ConditionalAttributeUpdate> randomUpdates(Random random) {
        int n = random.nextInt(6);
        List<ConditionalAttributeUpdate> updates = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            updates.add(new ConditionalAttributeUpdate(Gen.uuid(random), (byte) random.nextInt(), random.nextLong(),
                    random.nextLong()));
        }
        return updates;
    }

    private static List<String> randomStrings(Random random) {
        int n = random.nextInt(6);
        List<String> strings = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            strings.add(Gen.string(random));
        }
        return strings;
    }

    private static List<ChunkInfo> randomChunks(Random random) {
        int n = random.nextInt(6);
        List<ChunkInfo> chunks = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            chunks.add(new ChunkInfo(random.nextLong(), random.nextLong(), random.nextLong(), Gen.string(random),
                    random.nextBoolean()));
        }
        return chunks;
    }

    private static ByteBuffer utf8(String s) {
        return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
    }

    /** @return {@code s} as one framed event, as the large-event writer sends it in a ConditionalBlockEnd */
    private static ByteBuffer framed(String s) {
        byte[] body = s.getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(8 + body.length).putInt(0).putInt(body.length).put(body).flip();
    }
}
