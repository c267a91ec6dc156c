package io.sluice.server.controller;

import java.util.Objects;

/**
 * Something the controller authorises a call against, in the two spellings an {@link AccessControlList} matches:
 * Pravega's resource name ({@link #prn()}, e.g. {@code prn::/scope:s/stream:x}) and Sluice's short path
 * ({@link #path()}, e.g. {@code s/x}).
 *
 * <p>Pravega 0.13's names: the cluster (creating and listing scopes) is {@code prn::/}, a scope
 * {@code prn::/scope:S}, and the objects in it {@code prn::/scope:S/stream:X}, {@code prn::/scope:S/reader-group:G}
 * and {@code prn::/scope:S/key-value-table:T}. Short paths are {@code /} for the cluster, {@code S} for a scope and
 * {@code S/NAME} for any object in it (streams, reader groups and tables share that space, as in Pravega's
 * pre-0.9 names). Immutable.
 *
 * @param kind what it is
 * @param scope the scope ("" for the cluster)
 * @param name the stream, reader group or table ("" for the cluster and scopes)
 */
record AuthResource(Kind kind, String scope, String name) {
    /** The kinds of resource, with Pravega's tag for the object part of the name. */
    enum Kind {
        /** Everything: creating, listing and deleting scopes. */
        CLUSTER(""),
        /** One scope, and the listing and creation of what is in it. */
        SCOPE(""),
        /** A stream. */
        STREAM("stream"),
        /** A reader group. */
        READER_GROUP("reader-group"),
        /** A key-value table. */
        KEY_VALUE_TABLE("key-value-table");

        private final String tag;

        Kind(String tag) {
            this.tag = tag;
        }
    }

    /** Pravega's domain prefix of every resource name. */
    static final String PRN_PREFIX = "prn::";
    /** The short path of the cluster. */
    static final String CLUSTER_PATH = "/";

    private static final AuthResource CLUSTER = new AuthResource(Kind.CLUSTER, "", "");

    /** Checks the fields. */
    AuthResource {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(scope, "scope");
        Objects.requireNonNull(name, "name");
    }

    /** @return the cluster: creating, listing and deleting scopes */
    static AuthResource cluster() {
        return CLUSTER;
    }

    /** @return a scope (what is in it is listed and created against this too) */
    static AuthResource scope(String scope) {
        return new AuthResource(Kind.SCOPE, scope, "");
    }

    /** @return a stream, taken by its name whatever its prefix */
    static AuthResource stream(String scope, String stream) {
        return new AuthResource(Kind.STREAM, scope, stream);
    }

    /** @return a reader group */
    static AuthResource readerGroup(String scope, String group) {
        return new AuthResource(Kind.READER_GROUP, scope, group);
    }

    /** @return a key-value table */
    static AuthResource keyValueTable(String scope, String table) {
        return new AuthResource(Kind.KEY_VALUE_TABLE, scope, table);
    }

    /**
     * The resource a stream's calls are authorised against, internal streams mapped as Pravega does: a reader
     * group's state stream {@code _RG<group>} is the reader group, a watermark stream {@code _MARK<stream>} is that
     * stream, anything else the stream itself.
     */
    static AuthResource ofStream(String scope, String stream) {
        if (stream.startsWith(Names.RG_STREAM_PREFIX)) {
            return readerGroup(scope, stream.substring(Names.RG_STREAM_PREFIX.length()));
        }
        if (stream.startsWith(Names.MARK_STREAM_PREFIX)) {
            return stream(scope, stream.substring(Names.MARK_STREAM_PREFIX.length()));
        }
        return stream(scope, stream);
    }

    /** @return Pravega's name for it: {@code prn::/}, {@code prn::/scope:S} or {@code prn::/scope:S/TAG:NAME} */
    String prn() {
        return switch (kind) {
            case CLUSTER -> PRN_PREFIX + "/";
            case SCOPE -> PRN_PREFIX + "/scope:" + scope;
            default -> PRN_PREFIX + "/scope:" + scope + "/" + kind.tag + ":" + name;
        };
    }

    /** @return the short path: {@code /}, {@code S} or {@code S/NAME} */
    String path() {
        return switch (kind) {
            case CLUSTER -> CLUSTER_PATH;
            case SCOPE -> scope;
            default -> scope + "/" + name;
        };
    }

    @Override
    public String toString() {
        return prn();
    }
}
