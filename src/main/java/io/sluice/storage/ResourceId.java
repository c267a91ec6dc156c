package io.sluice.storage;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * A validated (bucket, key) pair and its place on disk.
 *
 * <p>Both names are relative: {@code /}-separated, non-empty parts, none of them {@code .} or {@code ..}, no
 * backslash, no control character, no drive prefix, at most {@value #MAX_NAME_CHARS} characters. On disk each name
 * becomes ONE directory name: characters outside {@code [A-Za-z0-9._-]} (the {@code /} included) are written as
 * {@code %XX} of their UTF-8 bytes. The mapping is injective, so no two resources share a directory and no name
 * reaches outside the data directory.
 *
 * @param bucket the bucket name
 * @param key the key name
 */
record ResourceId(String bucket, String key) {
    /** Longest accepted bucket or key, in characters. */
    static final int MAX_NAME_CHARS = 200;
    private static final int MAX_FILE_NAME_BYTES = 255;
    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    /**
     * @throws IllegalArgumentException naming what is wrong with a name
     */
    ResourceId {
        validate("bucket", bucket);
        validate("key", key);
    }

    /** @return the resource's directory relative to the data directory: {@code <bucket>/<key>}, both encoded */
    Path relativeDirectory() {
        return Path.of(encode(bucket), encode(key));
    }

    @Override
    public String toString() {
        return bucket + "|" + key;
    }

    static void validate(String what, String name) {
        if (null == name || name.isEmpty()) {
            throw new IllegalArgumentException(what + " must not be empty");
        }
        if (name.length() > MAX_NAME_CHARS) {
            throw new IllegalArgumentException(what + " is longer than " + MAX_NAME_CHARS + " characters: '"
                    + name.substring(0, 40) + "...'");
        }
        if (name.charAt(0) == '/') {
            throw new IllegalArgumentException(what + " must be a relative name, not an absolute path: '" + name + "'");
        }
        if (name.length() >= 2 && name.charAt(1) == ':' && Character.isLetter(name.charAt(0))) {
            throw new IllegalArgumentException(what + " must be a relative name, not a drive path: '" + name + "'");
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c == '\\') {
                throw new IllegalArgumentException(what + " must not contain a backslash: '" + name + "'");
            }
            if (c < 0x20 || c == 0x7f) {
                throw new IllegalArgumentException(what + " must not contain control characters: '" + name + "'");
            }
        }
        for (String part : name.split("/", -1)) {
            if (part.isEmpty()) {
                throw new IllegalArgumentException(what + " must not have empty parts ('//' or a trailing '/'): '"
                        + name + "'");
            }
            if (part.equals(".") || part.equals("..")) {
                throw new IllegalArgumentException(what + " must not contain a '" + part + "' part: '" + name + "'");
            }
        }
        if (encode(name).length() > MAX_FILE_NAME_BYTES) {
            throw new IllegalArgumentException(what + " is too long once encoded as a file name: '" + name + "'");
        }
    }

    static String encode(String name) {
        StringBuilder out = new StringBuilder(name.length() + 8);
        for (byte b : name.getBytes(StandardCharsets.UTF_8)) {
            int c = b & 0xff;
            boolean plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || c == '.' || c == '_' || c == '-';
            if (plain) {
                out.append((char) c);
            } else {
                out.append('%').append(HEX[c >>> 4]).append(HEX[c & 0xf]);
            }
        }
        return out.toString();
    }
}
