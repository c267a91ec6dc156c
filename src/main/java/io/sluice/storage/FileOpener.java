package io.sluice.storage;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.OpenOption;
import java.nio.file.Path;

/**
 * Opens the files {@link LocalStorage} keeps data in: write logs, chunk files and snapshots, and the directories it
 * forces after creating or renaming a file in them (lock files are opened directly). {@link #DEFAULT} is
 * {@link FileChannel#open(Path, OpenOption...)}; tests pass one whose channels fail the way a full disk or a failing
 * {@code fsync} does, to check that the storage and the server recover.
 */
@FunctionalInterface
public interface FileOpener {
    /** Opens files with {@link FileChannel#open(Path, OpenOption...)}. */
    FileOpener DEFAULT = FileChannel::open;

    /**
     * Opens or creates a file.
     *
     * @throws IOException as {@link FileChannel#open(Path, OpenOption...)} does
     */
    FileChannel open(Path file, OpenOption... options) throws IOException;
}
