package io.sluice.storage;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Small file helpers shared by the file-system implementations. */
final class FileUtil {
    private static final Logger LOG = LoggerFactory.getLogger(FileUtil.class);

    private FileUtil() {
    }

    /**
     * Forces a directory's entries (a created or renamed file) to disk, so that the file is found after a crash. A
     * platform that cannot open a directory (the open fails) is skipped, logged at DEBUG; but a directory that opens
     * and then fails to force is an error: the new entry may be lost, and what it holds must not be acknowledged.
     *
     * @throws IOException if forcing the opened directory failed
     */
    static void fsyncDirectory(FileOpener files, Path dir) throws IOException {
        FileChannel ch;
        try {
            ch = files.open(dir, StandardOpenOption.READ);
        } catch (IOException e) {
            LOG.debug("cannot open directory {} to fsync it: {}", dir, e.toString());
            return;
        }
        try (ch) {
            ch.force(true);
        }
    }

    /**
     * Forces a directory's entries after a file was deleted. Best effort: a deletion that a crash undoes leaves a
     * file that nothing needs (an obsolete log or snapshot, the chunks of a deleted segment), so failures are logged
     * and ignored.
     */
    static void fsyncDirectoryQuietly(FileOpener files, Path dir) {
        try {
            fsyncDirectory(files, dir);
        } catch (IOException e) {
            LOG.warn("cannot fsync directory {} after deleting from it: {}", dir, e.toString());
        }
    }

    /** Writes all of {@code src} at {@code position}. */
    static void writeFully(FileChannel ch, ByteBuffer src, long position) throws IOException {
        long at = position;
        while (src.hasRemaining()) {
            at += ch.write(src, at);
        }
    }

    /** Reads into all of {@code dst} from {@code position}; false if the file ends first. */
    static boolean readFully(FileChannel ch, ByteBuffer dst, long position) throws IOException {
        long at = position;
        while (dst.hasRemaining()) {
            int n = ch.read(dst, at);
            if (n < 0) {
                return false;
            }
            at += n;
        }
        return true;
    }

    /** Closes without throwing (cleanup after another failure). */
    static void closeQuietly(AutoCloseable c) {
        if (null == c) {
            return;
        }
        try {
            c.close();
        } catch (Exception e) {
            LOG.debug("ignoring failure to close {}: {}", c, e.toString());
        }
    }
}
