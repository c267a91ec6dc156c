package io.sluice.storage;

import java.nio.file.Path;

/**
 * Runs in a second JVM for {@link CrossProcessLockTest}: tries to lock resource (container, 7) of a data directory
 * and prints the outcome on one line of standard output.
 *
 * <p>Arguments: {@code <dataDir> try|hold}. {@code try} prints {@code LOCKED} (and unlocks) or {@code BUSY <message>}.
 * {@code hold} prints {@code HOLDING} and keeps the lock until standard input closes or the process is killed.
 */
public final class LockProbe {
    private LockProbe() {
    }

    /**
     * @param args the data directory and the mode
     */
    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        boolean hold = args[1].equals("hold");
        try (LocalStorage storage = LocalStorage.open(dir, Durability.FSYNC)) {
            try {
                storage.writeLog().lock(CrossProcessLockTest.BUCKET, CrossProcessLockTest.KEY);
            } catch (ResourceLockedException e) {
                System.out.println("BUSY " + e.getMessage());
                System.out.flush();
                return;
            }
            System.out.println(hold ? "HOLDING" : "LOCKED");
            System.out.flush();
            if (hold) {
                while (System.in.read() >= 0) {
                    // wait for the parent to close our input, or to kill us
                }
            }
            storage.writeLog().unlock(CrossProcessLockTest.BUCKET, CrossProcessLockTest.KEY);
        }
    }
}
