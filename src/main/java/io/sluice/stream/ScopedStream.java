package io.sluice.stream;

import java.util.Objects;

/**
 * A stream, named by its scope and its name within the scope. Immutable value; internal streams (e.g.
 * {@code _RGgroup}) are allowed, so no user-name rule is applied beyond Pravega's general one
 * ({@link Names#validateName(String, String)}).
 *
 * @param scope the scope
 * @param name the stream's name within the scope
 */
public record ScopedStream(String scope, String name) implements Comparable<ScopedStream> {

    /**
     * @throws IllegalArgumentException if the scope or the name is not a valid Pravega name
     */
    public ScopedStream {
        Names.validateName("scope", scope);
        Names.validateName("stream", name);
    }

    /**
     * @param scope the scope
     * @param name the stream's name
     * @return the stream
     */
    public static ScopedStream of(String scope, String name) {
        return new ScopedStream(scope, name);
    }

    /**
     * Parses {@code scope/stream}.
     *
     * @param scopedName the scoped name
     * @return the stream
     * @throws IllegalArgumentException if {@code scopedName} is not {@code scope/stream} with valid names
     */
    public static ScopedStream parse(String scopedName) {
        Objects.requireNonNull(scopedName, "scopedName");
        int slash = scopedName.indexOf('/');
        if (slash < 0 || scopedName.indexOf('/', slash + 1) >= 0) {
            throw new IllegalArgumentException("'" + scopedName
                    + "' is not a scoped stream name: expected scope/stream");
        }
        return new ScopedStream(scopedName.substring(0, slash), scopedName.substring(slash + 1));
    }

    /** @return {@code scope/name} */
    public String scopedName() {
        return scope + "/" + name;
    }

    @Override
    public int compareTo(ScopedStream o) {
        int c = scope.compareTo(o.scope);
        return c != 0 ? c : name.compareTo(o.name);
    }

    /** @return {@code scope/name} */
    @Override
    public String toString() {
        return scopedName();
    }
}
