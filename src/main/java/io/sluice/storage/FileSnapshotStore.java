package io.sluice.storage;

import java.io.BufferedOutputStream;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.zip.CRC32C;

/**
 * {@link SnapshotService} on the file system: snapshot {@code version} of a resource is the file
 * {@code <root>/<bucket>/<key>/<version, 20 digits>.snap} (see {@link ResourceId}).
 *
 * <pre>
 * file    := header payload trailer
 * header  := magic:int32 "SLSN" (0x534C534E)  formatVersion:int32 (1)                          8 bytes
 * trailer := payloadLength:int64  crc:int32 (CRC32C of the payload)  endMagic:int32 "SLSE"     16 bytes
 * </pre>
 *
 * Integers are big-endian. A snapshot is written to a temporary file in the same directory, forced to disk, renamed
 * over the final name atomically and the directory forced: a reader sees the whole old file or the whole new one,
 * never a mix. {@link #read} checks the header, the trailer (its magic and that the payload length matches the file
 * size) and the payload's checksum before returning the stream. Snapshots are always forced, whatever the
 * {@link Durability}: taking one deletes the logs it covers.
 *
 * <p>Thread-safe (no shared mutable state); every method blocks on I/O.
 */
final class FileSnapshotStore implements SnapshotService {
    /** "SLSN". */
    static final int MAGIC = 0x534C534E;
    /** "SLSE". */
    static final int END_MAGIC = 0x534C5345;
    static final int FORMAT_VERSION = 1;
    static final int HEADER_BYTES = 8;
    static final int TRAILER_BYTES = 16;
    static final String SUFFIX = ".snap";
    private static final int BUFFER_BYTES = 64 * 1024;

    private final Path root;
    private final FileOpener files;

    /**
     * @param root the directory under which resource directories live (created when needed)
     */
    FileSnapshotStore(Path root) {
        this(root, FileOpener.DEFAULT);
    }

    /**
     * @param files opens snapshot files for writing (tests pass one that fails like a full disk)
     */
    FileSnapshotStore(Path root, FileOpener files) {
        this.root = Objects.requireNonNull(root, "root");
        this.files = Objects.requireNonNull(files, "files");
    }

    /** @return the file of snapshot {@code version} of the resource */
    Path snapshotFile(String bucket, String key, long version) {
        return directory(new ResourceId(bucket, key)).resolve(fileName(FileWriteLog.checkVersion(version)));
    }

    @Override
    public InputStream read(String bucket, String key, long version) {
        Path file = snapshotFile(bucket, key, version);
        FileChannel ch;
        try {
            ch = FileChannel.open(file, StandardOpenOption.READ);
        } catch (NoSuchFileException e) {
            throw new StorageException("snapshot " + bucket + "|" + key + " version " + version
                    + " does not exist (" + file + ")");
        } catch (IOException e) {
            throw new StorageException("cannot open snapshot " + file + ": " + e, e);
        }
        try {
            long payloadLength = verify(ch, file);
            return new ChannelInputStream(ch, HEADER_BYTES, HEADER_BYTES + payloadLength);
        } catch (IOException e) {
            FileUtil.closeQuietly(ch);
            throw new StorageException("cannot read snapshot " + file + ": " + e, e);
        } catch (RuntimeException e) {
            FileUtil.closeQuietly(ch);
            throw e;
        }
    }

    @Override
    public void write(String bucket, String key, long version, InputStream data) {
        Objects.requireNonNull(data, "data");
        writeTo(bucket, key, version, data::transferTo);
    }

    @Override
    public void writeTo(String bucket, String key, long version, SnapshotWriter writer) {
        Objects.requireNonNull(writer, "writer");
        Path file = snapshotFile(bucket, key, version);
        Path dir = file.getParent();
        Path tmp = dir.resolve(file.getFileName() + "." + UUID.randomUUID() + ".tmp");
        boolean renamed = false;
        try {
            Files.createDirectories(dir);
            try (FileChannel ch = files.open(tmp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
                OutputStream out = new BufferedOutputStream(Channels.newOutputStream(ch), BUFFER_BYTES);
                out.write(ByteBuffer.allocate(HEADER_BYTES).putInt(MAGIC).putInt(FORMAT_VERSION).array());
                PayloadStream payload = new PayloadStream(out);
                writer.writeTo(payload);
                out.write(ByteBuffer.allocate(TRAILER_BYTES).putLong(payload.count)
                        .putInt((int) payload.crc.getValue()).putInt(END_MAGIC).array());
                out.flush();
                ch.force(true);
            }
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            renamed = true;
            // a snapshot whose directory entry may not survive a crash must not be taken as stored: the caller
            // would delete the logs it covers (the file itself is whole, and a later snapshot replaces it)
            FileUtil.fsyncDirectory(files, dir);
        } catch (IOException e) {
            throw new StorageException("cannot write snapshot " + file + ": " + e, e);
        } finally {
            if (!renamed) {
                try {
                    Files.deleteIfExists(tmp);
                } catch (IOException e) {
                    // the failure being thrown matters more; a stray .tmp file is ignored by list()
                }
            }
        }
    }

    @Override
    public List<Long> list(String bucket, String key) {
        return FileWriteLog.listVersions(directory(new ResourceId(bucket, key)), SUFFIX, "snapshots");
    }

    @Override
    public void delete(String bucket, String key, long version) {
        Path file = snapshotFile(bucket, key, version);
        try {
            if (Files.deleteIfExists(file)) {
                FileUtil.fsyncDirectoryQuietly(files, file.getParent());
            }
        } catch (IOException e) {
            throw new StorageException("cannot delete snapshot " + file + ": " + e, e);
        }
    }

    static String fileName(long version) {
        return String.format("%020d%s", version, SUFFIX);
    }

    private Path directory(ResourceId id) {
        return root.resolve(id.relativeDirectory());
    }

    /** @return the payload length, after checking header, trailer and checksum */
    private static long verify(FileChannel ch, Path file) throws IOException {
        long size = ch.size();
        if (size < HEADER_BYTES + TRAILER_BYTES) {
            throw new CorruptedDataException("snapshot " + file + " is too short (" + size + " bytes) to be whole");
        }
        ByteBuffer header = ByteBuffer.allocate(HEADER_BYTES);
        FileUtil.readFully(ch, header, 0);
        if (header.getInt(0) != MAGIC || header.getInt(4) != FORMAT_VERSION) {
            throw new CorruptedDataException(String.format("snapshot %s has a bad header (magic %08x, format %d)",
                    file, header.getInt(0), header.getInt(4)));
        }
        ByteBuffer trailer = ByteBuffer.allocate(TRAILER_BYTES);
        FileUtil.readFully(ch, trailer, size - TRAILER_BYTES);
        long payloadLength = trailer.getLong(0);
        int expectedCrc = trailer.getInt(8);
        if (trailer.getInt(12) != END_MAGIC || payloadLength != size - HEADER_BYTES - TRAILER_BYTES) {
            throw new CorruptedDataException("snapshot " + file + " has a bad trailer (payload length "
                    + payloadLength + " in a file of " + size + " bytes)");
        }
        CRC32C crc = new CRC32C();
        ByteBuffer buf = ByteBuffer.allocate(BUFFER_BYTES);
        long at = HEADER_BYTES;
        long stop = HEADER_BYTES + payloadLength;
        while (at < stop) {
            buf.clear().limit((int) Math.min(BUFFER_BYTES, stop - at));
            if (!FileUtil.readFully(ch, buf, at)) {
                throw new CorruptedDataException("snapshot " + file + " ended while checking it");
            }
            buf.flip();
            at += buf.remaining();
            crc.update(buf);
        }
        if ((int) crc.getValue() != expectedCrc) {
            throw new CorruptedDataException(String.format("snapshot %s failed its checksum (CRC32C %08x, expected %08x)",
                    file, (int) crc.getValue(), expectedCrc));
        }
        return payloadLength;
    }

    /** The writer's view: counts and checksums the payload, and does not let the writer close the file. */
    private static final class PayloadStream extends FilterOutputStream {
        final CRC32C crc = new CRC32C();
        long count;

        PayloadStream(OutputStream out) {
            super(out);
        }

        @Override
        public void write(int b) throws IOException {
            out.write(b);
            crc.update(b);
            count++;
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            Objects.checkFromIndexSize(off, len, b.length);
            out.write(b, off, len);
            crc.update(b, off, len);
            count += len;
        }

        @Override
        public void close() throws IOException {
            out.flush();
        }
    }
}
