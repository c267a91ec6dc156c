package io.sluice.segment;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.function.Function;

import io.sluice.wire.Bytes;
import io.sluice.wire.TableIteratorArgs;

/**
 * The pages of one iteration over a table segment ({@link TableSegmentClient#keyPages},
 * {@link TableSegmentClient#entryPages}): reads a page per {@code hasNext()} that finds none read ahead, and ends with
 * the first empty page.
 *
 * <p>A table whose keys have any length is hash-ordered on a real segment store and resumes from the segment store's
 * opaque token. A table with fixed-length keys is ordered by key, and a real segment store refuses continuation tokens
 * for it: it is paged by key instead, each page starting at the key after the previous page's last (the way
 * Pravega's key-value tables page). The continuation token handed out with each page is ours and says which: a kind
 * byte, then the segment store's token, or the next and the last key (each an i32 length and its bytes), or nothing
 * for the end.
 *
 * <p>Not thread-safe, like any iterator.
 *
 * @param <T> {@link TableSegmentKey} or {@link TableSegmentEntry}
 */
final class TableSegmentPages<T> implements Iterator<TableSegmentPage<T>> {

    /** Where an iteration stands: the next request's arguments, or the end. */
    sealed interface Cursor {
        /** Hash-ordered tables: the segment store's opaque token (empty at the start). */
        record ByToken(ByteBuffer token) implements Cursor {
        }

        /** Tables with fixed-length keys: the next key to read from and the last one to read (empty: no bound). */
        record ByKey(ByteBuffer from, ByteBuffer to) implements Cursor {
        }

        /** Nothing more to read. */
        record End() implements Cursor {
        }
    }

    /** Reads one page with the given arguments (one request). */
    @FunctionalInterface
    interface Reader<T> {
        /**
         * @param args where to resume, what range to cover
         * @param pageSize the most items to ask for
         * @return the page's items (empty at the end) and the segment store's continuation token
         */
        Page<T> read(TableIteratorArgs args, int pageSize);
    }

    /**
     * What one request returned.
     *
     * @param items the keys or entries
     * @param serverToken the segment store's continuation token
     */
    record Page<T>(List<T> items, ByteBuffer serverToken) {
    }

    private static final byte BY_TOKEN = 1;
    private static final byte BY_KEY = 2;
    private static final byte END = 3;

    private final String segment;
    private final Reader<T> reader;
    private final Function<T, ByteBuffer> keyOf;
    private final int pageSize;
    private Cursor cursor;
    private TableSegmentPage<T> next;

    /**
     * @param segment the table segment, for messages
     * @param reader reads a page
     * @param keyOf the key of an item (to page tables with fixed-length keys)
     * @param cursor where to start
     * @param pageSize the most items per request
     */
    TableSegmentPages(String segment, Reader<T> reader, Function<T, ByteBuffer> keyOf, Cursor cursor, int pageSize) {
        this.segment = segment;
        this.reader = reader;
        this.keyOf = keyOf;
        this.cursor = cursor;
        this.pageSize = pageSize;
    }

    /** Reads the next page unless one is read ahead or the iteration is over; blocks for the request. */
    @Override
    public boolean hasNext() {
        if (next != null) {
            return true;
        }
        TableIteratorArgs args = switch (cursor) {
            case Cursor.End e -> null;
            case Cursor.ByToken t -> new TableIteratorArgs(t.token(), Bytes.EMPTY, Bytes.EMPTY, Bytes.EMPTY);
            case Cursor.ByKey k -> new TableIteratorArgs(Bytes.EMPTY, Bytes.EMPTY, k.from(), k.to());
        };
        if (args == null) {
            return false;
        }
        Page<T> page = reader.read(args, pageSize);
        if (page.items().isEmpty()) {
            cursor = new Cursor.End();
            return false;
        }
        cursor = switch (cursor) {
            case Cursor.ByToken t -> new Cursor.ByToken(page.serverToken());
            case Cursor.ByKey k -> after(keyOf.apply(page.items().getLast()), k.to());
            case Cursor.End e -> e;
        };
        next = new TableSegmentPage<>(page.items(), encode(cursor));
        return true;
    }

    @Override
    public TableSegmentPage<T> next() {
        if (!hasNext()) {
            throw new NoSuchElementException("the iteration over table segment " + segment + " is over");
        }
        TableSegmentPage<T> page = next;
        next = null;
        return page;
    }

    /** @return the cursor after a page of a table with fixed-length keys that ended with {@code last} */
    private static Cursor after(ByteBuffer last, ByteBuffer to) {
        ByteBuffer from = successor(last);
        if (from == null || (to.hasRemaining() && compare(from, to) > 0)) {
            return new Cursor.End();
        }
        return new Cursor.ByKey(from, to);
    }

    /** @return the key right after {@code key} of the same length (as an unsigned number), or null if none is */
    static ByteBuffer successor(ByteBuffer key) {
        byte[] next = Bytes.toArray(key);
        for (int i = next.length - 1; i >= 0; i--) {
            next[i]++;
            if (next[i] != 0) {
                return Bytes.wrap(next);
            }
        }
        return null;
    }

    /** @return the order of {@code a} and {@code b} as unsigned bytes */
    static int compare(ByteBuffer a, ByteBuffer b) {
        return Arrays.compareUnsigned(Bytes.toArray(a), Bytes.toArray(b));
    }

    /** @return our continuation token for {@code cursor} (read-only) */
    static ByteBuffer encode(Cursor cursor) {
        ByteBuffer out;
        switch (cursor) {
            case Cursor.ByToken t -> out = ByteBuffer.allocate(1 + t.token().remaining()).put(BY_TOKEN)
                    .put(t.token().duplicate());
            case Cursor.ByKey k -> out = ByteBuffer.allocate(1 + 2 * Integer.BYTES + k.from().remaining()
                    + k.to().remaining()).put(BY_KEY).putInt(k.from().remaining()).put(k.from().duplicate())
                    .putInt(k.to().remaining()).put(k.to().duplicate());
            case Cursor.End e -> out = ByteBuffer.allocate(1).put(END);
        }
        return out.flip().asReadOnlyBuffer();
    }

    /**
     * @param token a token {@link #encode} made
     * @param segment the table segment, for the message
     * @return the cursor it holds
     * @throws IllegalArgumentException if {@code token} is not one of ours
     */
    static Cursor decode(ByteBuffer token, String segment) {
        ByteBuffer in = token.slice();
        try {
            byte kind = in.get();
            return switch (kind) {
                case BY_TOKEN -> new Cursor.ByToken(Bytes.wrap(Bytes.toArray(in)));
                case BY_KEY -> {
                    ByteBuffer from = blob(in);
                    ByteBuffer to = blob(in);
                    if (in.hasRemaining()) {
                        throw new IllegalArgumentException(in.remaining() + " bytes too many");
                    }
                    yield new Cursor.ByKey(from, to);
                }
                case END -> new Cursor.End();
                default -> throw new IllegalArgumentException("unknown kind " + kind);
            };
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("not a continuation token of an iteration over table segment "
                    + segment + " (" + token.remaining() + " bytes: " + e.getMessage() + ")", e);
        }
    }

    private static ByteBuffer blob(ByteBuffer in) {
        int n = in.getInt();
        if (n < 0 || n > in.remaining()) {
            throw new IllegalArgumentException("a key of " + n + " bytes in " + in.remaining());
        }
        byte[] b = new byte[n];
        in.get(b);
        return Bytes.wrap(b);
    }

    /** @return the items of {@code pages}, one after another; {@code hasNext()} blocks when it reads a page */
    static <T> Iterator<T> flatten(Iterator<TableSegmentPage<T>> pages) {
        return new Iterator<>() {
            private Iterator<T> page = List.<T>of().iterator();

            @Override
            public boolean hasNext() {
                while (!page.hasNext()) {
                    if (!pages.hasNext()) {
                        return false;
                    }
                    page = pages.next().items().iterator();
                }
                return true;
            }

            @Override
            public T next() {
                if (!hasNext()) {
                    throw new NoSuchElementException("the iteration is over");
                }
                return page.next();
            }
        };
    }
}
