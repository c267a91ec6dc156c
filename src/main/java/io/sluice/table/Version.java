package io.sluice.table;

/**
 * The version of a key-value table entry, as a write returned it or a read found it: the partition (table segment)
 * it belongs to and the key's version in that segment. Pass it back in a conditional {@link Put} or {@link Remove}.
 * Its text form, {@code segmentId:version}, is Pravega's, so a version from Pravega's own client can be parsed with
 * {@link #fromString(String)} and used here (and the other way round).
 *
 * @param segmentId the id of the table segment that holds the key
 * @param segmentVersion the key's version within that segment (not negative)
 */
public record Version(long segmentId, long segmentVersion) {

    /**
     * @throws IllegalArgumentException if {@code segmentVersion} is negative
     */
    public Version {
        if (segmentVersion < 0) {
            throw new IllegalArgumentException("segmentVersion must not be negative: " + segmentVersion);
        }
    }

    /**
     * @param text {@code segmentId:version}, as {@link #toString()} writes it
     * @return the version
     * @throws IllegalArgumentException if {@code text} is not of that form
     */
    public static Version fromString(String text) {
        int colon = text == null ? -1 : text.indexOf(':');
        if (colon <= 0 || colon == text.length() - 1) {
            throw new IllegalArgumentException("a version is \"segmentId:version\", not: " + text);
        }
        try {
            return new Version(Long.parseLong(text.substring(0, colon)), Long.parseLong(text.substring(colon + 1)));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("a version is \"segmentId:version\" with two numbers, not: " + text, e);
        }
    }

    /** @return {@code segmentId:version} */
    @Override
    public String toString() {
        return segmentId + ":" + segmentVersion;
    }
}
