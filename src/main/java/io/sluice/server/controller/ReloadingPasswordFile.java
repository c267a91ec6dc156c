package io.sluice.server.controller;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Objects;
import java.util.function.Supplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A password file that is read again when it changes, so that removing a user or their rights takes effect while the
 * server runs: {@link #get()} looks at the file's modification time, size and identity (an editor's or a script's
 * rename over it gives a new one) and parses it again if any differs from the last read. The embedded controller
 * asks on every call it authenticates, so the next call sees the change (a stat per call; reading and parsing only
 * after a change).
 *
 * <p>A file that has become unreadable or malformed (half written, say) keeps the users of the last good read, with a
 * WARN line naming the problem, until it is fixed. A file that now defines no user is taken: nobody can call.
 *
 * <p>Delegation tokens already issued stay valid until they expire (they are signed, not looked up): a revoked
 * user's clients lose access within one token lifetime, when their next token request is refused.
 *
 * <p>Thread-safe without locks: concurrent callers that notice the same change may both parse it, harmlessly.
 */
public final class ReloadingPasswordFile implements Supplier<PasswordFile> {
    private static final Logger LOG = LoggerFactory.getLogger(ReloadingPasswordFile.class);

    /** What was read, and the file's attributes when it was read. */
    private record Read(PasswordFile users, Stamp stamp) {
    }

    /** The attributes that change when the file is written or replaced. */
    private record Stamp(long modifiedNanos, long size, Object fileKey) {
        static Stamp of(Path file) throws IOException {
            BasicFileAttributes a = Files.readAttributes(file, BasicFileAttributes.class);
            return new Stamp(a.lastModifiedTime().to(java.util.concurrent.TimeUnit.NANOSECONDS), a.size(),
                    a.fileKey());
        }
    }

    private final Path file;
    private volatile Read current;
    /** The stamp of the last read that failed, so that a broken file is reported once, not on every call. */
    private volatile Stamp refused;

    /**
     * Reads the file.
     *
     * @param file the password file
     * @throws IOException if it cannot be read
     * @throws IllegalArgumentException naming a malformed line
     */
    public ReloadingPasswordFile(Path file) throws IOException {
        this.file = Objects.requireNonNull(file, "file");
        Stamp stamp = Stamp.of(file);
        this.current = new Read(PasswordFile.load(file), stamp);
    }

    /** @return the file */
    public Path file() {
        return file;
    }

    /** @return the users as the file defines them now (as of its last good read) */
    @Override
    public PasswordFile get() {
        Read read = current;
        Stamp now;
        try {
            now = Stamp.of(file);
        } catch (IOException e) {
            return unchanged(read, null, "cannot be read: " + e);
        }
        if (now.equals(read.stamp())) {
            return read.users();
        }
        PasswordFile users;
        try {
            users = PasswordFile.load(file);
        } catch (IOException | IllegalArgumentException e) {
            return unchanged(read, now, e instanceof IOException ? "cannot be read: " + e : e.getMessage());
        }
        Read fresh = new Read(users, now);
        current = fresh;
        refused = null;
        LOG.info("password file {} changed: read it again, {} user(s)", file, users.size());
        return users;
    }

    private PasswordFile unchanged(Read read, Stamp stamp, String why) {
        if (stamp == null || !stamp.equals(refused)) {
            refused = stamp;
            LOG.warn("password file {} {}; keeping the {} user(s) of its last good read", file, why,
                    read.users().size());
        }
        return read.users();
    }
}
