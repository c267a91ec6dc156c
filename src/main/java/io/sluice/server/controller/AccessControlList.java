package io.sluice.server.controller;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import io.sluice.server.AccessLevel;

/**
 * What one user may do: a list of {@code pattern=LEVEL} entries, separated by {@code ;}. Resources are {@code ""}
 * (the cluster: creating and listing scopes), {@code scope}, and {@code scope/name} (a stream, reader group or
 * key-value table). Patterns:
 * <ul>
 *   <li>{@code *} matches every resource;</li>
 *   <li>{@code scope/*} matches the scope and everything in it;</li>
 *   <li>{@code scope} and {@code scope/name} match exactly that resource.</li>
 * </ul>
 * Levels are {@code NONE}, {@code READ} and {@code READ_UPDATE}; a resource gets the highest level of the entries
 * that match it, {@code NONE} if none does. Example: {@code *=READ;orders/*=READ_UPDATE}.
 *
 * <p>Immutable and thread-safe.
 */
public final class AccessControlList {
    private final List<Entry> entries;
    private final String text;

    private record Entry(String pattern, AccessLevel level) {
        boolean matches(String resource) {
            if (pattern.equals("*")) {
                return true;
            }
            if (pattern.endsWith("/*")) {
                String scope = pattern.substring(0, pattern.length() - 2);
                return resource.equals(scope) || resource.startsWith(scope + "/");
            }
            return pattern.equals(resource);
        }
    }

    private AccessControlList(List<Entry> entries, String text) {
        this.entries = List.copyOf(entries);
        this.text = text;
    }

    /**
     * @param text entries such as {@code *=READ;orders/*=READ_UPDATE}; empty grants nothing
     * @throws IllegalArgumentException naming the entry that is not {@code pattern=LEVEL}
     */
    public static AccessControlList parse(String text) {
        Objects.requireNonNull(text, "text");
        List<Entry> entries = new ArrayList<>();
        for (String part : text.split(";")) {
            String entry = part.trim();
            if (entry.isEmpty()) {
                continue;
            }
            int eq = entry.lastIndexOf('=');
            if (eq <= 0 || eq == entry.length() - 1) {
                throw new IllegalArgumentException("access control entry '" + entry + "' is not pattern=LEVEL");
            }
            String pattern = entry.substring(0, eq).trim();
            if (pattern.contains(":")) {
                throw new IllegalArgumentException("access control pattern '" + pattern + "' must not contain ':'");
            }
            AccessLevel level;
            try {
                level = AccessLevel.valueOf(entry.substring(eq + 1).trim());
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("access control entry '" + entry
                        + "' needs a level of NONE, READ or READ_UPDATE", e);
            }
            entries.add(new Entry(pattern, level));
        }
        return new AccessControlList(entries, text.trim());
    }

    /** @return the highest level any entry grants on the resource */
    public AccessLevel levelFor(String resource) {
        AccessLevel best = AccessLevel.NONE;
        for (Entry e : entries) {
            if (e.matches(resource) && e.level().implies(best)) {
                best = e.level();
            }
        }
        return best;
    }

    /** @return whether the resource may be used at the required level */
    public boolean permits(String resource, AccessLevel required) {
        return levelFor(resource).implies(required);
    }

    /** @return the list in the form {@link #parse} reads */
    @Override
    public String toString() {
        return text;
    }
}
