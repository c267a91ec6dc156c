package io.sluice.stream;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Pravega's naming rules for scopes, streams, reader groups and key-value tables (docs/controller.md §3).
 *
 * <p>Names users create consist of ASCII letters, digits, {@code '.'} and {@code '-'}; a scope name has at most
 * {@value #MAX_SCOPE_NAME_LENGTH} characters, other names at most {@value #MAX_USER_NAME_LENGTH} (the controller
 * adds prefixes such as {@code _RG} to derive internal stream names). Internal names start with {@code '_'} and may
 * hold more of them (e.g. {@code _system}, {@code _RGgroup}, {@code _MARKstream}, {@code _MARK_RGgroup}). Stateless
 * and thread-safe.
 */
public final class Names {
    /** The longest scope name. */
    public static final int MAX_SCOPE_NAME_LENGTH = 255;
    /** The longest user stream, reader group or key-value table name. */
    public static final int MAX_USER_NAME_LENGTH = 250;
    /** The longest internal stream name. */
    public static final int MAX_NAME_LENGTH = 255;

    private static final Pattern USER_NAME = Pattern.compile("[\\p{Alnum}.\\-]+");
    /**
     * User names, or internal ones: a leading {@code '_'} and a letter or digit, after which further {@code '_'} may
     * follow — Pravega's controller names the watermark stream of a reader group's state stream
     * {@code _MARK_RG<group>} (its own {@code validateStreamName} would refuse that name, but it creates and lists it).
     */
    private static final Pattern INTERNAL_NAME = Pattern.compile("_\\p{Alnum}[\\p{Alnum}._\\-]*|[\\p{Alnum}.\\-]+");

    private Names() {
    }

    /**
     * @param scope a scope name a user wants to create
     * @return {@code scope}
     * @throws IllegalArgumentException naming the rule {@code scope} breaks
     */
    public static String validateUserScope(String scope) {
        return check("scope", scope, USER_NAME, MAX_SCOPE_NAME_LENGTH);
    }

    /**
     * @param stream a stream name a user wants to create
     * @return {@code stream}
     * @throws IllegalArgumentException naming the rule {@code stream} breaks
     */
    public static String validateUserStream(String stream) {
        return check("stream", stream, USER_NAME, MAX_USER_NAME_LENGTH);
    }

    /**
     * @param group a reader group name
     * @return {@code group}
     * @throws IllegalArgumentException naming the rule {@code group} breaks
     */
    public static String validateReaderGroup(String group) {
        return check("reader group", group, USER_NAME, MAX_USER_NAME_LENGTH);
    }

    /**
     * @param table a key-value table name
     * @return {@code table}
     * @throws IllegalArgumentException naming the rule {@code table} breaks
     */
    public static String validateKeyValueTable(String table) {
        return check("key-value table", table, USER_NAME, MAX_USER_NAME_LENGTH);
    }

    /**
     * Checks a scope or stream name that may be internal (starting with {@code '_'}, then also holding {@code '_'}).
     *
     * @param what {@code "scope"} or {@code "stream"}, for the message
     * @param name the name
     * @return {@code name}
     * @throws IllegalArgumentException naming the rule {@code name} breaks
     */
    public static String validateName(String what, String name) {
        Objects.requireNonNull(what, "what");
        return check(what, name, INTERNAL_NAME, MAX_NAME_LENGTH);
    }

    private static String check(String what, String name, Pattern pattern, int maxLength) {
        Objects.requireNonNull(name, () -> what + " name");
        if (name.isEmpty()) {
            throw new IllegalArgumentException(what + " name must not be empty");
        }
        if (name.length() > maxLength) {
            throw new IllegalArgumentException(what + " name '" + abbreviate(name) + "' is " + name.length()
                    + " characters long; at most " + maxLength + " are allowed");
        }
        if (!pattern.matcher(name).matches()) {
            String allowed = pattern == USER_NAME
                    ? "only ASCII letters, digits, '.' and '-' are allowed"
                    : "only ASCII letters, digits, '.' and '-' are allowed (and '_' in internal names, which start "
                    + "with it)";
            throw new IllegalArgumentException(what + " name '" + abbreviate(name) + "' is invalid: " + allowed);
        }
        return name;
    }

    private static String abbreviate(String name) {
        return name.length() <= 60 ? name : name.substring(0, 57) + "...";
    }
}
