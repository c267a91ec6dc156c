package io.sluice.readergroup;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

import io.sluice.errors.ProtocolException;
import io.sluice.errors.SluiceException;
import io.sluice.readergroup.ReaderGroupState.CheckpointProgress;
import io.sluice.readergroup.ReaderGroupState.CompletedCheckpoint;
import io.sluice.readergroup.ReaderGroupState.Owned;
import io.sluice.readergroup.ReaderGroupState.ReaderInfo;
import io.sluice.readergroup.ReaderGroupState.Settings;
import io.sluice.segment.StateSynchronizer;
import io.sluice.stream.ScopedStream;
import io.sluice.stream.Segment;
import io.sluice.stream.StreamCut;

/**
 * Sluice's binary format of reader group state and updates (hand-written, big-endian; not Pravega's
 * {@code ReaderGroupState} serialization, which Sluice neither writes nor reads).
 *
 * <p>Both kinds of record start with a stream table, so that a segment costs three small numbers:
 * <pre>
 * streams   = varint n, then n × (utf scope, utf stream)
 * segment   = varint streamIndex, varint segmentNumber, varint epoch
 * offsets   = varint n, then n × (segment, varlong offset)
 * </pre>
 * A full state is {@code i32 0x534C5247 ("SLRG"), u8 version 1, streams}, then:
 * <pre>
 * settings     = varint n × (varint streamIndex, offsets startCut), offsets endOffsets,
 *                varlong refreshMillis, i64 checkpointIntervalMillis, varint maxOutstandingCheckpoints
 * varlong generation
 * readers      = varint n × (utf id, i64 incarnation, bool ackOnCheckpoint, varlong offlineTimeoutMillis,
 *                            i64 heartbeat, varint m × (segment, varlong offset, varlong recoverFrom))
 * offsets unassigned
 * future       = varint n × (segment, varint m × segment predecessor)
 * offsets ended, offsets finished
 * checkpoints  = varint n × (utf name, bool silent, varint m × utf reader, offsets positions)
 * completed    = varint n × (utf name, bool silent, offsets positions)
 * i64 lastCheckpointMillis
 * </pre>
 * An update is {@code u8 version 1, u8 tag, streams}, then the fields of the {@link GroupUpdate} record in
 * component order (tags 1–9 in the order of the records in {@code GroupUpdate}). Varints are unsigned LEB128;
 * {@code i32}/{@code i64} are big-endian, {@code bool} one byte (1 or 0), {@code utf} as {@code DataOutput.writeUTF}
 * writes it (a 16-bit byte count, then modified UTF-8); {@link RecordOutput} and {@link RecordInput} do the bytes.
 *
 * <p>Groups live on in their state streams across versions of Sluice, so the bytes never change for a version:
 * {@code GroupStateCodecTest} holds golden records of every kind, and a new field means a new version.
 * Stateless and thread-safe.
 */
public final class GroupStateCodec {
    /** "SLRG": a full state of Sluice's format. */
    static final int STATE_MAGIC = 0x534C5247;
    static final int VERSION = 1;

    private static final int ADD_READER = 1;
    private static final int REMOVE_READER = 2;
    private static final int HEARTBEAT = 3;
    private static final int ACQUIRE = 4;
    private static final int RELEASE = 5;
    private static final int SEGMENT_COMPLETED = 6;
    private static final int CREATE_CHECKPOINT = 7;
    private static final int CHECKPOINT_REACHED = 8;
    private static final int RESET = 9;

    /** Encodes and decodes full states. */
    public static final StateSynchronizer.Codec<ReaderGroupState> STATE =
            StateSynchronizer.Codec.of(GroupStateCodec::encodeState, GroupStateCodec::decodeState);
    /** Encodes and decodes updates. */
    public static final StateSynchronizer.Codec<GroupUpdate> UPDATE =
            StateSynchronizer.Codec.of(GroupStateCodec::encodeUpdate, GroupStateCodec::decodeUpdate);

    private GroupStateCodec() {
    }

    // ------------------------------------------------------------------ state

    static ByteBuffer encodeState(ReaderGroupState s) {
        Enc e = new Enc();
        Settings settings = s.settings();
        e.varint(settings.start().size());
        settings.start().forEach((stream, cut) -> {
            e.varint(e.stream(stream.scope(), stream.name()));
            e.offsets(cut.positions());
        });
        e.offsets(settings.endOffsets());
        e.varlong(settings.refreshMillis());
        e.body.writeLong(settings.checkpointIntervalMillis());
        e.varint(settings.maxOutstandingCheckpoints());
        e.varlong(s.generation());
        e.varint(s.readers().size());
        s.readers().forEach((id, r) -> {
            e.body.writeUtf(id);
            e.body.writeLong(r.incarnation());
            e.body.writeBoolean(r.ackOnCheckpoint());
            e.varlong(r.offlineTimeoutMillis());
            e.body.writeLong(r.heartbeat());
            e.varint(r.segments().size());
            r.segments().forEach((segment, o) -> {
                e.segment(segment);
                e.varlong(o.offset());
                e.varlong(o.recoverFrom());
            });
        });
        e.offsets(s.unassigned());
        e.varint(s.future().size());
        s.future().forEach((successor, predecessors) -> {
            e.segment(successor);
            e.segments(predecessors);
        });
        e.offsets(s.ended());
        e.offsets(s.finished());
        e.varint(s.checkpoints().size());
        for (CheckpointProgress c : s.checkpoints()) {
            e.body.writeUtf(c.name());
            e.body.writeBoolean(c.silent());
            e.varint(c.remaining().size());
            c.remaining().forEach(e.body::writeUtf);
            e.offsets(c.positions());
        }
        e.varint(s.completed().size());
        for (CompletedCheckpoint c : s.completed()) {
            e.body.writeUtf(c.name());
            e.body.writeBoolean(c.silent());
            e.offsets(c.positions());
        }
        e.body.writeLong(s.lastCheckpointMillis());
        RecordOutput head = new RecordOutput(64);
        head.writeInt(STATE_MAGIC);
        head.writeByte(VERSION);
        return e.finish(head);
    }

    static ReaderGroupState decodeState(ByteBuffer bytes) {
        try {
            RecordInput in = new RecordInput(bytes, "ReaderGroupState");
            int magic = in.has(Integer.BYTES) ? in.readInt("magic") : 0;
            if (magic != STATE_MAGIC) {
                throw new ProtocolException("the reader group state is not in Sluice's format (it starts with 0x"
                        + Integer.toHexString(magic) + "): was the group created by another client, such as "
                        + "Pravega's Java client? Sluice cannot share a group with it");
            }
            int version = in.readByte("version");
            if (version != VERSION) {
                throw new ProtocolException("the reader group state has format version " + version
                        + ", this Sluice reads version " + VERSION);
            }
            Dec d = new Dec(in);
            int streams = d.count();
            TreeMap<ScopedStream, StreamCut> start = new TreeMap<>();
            for (int i = 0; i < streams; i++) {
                String[] st = d.streamAt(d.varlong());
                start.put(ScopedStream.of(st[0], st[1]), StreamCut.of(d.offsets()));
            }
            SortedMap<Segment, Long> endOffsets = d.offsets();
            long refresh = d.varlong();
            long interval = in.readLong("checkpointIntervalMillis");
            int maxOutstanding = d.count();
            Settings settings = new Settings(start, endOffsets, refresh, interval, maxOutstanding);
            long generation = d.varlong();
            int readerCount = d.count();
            TreeMap<String, ReaderInfo> readers = new TreeMap<>();
            for (int i = 0; i < readerCount; i++) {
                String id = in.readUtf("reader");
                long incarnation = in.readLong("incarnation");
                boolean ack = in.readBoolean("ackOnCheckpoint");
                long timeout = d.varlong();
                long heartbeat = in.readLong("heartbeat");
                int owned = d.count();
                TreeMap<Segment, Owned> segments = new TreeMap<>();
                for (int j = 0; j < owned; j++) {
                    Segment s = d.segment();
                    segments.put(s, new Owned(d.varlong(), d.varlong()));
                }
                readers.put(id, new ReaderInfo(incarnation, ack, timeout, heartbeat, segments));
            }
            SortedMap<Segment, Long> unassigned = d.offsets();
            int futureCount = d.count();
            TreeMap<Segment, SortedSet<Segment>> future = new TreeMap<>();
            for (int i = 0; i < futureCount; i++) {
                future.put(d.segment(), d.segments());
            }
            SortedMap<Segment, Long> ended = d.offsets();
            SortedMap<Segment, Long> finished = d.offsets();
            int checkpointCount = d.count();
            List<CheckpointProgress> checkpoints = new ArrayList<>();
            for (int i = 0; i < checkpointCount; i++) {
                String name = in.readUtf("checkpoint");
                boolean silent = in.readBoolean("silent");
                int remainingCount = d.count();
                TreeSet<String> remaining = new TreeSet<>();
                for (int j = 0; j < remainingCount; j++) {
                    remaining.add(in.readUtf("remaining"));
                }
                checkpoints.add(new CheckpointProgress(name, silent, remaining, d.offsets()));
            }
            int completedCount = d.count();
            List<CompletedCheckpoint> completed = new ArrayList<>();
            for (int i = 0; i < completedCount; i++) {
                String name = in.readUtf("completed");
                boolean silent = in.readBoolean("silent");
                completed.add(new CompletedCheckpoint(name, silent, d.offsets()));
            }
            long lastCheckpoint = in.readLong("lastCheckpointMillis");
            d.end();
            return ReaderGroupState.frozen(settings, generation, readers, unassigned, future, ended, finished,
                    checkpoints, completed, lastCheckpoint);
        } catch (ProtocolException e) {
            throw e;
        } catch (SluiceException | IllegalArgumentException e) {
            throw new ProtocolException("the reader group state is malformed: " + e.getMessage(), e);
        }
    }

    // ------------------------------------------------------------------ updates

    static ByteBuffer encodeUpdate(GroupUpdate update) {
        Enc e = new Enc();
        int tag = switch (update) {
            case GroupUpdate.AddReader u -> {
                e.body.writeUtf(u.reader());
                e.body.writeLong(u.incarnation());
                e.body.writeBoolean(u.ackOnCheckpoint());
                e.varlong(u.offlineTimeoutMillis());
                e.body.writeLong(u.nowMillis());
                yield ADD_READER;
            }
            case GroupUpdate.RemoveReader u -> {
                e.body.writeUtf(u.reader());
                e.body.writeLong(u.incarnation());
                e.offsets(u.positions());
                yield REMOVE_READER;
            }
            case GroupUpdate.Heartbeat u -> {
                e.body.writeUtf(u.reader());
                e.body.writeLong(u.incarnation());
                e.body.writeLong(u.nowMillis());
                e.offsets(u.offsets());
                yield HEARTBEAT;
            }
            case GroupUpdate.Acquire u -> {
                e.body.writeUtf(u.reader());
                e.body.writeLong(u.incarnation());
                e.segments(u.segments());
                yield ACQUIRE;
            }
            case GroupUpdate.Release u -> {
                e.body.writeUtf(u.reader());
                e.body.writeLong(u.incarnation());
                e.offsets(u.offsets());
                yield RELEASE;
            }
            case GroupUpdate.SegmentCompleted u -> {
                e.body.writeUtf(u.reader());
                e.body.writeLong(u.incarnation());
                e.segment(u.segment());
                e.varlong(u.endOffset());
                e.varint(u.successors().size());
                u.successors().forEach((successor, predecessors) -> {
                    e.segment(successor);
                    e.segments(predecessors);
                });
                yield SEGMENT_COMPLETED;
            }
            case GroupUpdate.CreateCheckpoint u -> {
                e.body.writeUtf(u.name());
                e.body.writeBoolean(u.silent());
                e.body.writeLong(u.nowMillis());
                yield CREATE_CHECKPOINT;
            }
            case GroupUpdate.CheckpointReached u -> {
                e.body.writeUtf(u.reader());
                e.body.writeLong(u.incarnation());
                e.body.writeUtf(u.name());
                e.offsets(u.offsets());
                yield CHECKPOINT_REACHED;
            }
            case GroupUpdate.Reset u -> {
                e.offsets(u.positions());
                yield RESET;
            }
        };
        RecordOutput head = new RecordOutput(16);
        head.writeByte(VERSION);
        head.writeByte(tag);
        return e.finish(head);
    }

    static GroupUpdate decodeUpdate(ByteBuffer bytes) {
        try {
            RecordInput in = new RecordInput(bytes, "ReaderGroupUpdate");
            int version = in.readByte("version");
            if (version != VERSION) {
                throw new ProtocolException("a reader group update has format version " + version
                        + ", this Sluice reads version " + VERSION + " (or the group is not in Sluice's format)");
            }
            int tag = in.readByte("tag");
            Dec d = new Dec(in);
            GroupUpdate u = switch (tag) {
                case ADD_READER -> new GroupUpdate.AddReader(in.readUtf("reader"), in.readLong("incarnation"),
                        in.readBoolean("ackOnCheckpoint"), d.varlong(), in.readLong("nowMillis"));
                case REMOVE_READER -> new GroupUpdate.RemoveReader(in.readUtf("reader"), in.readLong("incarnation"),
                        d.offsets());
                case HEARTBEAT -> new GroupUpdate.Heartbeat(in.readUtf("reader"), in.readLong("incarnation"),
                        in.readLong("nowMillis"), d.offsets());
                case ACQUIRE -> new GroupUpdate.Acquire(in.readUtf("reader"), in.readLong("incarnation"),
                        d.segments());
                case RELEASE -> new GroupUpdate.Release(in.readUtf("reader"), in.readLong("incarnation"),
                        d.offsets());
                case SEGMENT_COMPLETED -> {
                    String reader = in.readUtf("reader");
                    long incarnation = in.readLong("incarnation");
                    Segment segment = d.segment();
                    long end = d.varlong();
                    int n = d.count();
                    TreeMap<Segment, SortedSet<Segment>> successors = new TreeMap<>();
                    for (int i = 0; i < n; i++) {
                        successors.put(d.segment(), d.segments());
                    }
                    yield new GroupUpdate.SegmentCompleted(reader, incarnation, segment, end, successors);
                }
                case CREATE_CHECKPOINT -> new GroupUpdate.CreateCheckpoint(in.readUtf("name"),
                        in.readBoolean("silent"), in.readLong("nowMillis"));
                case CHECKPOINT_REACHED -> new GroupUpdate.CheckpointReached(in.readUtf("reader"),
                        in.readLong("incarnation"), in.readUtf("name"), d.offsets());
                case RESET -> new GroupUpdate.Reset(d.offsets());
                default -> throw new ProtocolException("unknown reader group update type " + tag);
            };
            d.end();
            return u;
        } catch (ProtocolException e) {
            throw e;
        } catch (SluiceException | IllegalArgumentException e) {
            throw new ProtocolException("a reader group update is malformed: " + e.getMessage(), e);
        }
    }

    // ------------------------------------------------------------------ helpers

    /** Writes a body, collecting the streams its segments belong to into a table written in front of it. */
    private static final class Enc {
        final RecordOutput body = new RecordOutput(256);
        private final Map<String, Integer> streams = new LinkedHashMap<>();
        private final List<String[]> names = new ArrayList<>();

        int stream(String scope, String stream) {
            return streams.computeIfAbsent(scope + "/" + stream, k -> {
                names.add(new String[] {scope, stream});
                return names.size() - 1;
            });
        }

        void varint(int v) {
            varlong(v);
        }

        void varlong(long v) {
            if (v < 0) {
                throw new IllegalArgumentException("cannot encode a negative number as a varint: " + v);
            }
            body.writeVarlong(v);
        }

        void segment(Segment s) {
            varint(stream(s.scope(), s.stream()));
            varint(s.number());
            varint(s.epoch());
        }

        void segments(SortedSet<Segment> set) {
            varint(set.size());
            set.forEach(this::segment);
        }

        void offsets(Map<Segment, Long> offsets) {
            varint(offsets.size());
            offsets.forEach((s, o) -> {
                segment(s);
                varlong(o);
            });
        }

        ByteBuffer finish(RecordOutput head) {
            head.writeVarlong(names.size());
            for (String[] n : names) {
                head.writeUtf(n[0]);
                head.writeUtf(n[1]);
            }
            head.write(body);
            return head.buffer();
        }
    }

    /** Reads what {@link Enc} wrote: the stream table first. */
    private static final class Dec {
        private final RecordInput in;
        private final List<String[]> streams = new ArrayList<>();

        Dec(RecordInput in) {
            this.in = in;
            int n = count();
            for (int i = 0; i < n; i++) {
                streams.add(new String[] {in.readUtf("scope"), in.readUtf("stream")});
            }
        }

        long varlong() {
            long v = 0;
            for (int shift = 0; shift < 64; shift += 7) {
                int b = in.readByte("varint");
                v |= (long) (b & 0x7F) << shift;
                if ((b & 0x80) == 0) {
                    return v;
                }
            }
            throw new ProtocolException("a varint in reader group state is longer than 10 bytes");
        }

        /** A count: non-negative and no larger than the bytes left (every item takes at least one byte). */
        int count() {
            long n = varlong();
            if (n > in.remaining()) {
                throw new ProtocolException("a count of " + n + " items cannot fit in the " + in.remaining()
                        + " bytes left");
            }
            return (int) n;
        }

        String[] streamAt(long index) {
            if (index >= streams.size()) {
                throw new ProtocolException("stream index " + index + " is not in the table of " + streams.size());
            }
            return streams.get((int) index);
        }

        Segment segment() {
            String[] st = streamAt(varlong());
            long number = varlong();
            long epoch = varlong();
            if (number > Integer.MAX_VALUE || epoch > Integer.MAX_VALUE) {
                throw new ProtocolException("segment number " + number + " or epoch " + epoch + " is out of range");
            }
            return new Segment(st[0], st[1], Segment.segmentId((int) number, (int) epoch));
        }

        SortedSet<Segment> segments() {
            int n = count();
            TreeSet<Segment> out = new TreeSet<>();
            for (int i = 0; i < n; i++) {
                out.add(segment());
            }
            return out;
        }

        SortedMap<Segment, Long> offsets() {
            int n = count();
            TreeMap<Segment, Long> out = new TreeMap<>();
            for (int i = 0; i < n; i++) {
                Segment s = segment();
                out.put(s, varlong());
            }
            return out;
        }

        void end() {
            if (in.remaining() != 0) {
                throw new ProtocolException(in.remaining() + " bytes follow the end of a reader group record");
            }
        }
    }
}
