package io.sluice.storage;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

import io.sluice.errors.StreamingInterruptedException;

/** Waiting for storage futures from blocking methods. */
final class Futures {
    private Futures() {
    }

    /**
     * Blocks until {@code future} completes.
     *
     * @param what the operation, for the interrupt message
     * @throws StorageException (or another unchecked exception) the future failed with
     * @throws StreamingInterruptedException if interrupted; the flag is set again
     */
    static <T> T await(CompletableFuture<T> future, String what) {
        try {
            return future.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StreamingInterruptedException("interrupted while waiting for " + what
                    + " (it may still complete)", e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException re) {
                throw re;
            }
            if (cause instanceof Error err) {
                throw err;
            }
            throw new StorageException(what + " failed: " + cause, cause);
        }
    }
}
