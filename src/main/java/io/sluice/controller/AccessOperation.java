package io.sluice.controller;

/**
 * What a delegation token is asked for (the controller API's {@code StreamInfo.AccessOperation}; same names and
 * order). Writers ask for {@link #READ_WRITE}, readers for {@link #READ}.
 */
public enum AccessOperation {
    /** Not specified: the controller decides. */
    UNSPECIFIED,
    /** No access. */
    NONE,
    /** Any access (tests). */
    ANY,
    /** Reads. */
    READ,
    /** Inserts, updates and deletes. */
    WRITE,
    /** Reads and writes. */
    READ_WRITE
}
