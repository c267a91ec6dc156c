package io.sluice.storage;

/**
 * The stored state of a resource changed between loading it and locking it (another holder took a snapshot
 * meanwhile), so what was loaded is out of date. Start over: load the latest snapshot and the write log again.
 */
public class StaleStateException extends StorageException {
    private static final long serialVersionUID = 1L;

    /**
     * @param message what changed, naming the resource and versions
     */
    public StaleStateException(String message) {
        super(message);
    }
}
