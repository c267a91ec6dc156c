package io.sluice.server.controller;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

import io.sluice.server.auth.AccessLevel;


/**
 * What one user may do: entries {@code pattern=LEVEL} (or Pravega's {@code pattern,LEVEL}) separated by {@code ;}.
 * Levels are {@code NONE}, {@code READ} and {@code READ_UPDATE}. A pattern is written in one of two spellings (see
 * {@link AuthResource} for the resources):
 * <ul>
 *   <li>Pravega 0.13's resource names: {@code prn::*} (everything), {@code prn::/} (the cluster: creating, listing
 *       and deleting scopes), {@code prn::/*} (the cluster and everything below it), {@code prn::/scope:S},
 *       {@code prn::/scope:S/*} (what is in S, not S itself), {@code prn::/scope:S/stream:X},
 *       {@code prn::/scope:S/reader-group:G} and {@code prn::/scope:S/key-value-table:T}. A {@code *} (or
 *       {@code .*}) in a name matches any characters: <code>prn::/scope:&#42;/stream:orders</code> is the stream
 *       orders in every scope.</li>
 *   <li>The short spelling, which is Pravega's names before 0.9: {@code *} matches every resource, the cluster
 *       included; {@code /} the cluster; {@code /*} every scope (not what is in them); {@code scope/*} the scope
 *       and everything in it; {@code scope} and {@code scope/name} exactly that scope, or that stream, reader
 *       group or key-value table (they share one name space here). Pravega 0.13 itself ignores these.</li>
 * </ul>
 * Unlike Pravega, which takes the first matching entry, a resource gets the highest level of all the entries that
 * match it ({@code NONE} if none does), so the order of entries does not matter. Examples:
 * {@code *=READ;orders/*=READ_UPDATE}; {@code prn::/,READ_UPDATE} (may create and list scopes, nothing else);
 * {@code prn::/scope:orders,READ;prn::/scope:orders/*,READ_UPDATE}.
 *
 * <p>Immutable and thread-safe.
 */
public final class AccessControlList {
    /** The shapes a Pravega resource pattern may take; a name part may hold {@code *}. */
    private static final Pattern PRN_SHAPE = Pattern.compile(
            "prn::(\\*|/\\*?|/scope:[^/:]+(/\\*|/(stream|reader-group|key-value-table):[^/:]+)?)");

    /** The short pattern for every scope (Pravega's pre-0.9 name). */
    private static final String ALL_SCOPES = "/*";

    private final List<Entry> entries;
    private final String text;

    private sealed interface Entry {
        AccessLevel level();

        boolean matches(AuthResource resource);
    }

    /** A pattern in Sluice's short spelling, matched against {@link AuthResource#path()}. */
    private record ShortEntry(String pattern, AccessLevel level) implements Entry {
        @Override
        public boolean matches(AuthResource resource) {
            if (pattern.equals("*")) {
                return true;
            }
            String path = resource.path();
            if (pattern.equals(ALL_SCOPES)) {
                return resource.kind() == AuthResource.Kind.SCOPE;
            }
            if (pattern.endsWith("/*")) {
                String scope = pattern.substring(0, pattern.length() - 2);
                return resource.kind() != AuthResource.Kind.CLUSTER
                        && (path.equals(scope) || path.startsWith(scope + "/"));
            }
            return pattern.equals(path);
        }
    }

    /** A Pravega resource pattern, matched against {@link AuthResource#prn()} with {@code *} as a wildcard. */
    private record PrnEntry(Pattern regex, AccessLevel level) implements Entry {
        static PrnEntry of(String pattern, AccessLevel level) {
            // Pravega turns each '*' (that is not already ".*") into the regular expression ".*"; the rest is taken
            // literally here, so a '.' in a name matches only '.'
            String[] literals = pattern.replace(".*", "*").split("\\*", -1);
            StringBuilder regex = new StringBuilder();
            for (int i = 0; i < literals.length; i++) {
                if (i > 0) {
                    regex.append(".*");
                }
                if (!literals[i].isEmpty()) {
                    regex.append(Pattern.quote(literals[i]));
                }
            }
            return new PrnEntry(Pattern.compile(regex.toString()), level);
        }

        @Override
        public boolean matches(AuthResource resource) {
            return regex.matcher(resource.prn()).matches();
        }
    }

    private AccessControlList(List<Entry> entries, String text) {
        this.entries = List.copyOf(entries);
        this.text = text;
    }

    /**
     * @param text entries such as {@code *=READ;orders/*=READ_UPDATE} or {@code prn::/,READ_UPDATE}; empty grants
     *     nothing
     * @throws IllegalArgumentException naming the entry that is malformed
     */
    public static AccessControlList parse(String text) {
        Objects.requireNonNull(text, "text");
        List<Entry> entries = new ArrayList<>();
        for (String part : text.split(";")) {
            String entry = part.trim();
            if (entry.isEmpty()) {
                continue;
            }
            int separator = entry.lastIndexOf('=');
            if (separator < 0) {
                separator = entry.lastIndexOf(',');
            }
            if (separator <= 0 || separator == entry.length() - 1) {
                throw new IllegalArgumentException("access control entry '" + entry
                        + "' is not pattern=LEVEL (or Pravega's prn::resource,LEVEL)");
            }
            String pattern = entry.substring(0, separator).trim();
            AccessLevel level;
            try {
                level = AccessLevel.valueOf(entry.substring(separator + 1).trim());
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("access control entry '" + entry
                        + "' needs a level of NONE, READ or READ_UPDATE", e);
            }
            entries.add(entry(pattern, level));
        }
        return new AccessControlList(entries, text.trim());
    }

    private static Entry entry(String pattern, AccessLevel level) {
        if (pattern.startsWith(AuthResource.PRN_PREFIX)) {
            if (!PRN_SHAPE.matcher(pattern).matches()) {
                throw new IllegalArgumentException("access control pattern '" + pattern + "' is not one of prn::*, "
                        + "prn::/, prn::/*, prn::/scope:S, prn::/scope:S/*, prn::/scope:S/stream:X, "
                        + "prn::/scope:S/reader-group:G or prn::/scope:S/key-value-table:T");
            }
            return PrnEntry.of(pattern, level);
        }
        if (pattern.contains(":") || pattern.contains(",")) {
            throw new IllegalArgumentException("access control pattern '" + pattern
                    + "' must not contain ':' or ',' unless it is a Pravega name starting with prn::");
        }
        if (pattern.startsWith("/") && !pattern.equals(AuthResource.CLUSTER_PATH) && !pattern.equals(ALL_SCOPES)) {
            throw new IllegalArgumentException("access control pattern '" + pattern
                    + "' must be / (the cluster), /* (every scope) or not start with '/'");
        }
        return new ShortEntry(pattern, level);
    }

    /** @return the highest level any entry grants on the resource */
    AccessLevel levelFor(AuthResource resource) {
        AccessLevel best = AccessLevel.NONE;
        for (Entry e : entries) {
            if (e.matches(resource) && e.level().implies(best)) {
                best = e.level();
            }
        }
        return best;
    }

    /** @return whether the resource may be used at the required level */
    boolean permits(AuthResource resource, AccessLevel required) {
        return levelFor(resource).implies(required);
    }

    /** @return the list in the form {@link #parse} reads */
    @Override
    public String toString() {
        return text;
    }
}
