package io.sluice.server;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;

import io.sluice.storage.ChunkRef;
import io.sluice.storage.ChunkStore;

/**
 * A segment container's state at one point of its log: what a snapshot holds. Segment data sits in chunk files
 * (a snapshot refers to them), so a snapshot is metadata plus table contents and stays small.
 *
 * <pre>
 * snapshot  = magic "SLCS" | version i32 (2) | nextSegmentId i64 | count i32 | segment × count
 *             | droppedCount i32 | droppedOwner i64 × droppedCount
 * segment   = name UTF | id i64 | kind u8 | keyLength i32 | scaleType u8 | targetRate i32 | rollover i64
 *             | sealed bool | lastModified i64 | attrCount i32 | (msb i64, lsb i64, value i64) × attrCount
 *             | start i64 | length i64 | chunkCount i32 | chunk × chunkCount | boundaryCount i32 | i64 × boundaryCount
 *             | (table segments) tableLength i64 | entryCount i32 | (keyLen i32, key, valueLen i32, value, version i64) × entryCount
 * chunk     = offset i64 | length i32 | owner i64 | chunkNo i64 | fileOffset i64 | refLength i32 | refOffset i32
 * </pre>
 *
 * @param nextSegmentId the next internal segment id
 * @param segments every segment
 * @param dropped owners of chunk files that deleted segments left behind (reclaimed once nothing refers to them)
 */
record ContainerImage(long nextSegmentId, List<SegmentImage> segments, List<Long> dropped) {
    private static final int MAGIC = 0x534C4353; // "SLCS"
    /** The record format version ({@link ContainerOp#FORMAT_VERSION}): snapshot and write log go together. */
    static final int VERSION = ContainerOp.FORMAT_VERSION;

    /** A chunk of a segment image: in memory (up to a captured length) or already in a chunk file. */
    sealed interface ChunkImage permits InMemory, Stored {
    }

    /** @param chunk a memory chunk @param length its length when captured */
    record InMemory(SegmentData.MemoryChunk chunk, int length) implements ChunkImage {
    }

    /** @param chunk a stored chunk */
    record Stored(SegmentData.StoredChunk chunk) implements ChunkImage {
    }

    /** A memory chunk the snapshot wrote to a chunk file. */
    record Written(SegmentData.MemoryChunk memory, SegmentData.StoredChunk stored) {
    }

    /** One table entry. */
    record TableEntryImage(byte[] key, byte[] value, long version) {
    }

    /** One segment's state. */
    record SegmentImage(String name, long id, Segment.Kind kind, int keyLength, byte scaleType, int targetRate,
                        long rolloverSizeBytes, boolean sealed, long lastModifiedMillis, Map<UUID, Long> attributes,
                        long start, long length, List<ChunkImage> chunks, List<Long> boundaries, long tableLength,
                        List<TableEntryImage> table, List<Written> written) {

        /** Under the container lock: copies what can change; memory chunks are referenced with their length. */
        static SegmentImage of(Segment s) {
            List<ChunkImage> chunks = new ArrayList<>(s.data.chunks().size());
            for (SegmentData.Chunk c : s.data.chunks()) {
                chunks.add(switch (c) {
                    case SegmentData.MemoryChunk m -> new InMemory(m, m.length());
                    case SegmentData.StoredChunk st -> new Stored(st);
                });
            }
            List<TableEntryImage> table = null;
            long tableLength = 0;
            if (s.table != null) {
                table = new ArrayList<>(s.table.entries().size());
                for (Map.Entry<TableState.Key, TableState.Value> e : s.table.entries().entrySet()) {
                    table.add(new TableEntryImage(e.getKey().bytes(), e.getValue().bytes(), e.getValue().version()));
                }
                tableLength = s.table.length();
            }
            return new SegmentImage(s.name, s.id, s.kind, s.table == null ? 0 : s.table.keyLength(), s.scaleType,
                    s.targetRate, s.rolloverSizeBytes, s.sealed, s.lastModifiedMillis, new HashMap<>(s.attributes),
                    s.data.startOffset(), s.data.length(), chunks, new ArrayList<>(s.boundaries.keySet()), tableLength,
                    table, List.of());
        }

        /** Rebuilds a live segment (only stored chunks: a loaded snapshot has no memory chunks). */
        Segment toSegment() {
            Segment s = new Segment(name, id, kind, keyLength);
            s.scaleType = scaleType;
            s.targetRate = targetRate;
            s.rolloverSizeBytes = rolloverSizeBytes;
            s.sealed = sealed;
            s.lastModifiedMillis = lastModifiedMillis;
            s.attributes.putAll(attributes);
            List<SegmentData.StoredChunk> stored = new ArrayList<>();
            for (ChunkImage c : chunks) {
                if (!(c instanceof Stored st)) {
                    throw new IllegalStateException("a snapshot of " + name + " still holds memory chunks");
                }
                stored.add(st.chunk());
            }
            s.data.restore(start, length, stored);
            boundaries.forEach(b -> s.boundaries.put(b, Boolean.TRUE));
            if (s.table != null) {
                Map<TableState.Key, TableState.Value> contents = new TreeMap<>();
                for (TableEntryImage e : table) {
                    contents.put(new TableState.Key(e.key()), new TableState.Value(e.value(), e.version()));
                }
                s.table.restore(tableLength, contents);
            }
            return s;
        }
    }

    /**
     * Writes every memory chunk's captured bytes to the chunk store (durably), outside any lock.
     *
     * @return the image with only stored chunks, listing what it wrote
     */
    ContainerImage storeChunks(ChunkStore store) {
        List<SegmentImage> out = new ArrayList<>(segments.size());
        for (SegmentImage s : segments) {
            List<ChunkImage> chunks = new ArrayList<>(s.chunks().size());
            List<Written> written = new ArrayList<>();
            for (ChunkImage c : s.chunks()) {
                if (c instanceof InMemory m && m.length() > 0) {
                    ChunkRef ref = store.write(s.id(), m.chunk().view(m.length()));
                    SegmentData.StoredChunk st = new SegmentData.StoredChunk(m.chunk().offset(), m.length(), ref, 0);
                    chunks.add(new Stored(st));
                    written.add(new Written(m.chunk(), st));
                } else if (c instanceof Stored) {
                    chunks.add(c);
                }
            }
            out.add(new SegmentImage(s.name(), s.id(), s.kind(), s.keyLength(), s.scaleType(), s.targetRate(),
                    s.rolloverSizeBytes(), s.sealed(), s.lastModifiedMillis(), s.attributes(), s.start(), s.length(), chunks,
                    s.boundaries(), s.tableLength(), s.table(), written));
        }
        return new ContainerImage(nextSegmentId, out, dropped);
    }

    /** Serializes an image whose chunks are all stored. */
    void writeTo(OutputStream stream) throws IOException {
        DataOutputStream out = new DataOutputStream(stream);
        out.writeInt(MAGIC);
        out.writeInt(VERSION);
        out.writeLong(nextSegmentId);
        out.writeInt(segments.size());
        for (SegmentImage s : segments) {
            out.writeUTF(s.name());
            out.writeLong(s.id());
            out.writeByte(s.kind().ordinal());
            out.writeInt(s.keyLength());
            out.writeByte(s.scaleType());
            out.writeInt(s.targetRate());
            out.writeLong(s.rolloverSizeBytes());
            out.writeBoolean(s.sealed());
            out.writeLong(s.lastModifiedMillis());
            out.writeInt(s.attributes().size());
            for (Map.Entry<UUID, Long> a : s.attributes().entrySet()) {
                out.writeLong(a.getKey().getMostSignificantBits());
                out.writeLong(a.getKey().getLeastSignificantBits());
                out.writeLong(a.getValue());
            }
            out.writeLong(s.start());
            out.writeLong(s.length());
            out.writeInt(s.chunks().size());
            for (ChunkImage c : s.chunks()) {
                SegmentData.StoredChunk st = ((Stored) c).chunk();
                out.writeLong(st.offset());
                out.writeInt(st.length());
                out.writeLong(st.ref().owner());
                out.writeLong(st.ref().chunk());
                out.writeLong(st.ref().offset());
                out.writeInt(st.ref().length());
                out.writeInt(st.refOffset());
            }
            out.writeInt(s.boundaries().size());
            for (long b : s.boundaries()) {
                out.writeLong(b);
            }
            if (s.kind() == Segment.Kind.TABLE) {
                out.writeLong(s.tableLength());
                out.writeInt(s.table().size());
                for (TableEntryImage e : s.table()) {
                    out.writeInt(e.key().length);
                    out.write(e.key());
                    out.writeInt(e.value().length);
                    out.write(e.value());
                    out.writeLong(e.version());
                }
            }
        }
        out.writeInt(dropped.size());
        for (long d : dropped) {
            out.writeLong(d);
        }
        out.flush();
    }

    /**
     * @throws IOException if the bytes are not a container snapshot
     */
    static ContainerImage readFrom(InputStream stream) throws IOException {
        DataInputStream in = new DataInputStream(stream);
        if (in.readInt() != MAGIC) {
            throw new IOException("not a Sluice container snapshot");
        }
        int version = in.readInt();
        if (version != VERSION) {
            throw new IOException("the container snapshot is in record format version " + version
                    + "; this server reads record format version " + VERSION + " only");
        }
        long next = in.readLong();
        int count = in.readInt();
        List<SegmentImage> segments = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            String name = in.readUTF();
            long id = in.readLong();
            Segment.Kind kind = Segment.Kind.values()[in.readByte()];
            int keyLength = in.readInt();
            byte scaleType = in.readByte();
            int rate = in.readInt();
            long rollover = in.readLong();
            boolean sealed = in.readBoolean();
            long modified = in.readLong();
            int attrs = in.readInt();
            Map<UUID, Long> attributes = new HashMap<>();
            for (int a = 0; a < attrs; a++) {
                attributes.put(new UUID(in.readLong(), in.readLong()), in.readLong());
            }
            long start = in.readLong();
            long length = in.readLong();
            int chunkCount = in.readInt();
            List<ChunkImage> chunks = new ArrayList<>(chunkCount);
            for (int c = 0; c < chunkCount; c++) {
                long offset = in.readLong();
                int len = in.readInt();
                ChunkRef ref = new ChunkRef(in.readLong(), in.readLong(), in.readLong(), in.readInt());
                chunks.add(new Stored(new SegmentData.StoredChunk(offset, len, ref, in.readInt())));
            }
            int boundaryCount = in.readInt();
            List<Long> boundaries = new ArrayList<>(boundaryCount);
            for (int b = 0; b < boundaryCount; b++) {
                boundaries.add(in.readLong());
            }
            long tableLength = 0;
            List<TableEntryImage> table = null;
            if (kind == Segment.Kind.TABLE) {
                tableLength = in.readLong();
                int entries = in.readInt();
                table = new ArrayList<>(entries);
                for (int e = 0; e < entries; e++) {
                    byte[] key = new byte[in.readInt()];
                    in.readFully(key);
                    byte[] value = new byte[in.readInt()];
                    in.readFully(value);
                    table.add(new TableEntryImage(key, value, in.readLong()));
                }
            }
            segments.add(new SegmentImage(name, id, kind, keyLength, scaleType, rate, rollover, sealed, modified, attributes,
                    start, length, chunks, boundaries, tableLength, table, List.of()));
        }
        int droppedCount = in.readInt();
        List<Long> dropped = new ArrayList<>(droppedCount);
        for (int d = 0; d < droppedCount; d++) {
            dropped.add(in.readLong());
        }
        return new ContainerImage(next, segments, dropped);
    }
}
