package io.sluice.segment;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Objects;

import io.sluice.wire.Bytes;

/**
 * One page of a table segment iteration.
 *
 * @param items the keys or entries of the page (never empty: an iteration ends instead)
 * @param continuationToken opaque bytes from which an iteration resumes after this page: pass them to
 *     {@link TableSegmentClient#keyPages(int, ByteBuffer)} or {@link TableSegmentClient#entryPages(int, ByteBuffer)}
 *     of the same table segment (a read-only view; keep a copy to outlive the process)
 * @param <T> {@link TableSegmentKey} or {@link TableSegmentEntry}
 */
public record TableSegmentPage<T>(List<T> items, ByteBuffer continuationToken) {
    /** Copies the list; takes a read-only view of the token. */
    public TableSegmentPage {
        items = List.copyOf(Objects.requireNonNull(items, "items"));
        continuationToken = Bytes.view(continuationToken, "continuationToken");
    }

    /** @return the token: a read-only view positioned at 0, of its own */
    @Override
    public ByteBuffer continuationToken() {
        return continuationToken.duplicate();
    }
}
