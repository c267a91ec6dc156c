package io.sluice.storage;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.ReadableByteChannel;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A {@link FileOpener} whose files behave like those of a full disk while {@link #fill()} is in effect: a write stores
 * part of its bytes (at most half, so a record is torn) and then throws {@code IOException("No space left on device")},
 * and a force after such a write throws too. {@link #free()} makes the disk behave normally again. Reads,
 * truncation and closing always work, as on a real full disk.
 */
public final class FullDisk implements FileOpener {
    /** The text of the failure, as the JDK reports ENOSPC. */
    public static final String NO_SPACE = "No space left on device";

    private volatile boolean full;
    private final AtomicInteger refused = new AtomicInteger();
    private final java.util.Set<Path> refusedFiles = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /** From now on writes fail. */
    public void fill() {
        full = true;
    }

    /** From now on writes succeed again. */
    public void free() {
        full = false;
    }

    /** @return how many writes and forces failed so far */
    public int refused() {
        return refused.get();
    }

    /** @return whether a write to a file whose path contains {@code part} failed */
    public boolean refusedFileContaining(String part) {
        return refusedFiles.stream().anyMatch(f -> f.toString().contains(part));
    }

    @Override
    public FileChannel open(Path file, OpenOption... options) throws IOException {
        return new Channel(file, FileChannel.open(file, options));
    }

    private IOException noSpace(Path file) {
        refused.incrementAndGet();
        refusedFiles.add(file);
        return new IOException(NO_SPACE);
    }

    /** Writes at most half of {@code src} (nothing if it has one byte), as a write cut short by a full disk. */
    private static ByteBuffer part(ByteBuffer src) {
        ByteBuffer half = src.duplicate();
        half.limit(half.position() + half.remaining() / 2);
        return half;
    }

    /** A channel that fails like a full disk while the disk is full. */
    private final class Channel extends ForwardingFileChannel {
        private final Path path;
        /** A write failed since the last successful force or truncation: forcing fails while full. */
        private volatile boolean dirty;

        Channel(Path path, FileChannel file) {
            super(file);
            this.path = path;
        }

        @Override
        public int write(ByteBuffer src) throws IOException {
            if (full) {
                dirty = true;
                file.write(part(src));
                throw noSpace(path);
            }
            return file.write(src);
        }

        @Override
        public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
            if (full) {
                dirty = true;
                if (length > 0) {
                    file.write(part(srcs[offset]));
                }
                throw noSpace(path);
            }
            return file.write(srcs, offset, length);
        }

        @Override
        public int write(ByteBuffer src, long position) throws IOException {
            if (full) {
                dirty = true;
                file.write(part(src), position);
                throw noSpace(path);
            }
            return file.write(src, position);
        }

        @Override
        public void force(boolean metaData) throws IOException {
            if (full && dirty) {
                throw noSpace(path);
            }
            file.force(metaData);
            dirty = false;
        }

        @Override
        public FileChannel truncate(long size) throws IOException {
            file.truncate(size);
            dirty = false;
            return this;
        }

        @Override
        public long transferFrom(ReadableByteChannel src, long position, long count) throws IOException {
            if (full) {
                throw noSpace(path);
            }
            return file.transferFrom(src, position, count);
        }
    }
}
