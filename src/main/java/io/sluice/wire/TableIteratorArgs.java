package io.sluice.wire;

import java.nio.ByteBuffer;

/**
 * Where a table iteration ({@link ReadTableKeys}, {@link ReadTableEntries}) resumes and what range it covers.
 * Not a command: it is nested in those requests.
 *
 * <pre>
 * continuationToken BYTES (opt, empty) | prefixFilter BYTES (opt, empty) | fromKey BYTES (opt, empty)
 *                   | toKey BYTES (opt, empty)
 * </pre>
 * Each BYTES is an i32 length and that many bytes; a blob missing at the end of the payload reads as empty (older
 * peers send only the continuation token). {@code prefixFilter} is deprecated since Pravega 0.10, whose writer
 * always sends it empty; Sluice writes whatever the record holds, so leave it empty when talking to Pravega. None of
 * the buffers is copied.
 *
 * @param continuationToken the server's opaque resume point from the previous reply (empty to start)
 * @param prefixFilter deprecated, ignored by servers (keep empty)
 * @param fromKey lower bound of the iteration (empty for none)
 * @param toKey upper bound of the iteration (empty for none)
 */
public record TableIteratorArgs(ByteBuffer continuationToken, ByteBuffer prefixFilter, ByteBuffer fromKey,
                                ByteBuffer toKey) {

    /** No continuation token, no bounds: iterate from the start. */
    public static final TableIteratorArgs EMPTY = new TableIteratorArgs(Bytes.EMPTY, Bytes.EMPTY, Bytes.EMPTY, Bytes.EMPTY);

    public TableIteratorArgs {
        continuationToken = Bytes.view(continuationToken, "continuationToken");
        prefixFilter = Bytes.view(prefixFilter, "prefixFilter");
        fromKey = Bytes.view(fromKey, "fromKey");
        toKey = Bytes.view(toKey, "toKey");
    }

    @Override
    public ByteBuffer continuationToken() {
        return continuationToken.duplicate();
    }

    @Override
    public ByteBuffer prefixFilter() {
        return prefixFilter.duplicate();
    }

    @Override
    public ByteBuffer fromKey() {
        return fromKey.duplicate();
    }

    @Override
    public ByteBuffer toKey() {
        return toKey.duplicate();
    }

    /**
     * Writes the four blobs.
     *
     * @param out where to write
     */
    public void writeFields(WireOutput out) {
        out.writeBlob(continuationToken);
        out.writeBlob(prefixFilter);
        out.writeBlob(fromKey);
        out.writeBlob(toKey);
    }

    static TableIteratorArgs readFrom(WireInput in) {
        ByteBuffer continuationToken = readOptionalBlob(in, "args.continuationToken");
        ByteBuffer prefixFilter = readOptionalBlob(in, "args.prefixFilter");
        ByteBuffer fromKey = readOptionalBlob(in, "args.fromKey");
        ByteBuffer toKey = readOptionalBlob(in, "args.toKey");
        return new TableIteratorArgs(continuationToken, prefixFilter, fromKey, toKey);
    }

    private static ByteBuffer readOptionalBlob(WireInput in, String field) {
        return in.has(Integer.BYTES) ? in.readBlob(field) : Bytes.EMPTY;
    }

    @Override
    public String toString() {
        return "TableIteratorArgs[continuationToken=" + Bytes.describe(continuationToken) + ", prefixFilter="
                + Bytes.describe(prefixFilter) + ", fromKey=" + Bytes.describe(fromKey) + ", toKey="
                + Bytes.describe(toKey) + "]";
    }
}
