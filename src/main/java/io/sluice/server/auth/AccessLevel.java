package io.sluice.server.auth;

/**
 * What a principal or a delegation token may do with a resource, weakest first: {@link #NONE}, {@link #READ},
 * {@link #READ_UPDATE}. Pravega's {@code AuthHandler.Permissions} without its legacy values.
 */
public enum AccessLevel {
    /** Nothing. */
    NONE,
    /** Read data and metadata. */
    READ,
    /** Read, write, create, change and delete. */
    READ_UPDATE;

    /**
     * @param required the level an operation needs
     * @return whether this level is at least {@code required}
     */
    public boolean implies(AccessLevel required) {
        return compareTo(required) >= 0;
    }
}
