package io.sluice.server.controller;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;

/**
 * The users the embedded controller accepts with Basic authentication, read from a text file: one user per line,
 * {@code user:hash:acl}; blank lines and lines starting with {@code #} are ignored.
 * <ul>
 *   <li>{@code user}: any characters but {@code :};</li>
 *   <li>{@code hash}: {@code pbkdf2-sha256$ITERATIONS$SALT$HASH}, salt and hash in base64 (PBKDF2 with HMAC-SHA256,
 *       256-bit hash);</li>
 *   <li>{@code acl}: an {@link AccessControlList}, e.g. {@code *=READ_UPDATE}.</li>
 * </ul>
 * {@link #entry} makes a line: {@code PasswordFile.entry("admin", "secret".toCharArray(), "*=READ_UPDATE")}.
 *
 * <p>Immutable and thread-safe. Verifying a password costs one PBKDF2 run (tens of milliseconds at the default
 * iteration count); callers cache successful checks.
 */
public final class PasswordFile {
    /** Iterations {@link #entry(String, char[], String)} uses. */
    public static final int DEFAULT_ITERATIONS = 100_000;

    private static final String SCHEME = "pbkdf2-sha256";
    private static final int SALT_BYTES = 16;
    private static final int HASH_BITS = 256;

    private record User(int iterations, byte[] salt, byte[] hash, AccessControlList acl) {
    }

    private final Map<String, User> users;

    private PasswordFile(Map<String, User> users) {
        this.users = Map.copyOf(users);
    }

    /**
     * Reads a password file.
     *
     * @throws IOException if it cannot be read
     * @throws IllegalArgumentException naming the line that is malformed
     */
    public static PasswordFile load(Path path) throws IOException {
        return parse(Files.readAllLines(path, StandardCharsets.UTF_8));
    }

    /**
     * @param lines the file's lines
     * @throws IllegalArgumentException naming the line that is malformed or repeats a user
     */
    public static PasswordFile parse(List<String> lines) {
        Map<String, User> users = new HashMap<>();
        int number = 0;
        for (String raw : lines) {
            number++;
            String line = raw.strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            String[] parts = line.split(":", 3);
            if (parts.length != 3 || parts[0].isEmpty()) {
                throw new IllegalArgumentException("password file line " + number + " is not user:hash:acl");
            }
            String[] hash = parts[1].split("\\$");
            if (hash.length != 4 || !hash[0].equals(SCHEME)) {
                throw new IllegalArgumentException("password file line " + number + ": the hash is not "
                        + SCHEME + "$iterations$salt$hash");
            }
            User user;
            try {
                int iterations = Integer.parseInt(hash[1]);
                if (iterations < 1) {
                    throw new IllegalArgumentException("iterations must be positive");
                }
                user = new User(iterations, Base64.getDecoder().decode(hash[2]), Base64.getDecoder().decode(hash[3]),
                        AccessControlList.parse(parts[2]));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("password file line " + number + ": " + e.getMessage(), e);
            }
            if (users.put(parts[0], user) != null) {
                throw new IllegalArgumentException("password file line " + number + " repeats user " + parts[0]);
            }
        }
        return new PasswordFile(users);
    }

    /**
     * Makes a password file line with a fresh random salt and {@link #DEFAULT_ITERATIONS} iterations.
     *
     * @param acl an {@link AccessControlList}, e.g. {@code *=READ_UPDATE}
     * @throws IllegalArgumentException if the user name is empty or holds {@code :}, the password is empty, or the
     *         ACL is malformed
     */
    public static String entry(String user, char[] password, String acl) {
        return entry(user, password, acl, DEFAULT_ITERATIONS);
    }

    /**
     * Makes a password file line with a fresh random salt.
     *
     * @param iterations PBKDF2 iterations, at least 1 (lower is faster to check and easier to crack)
     * @throws IllegalArgumentException if the user name is empty or holds {@code :}, the password is empty, the ACL
     *         is malformed or the iteration count is below 1
     */
    public static String entry(String user, char[] password, String acl, int iterations) {
        Objects.requireNonNull(user, "user");
        Objects.requireNonNull(password, "password");
        if (user.isEmpty() || user.contains(":") || user.strip().startsWith("#")) {
            throw new IllegalArgumentException("user name must be non-empty, without ':' and not start with '#': '"
                    + user + "'");
        }
        if (iterations < 1) {
            throw new IllegalArgumentException("iterations must be at least 1, got " + iterations);
        }
        if (password.length == 0) {
            throw new IllegalArgumentException("password of user " + user + " must not be empty");
        }
        AccessControlList parsed = AccessControlList.parse(acl);
        byte[] salt = new byte[SALT_BYTES];
        new SecureRandom().nextBytes(salt);
        Base64.Encoder b64 = Base64.getEncoder();
        return user + ":" + SCHEME + "$" + iterations + "$" + b64.encodeToString(salt) + "$"
                + b64.encodeToString(pbkdf2(password, salt, iterations)) + ":" + parsed;
    }

    /**
     * Checks a user's password.
     *
     * @return the user's access control list, or empty if the user is unknown or the password wrong
     */
    public Optional<AccessControlList> authenticate(String user, char[] password) {
        User u = users.get(user);
        if (u == null || password.length == 0) {
            return Optional.empty();
        }
        byte[] hash = pbkdf2(password, u.salt(), u.iterations());
        return MessageDigest.isEqual(hash, u.hash()) ? Optional.of(u.acl()) : Optional.empty();
    }

    /** @return how many users the file defines */
    public int size() {
        return users.size();
    }

    private static byte[] pbkdf2(char[] password, byte[] salt, int iterations) {
        PBEKeySpec spec = new PBEKeySpec(password, salt, iterations, HASH_BITS);
        try {
            return SecretKeyFactory.getInstance("PBKDF2WithHmacSHA256").generateSecret(spec).getEncoded();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("PBKDF2WithHmacSHA256 is not available", e);
        } finally {
            spec.clearPassword();
        }
    }
}
