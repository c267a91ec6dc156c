package io.sluice.storage;

import io.sluice.errors.SluiceException;

/**
 * Durable storage failed: an I/O error, a missing file, or data that cannot be trusted. The root of the storage
 * package's exceptions; the server maps it to an error reply or a container failure.
 */
public class StorageException extends SluiceException {
    private static final long serialVersionUID = 1L;

    /**
     * @param message what went wrong, naming the resource or file involved
     */
    public StorageException(String message) {
        super(message);
    }

    /**
     * @param message what went wrong, naming the resource or file involved
     * @param cause the underlying failure
     */
    public StorageException(String message, Throwable cause) {
        super(message, cause);
    }
}
