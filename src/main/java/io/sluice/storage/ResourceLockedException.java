package io.sluice.storage;

/**
 * A resource's exclusive lock is held by someone else: another process, or another holder in this process.
 * Retrying makes sense once the holder lets go or dies.
 */
public class ResourceLockedException extends StorageException {
    private static final long serialVersionUID = 1L;

    /**
     * @param message who holds the lock of which resource, as far as known
     */
    public ResourceLockedException(String message) {
        super(message);
    }

    /**
     * @param message who holds the lock of which resource, as far as known
     * @param cause the underlying failure
     */
    public ResourceLockedException(String message, Throwable cause) {
        super(message, cause);
    }
}
