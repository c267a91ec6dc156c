package io.sluice.storage;

/**
 * Stored bytes failed a format or checksum check and cannot be trusted: a snapshot whose checksum does not match,
 * a file that is not ours. (A torn tail of a write log is not this: recovery truncates it and goes on.)
 */
public class CorruptedDataException extends StorageException {
    private static final long serialVersionUID = 1L;

    /**
     * @param message which file failed which check
     */
    public CorruptedDataException(String message) {
        super(message);
    }
}
