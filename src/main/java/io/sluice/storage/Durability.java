package io.sluice.storage;

/**
 * When an append (a write-log message or a chunk write) counts as done.
 */
public enum Durability {
    /**
     * The data is on stable storage ({@code FileChannel.force}) before the append completes: it survives a
     * process crash, a kernel crash and a power loss. The default.
     */
    FSYNC,
    /**
     * The data has been handed to the operating system ({@code write}) before the append completes, without
     * waiting for the disk: it survives a crash of this process (SIGKILL included) but the latest appends may be
     * lost if the machine itself crashes or loses power. Faster; for development and tests. Snapshots are always
     * forced to disk whatever this says, because taking one deletes the write logs it covers.
     */
    OS_BUFFERED
}
