package io.sluice.storage;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.ReadableByteChannel;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Predicate;

/**
 * A {@link FileOpener} whose {@link FileChannel#force} fails like Linux's {@code fsync} after a write-back error (EIO)
 * while {@link #fail} is in effect, for the files it is told to fail. It copies what Linux does, because that is what
 * PostgreSQL's "fsyncgate" (2018) taught:
 * <ul>
 *   <li>the failing force throws {@code IOException("Input/output error")};</li>
 *   <li>the bytes written to the file since its last successful force are gone: the kernel marked the pages clean
 *       although they never reached the disk. Here they are overwritten with zeros, so a later read sees the loss;</li>
 *   <li>the error is reported once: the next force of the file succeeds (once {@link #heal} has been called, or at
 *       once with {@link #failOnce}), although the lost bytes are still lost. A program that retries the fsync and
 *       then acknowledges the data acknowledges zeros.</li>
 * </ul>
 * Writes, reads, truncation and directories' forces behave normally (a directory's force fails too if it matches).
 * {@link #beforeForce} lets a test hold a force until other writers have written (one file shared by several writers
 * is where a once-reported error hurts most).
 */
public final class FailingFsync implements FileOpener {
    /** The text of the failure, as the JDK reports EIO. */
    public static final String EIO = "Input/output error";

    private volatile Predicate<Path> failing = p -> false;
    private volatile boolean once;
    private volatile Runnable beforeForce = () -> { };
    private final AtomicInteger failed = new AtomicInteger();
    private final AtomicInteger writes = new AtomicInteger();
    private final AtomicInteger lostBytes = new AtomicInteger();
    private final java.util.Set<Path> failedFiles = ConcurrentHashMap.newKeySet();

    /** From now on forces of every file fail. */
    public void fail() {
        fail(p -> true);
    }

    /** From now on forces of the files {@code which} accepts fail (the path as the storage opened it). */
    public void fail(Predicate<Path> which) {
        once = false;
        failing = which;
    }

    /** The next force of a file {@code which} accepts fails; then forces succeed again by themselves. */
    public void failOnce(Predicate<Path> which) {
        once = true;
        failing = which;
    }

    /** From now on forces succeed (what was lost stays lost). */
    public void heal() {
        failing = p -> false;
    }

    /** Runs {@code hook} at the start of every force, on the forcing thread, before deciding whether it fails. */
    public void beforeForce(Runnable hook) {
        beforeForce = hook;
    }

    /** @return how many forces failed so far */
    public int failed() {
        return failed.get();
    }

    /** @return how many writes succeeded so far, on all files */
    public int writes() {
        return writes.get();
    }

    /** @return bytes of unforced writes that failed forces dropped so far */
    public int lostBytes() {
        return lostBytes.get();
    }

    /** @return whether a force of a file whose path contains {@code part} failed */
    public boolean failedFileContaining(String part) {
        return failedFiles.stream().anyMatch(f -> f.toString().contains(part));
    }

    @Override
    public FileChannel open(Path file, OpenOption... options) throws IOException {
        return new Channel(file, FileChannel.open(file, options));
    }

    /** A channel that remembers its unforced writes and loses them when its force fails. */
    private final class Channel extends ForwardingFileChannel {
        private final Path path;
        /** Guarded by {@code lock}: file ranges (position, length) written since the last force. */
        private final List<long[]> unforced = new ArrayList<>();
        private final ReentrantLock lock = new ReentrantLock();

        Channel(Path path, FileChannel file) {
            super(file);
            this.path = path;
        }

        private void written(long position, long length) {
            if (length <= 0) {
                return;
            }
            writes.incrementAndGet();
            lock.lock();
            try {
                unforced.add(new long[] {position, length});
            } finally {
                lock.unlock();
            }
        }

        private List<long[]> takeUnforced() {
            lock.lock();
            try {
                List<long[]> out = new ArrayList<>(unforced);
                unforced.clear();
                return out;
            } finally {
                lock.unlock();
            }
        }

        @Override
        public void force(boolean metaData) throws IOException {
            beforeForce.run();
            Predicate<Path> which = failing;
            if (which.test(path)) {
                if (once) {
                    heal();
                }
                // the write-back failed: every unforced range is lost, and the error is not reported again
                long size = file.size();
                for (long[] r : takeUnforced()) {
                    long stop = Math.min(r[0] + r[1], size);
                    if (stop > r[0]) {
                        ByteBuffer zeros = ByteBuffer.allocate((int) (stop - r[0]));
                        while (zeros.hasRemaining()) {
                            file.write(zeros, r[0] + zeros.position());
                        }
                        lostBytes.addAndGet((int) (stop - r[0]));
                    }
                }
                // counted once the bytes are gone, so a test that waits for the count sees the loss
                failedFiles.add(path);
                failed.incrementAndGet();
                throw new IOException(EIO);
            }
            List<long[]> covered = takeUnforced();
            try {
                file.force(metaData);
            } catch (IOException e) {
                lock.lock();
                try {
                    unforced.addAll(0, covered);
                } finally {
                    lock.unlock();
                }
                throw e;
            }
        }

        @Override
        public int write(ByteBuffer src) throws IOException {
            long at = file.position();
            int n = file.write(src);
            written(at, n);
            return n;
        }

        @Override
        public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
            long at = file.position();
            long n = file.write(srcs, offset, length);
            written(at, n);
            return n;
        }

        @Override
        public int write(ByteBuffer src, long position) throws IOException {
            int n = file.write(src, position);
            written(position, n);
            return n;
        }

        @Override
        public FileChannel truncate(long size) throws IOException {
            file.truncate(size);
            return this;
        }

        @Override
        public long transferFrom(ReadableByteChannel src, long position, long count) throws IOException {
            long n = file.transferFrom(src, position, count);
            written(position, n);
            return n;
        }
    }
}
