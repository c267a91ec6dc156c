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
     * Forces a directory's entries (a created, renamed or deleted file) to disk. Best effort: some platforms cannot
     * open a directory; there the failure is logged at DEBUG and ignored.
     */
    static void fsyncDirectory(Path dir) {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        } catch (IOException e) {
            LOG.debug("cannot fsync directory {}: {}", dir, e.toString());
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
