package io.sluice.segment;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import io.sluice.common.Threads;
import io.sluice.errors.BadKeyVersionException;
import io.sluice.errors.InvalidRequestException;
import io.sluice.errors.NoSuchKeyException;
import io.sluice.errors.NoSuchSegmentException;
import io.sluice.errors.ProtocolException;
import io.sluice.errors.SluiceException;
import io.sluice.errors.TableSegmentNotEmptyException;
import io.sluice.wire.Bytes;
import io.sluice.wire.CreateTableSegment;
import io.sluice.wire.DeleteTableSegment;
import io.sluice.wire.GetTableSegmentInfo;
import io.sluice.wire.NoSuchSegment;
import io.sluice.wire.ReadTable;
import io.sluice.wire.ReadTableEntries;
import io.sluice.wire.ReadTableKeys;
import io.sluice.wire.RemoveTableKeys;
import io.sluice.wire.Reply;
import io.sluice.wire.SegmentAlreadyExists;
import io.sluice.wire.SegmentCreated;
import io.sluice.wire.SegmentDeleted;
import io.sluice.wire.TableEntries;
import io.sluice.wire.TableEntriesDeltaRead;
import io.sluice.wire.TableEntriesRead;
import io.sluice.wire.TableEntriesUpdated;
import io.sluice.wire.TableEntry;
import io.sluice.wire.TableIteratorArgs;
import io.sluice.wire.TableKey;
import io.sluice.wire.TableKeyBadVersion;
import io.sluice.wire.TableKeyDoesNotExist;
import io.sluice.wire.TableKeysRead;
import io.sluice.wire.TableKeysRemoved;
import io.sluice.wire.TableRead;
import io.sluice.wire.TableSegmentNotEmpty;
import io.sluice.wire.TableValue;
import io.sluice.wire.UpdateTableEntries;
import io.sluice.wire.WireProtocol;

/**
 * One table segment: a key-value map kept by a segment store, in which every key carries a version. What key-value
 * tables and table synchronizers stand on. Every method is one or a few requests through {@link SegmentCalls}, so a
 * moved segment, an expired delegation token and a lost connection are handled there; replies that answer the
 * question (a missing key, a failed condition, a missing segment for {@link #delete}) are taken as answers here.
 *
 * <h2>Versions</h2>
 * A key's version is the offset in the table segment where its current value was written, so it grows with every
 * change. Writes and removals may name a version as a condition: {@link #NO_VERSION} for none, {@link #NOT_EXISTS}
 * for "the key must be absent", or a version a read returned for "the key must still be at it". A batch is atomic:
 * if any of its conditions fails, nothing of it is applied.
 *
 * <h2>Failed conditions are exceptions</h2>
 * A condition that fails throws, as in Pravega's client, and changes nothing:
 * <ul>
 *   <li>{@link BadKeyVersionException}: a key exists but at another version, or exists although it had to be
 *       absent ({@link #NOT_EXISTS});</li>
 *   <li>{@link NoSuchKeyException}: a key had to be at a version but does not exist.</li>
 * </ul>
 * Reads never throw for missing keys: {@link #get} returns them as absent. Removing a missing key without a condition
 * (or with {@link #NOT_EXISTS}) is not an error. A request whose reply was lost to a connection failure is sent again;
 * if the lost attempt had been applied, a conditional retry then fails as above although the change is in, as with
 * Pravega's own client; the exception then says so ({@code possiblyApplied()} is true), and a caller that must know
 * reads the key again.
 *
 * <h2>Limits</h2>
 * Those of Pravega's Java client and segment store, checked before anything is sent: a key is 1 to
 * {@value #MAX_KEY_LENGTH} bytes (an empty key is refused here because a real segment store accepts it and then
 * cannot iterate over the table), a value at most {@value #MAX_VALUE_LENGTH} bytes, and an entry's header, key and
 * value together at most {@value #MAX_ENTRY_BYTES} (the segment store's limit, which Pravega's client does not
 * check); a batch is at most {@value #MAX_BATCH_SIZE} keys without duplicates and {@value #MAX_BATCH_BYTES} bytes as
 * encoded. Tables with fixed-length keys (key-value tables) take keys of exactly that length; the segment store
 * checks it.
 *
 * <h2>Iteration</h2>
 * {@link #keyPages}/{@link #entryPages} read the table a page per request, each page ending with a continuation token
 * that resumes after it; {@link #keys()}/{@link #entries()} flatten them. The order is the segment store's: by key
 * hash on a real segment store, by key (unsigned bytes) on the embedded one, and for tables with fixed-length keys by
 * key on both. Pages are read one after another while the table may change: a key changed meanwhile may be seen at
 * its old or its new value, not both. Tables with fixed-length keys are paged by key (a real segment store refuses
 * continuation tokens for them); these also iterate over a key range.
 *
 * <h2>Delta reads</h2>
 * {@link #deltaReader(long)} follows the changes to the table from a position; see {@link TableSegmentDeltaReader}
 * for how it waits for new ones.
 *
 * <p>Thread-safe; every method blocks for its requests.
 */
public final class TableSegmentClient {
    /** Version meaning "whatever the key's version" (Pravega's {@code TableSegmentKeyVersion.NO_VERSION}). */
    public static final long NO_VERSION = TableKey.NO_VERSION;
    /** Version meaning "the key must be absent" (Pravega's {@code TableSegmentKeyVersion.NOT_EXISTS}). */
    public static final long NOT_EXISTS = TableKey.NOT_EXISTS;
    /** The longest key, in bytes (Pravega's {@code TableSegment.MAXIMUM_KEY_LENGTH}). */
    public static final int MAX_KEY_LENGTH = 8192;
    /** The longest value, in bytes (Pravega's {@code TableSegment.MAXIMUM_VALUE_LENGTH}: 1 MiB less a key). */
    public static final int MAX_VALUE_LENGTH = 1024 * 1024 - MAX_KEY_LENGTH;
    /**
     * The most bytes one entry takes in the table segment: its {@value #ENTRY_HEADER_BYTES}-byte header, key and value
     * together (a real segment store's {@code EntrySerializer.MAX_SERIALIZATION_LENGTH}, 1 MiB): so the longest key
     * and the longest value do not fit together.
     */
    public static final int MAX_ENTRY_BYTES = MAX_KEY_LENGTH + MAX_VALUE_LENGTH;
    /** The bytes an entry's header takes in the table segment (serialization version, lengths, version). */
    public static final int ENTRY_HEADER_BYTES = 1 + 2 * Integer.BYTES + Long.BYTES;
    /** The most keys in one batch (Pravega's {@code TableSegment.MAXIMUM_BATCH_KEY_COUNT}). */
    public static final int MAX_BATCH_SIZE = 256;
    /** The most bytes of keys and values, as encoded, in one batch (Pravega's {@code MAXIMUM_BATCH_LENGTH}). */
    public static final int MAX_BATCH_BYTES = WireProtocol.MAX_WIRECOMMAND_SIZE - 8192;
    /** The longest fixed key length a table segment may have (Pravega's {@code AttributeId.MAX_LENGTH}). */
    public static final int MAX_FIXED_KEY_LENGTH = 256;
    /** Page size of {@link #keys()} and {@link #entries()}. */
    public static final int DEFAULT_PAGE_SIZE = 100;

    /**
     * Keys per read: the reply must stay below the frame limit even if every value is as long as it may be
     * (Pravega's client splits reads the same way, and sends up to 5 of them at once).
     */
    static final int MAX_KEYS_PER_READ = MAX_BATCH_BYTES / (MAX_KEY_LENGTH + MAX_VALUE_LENGTH);
    /** Wire bytes of a key besides its data: payload size, data length, version. */
    private static final int KEY_OVERHEAD = 2 * Integer.BYTES + Long.BYTES;
    /** Wire bytes of a value besides its data: payload size, data length. */
    private static final int VALUE_OVERHEAD = 2 * Integer.BYTES;

    private final SegmentCalls calls;
    private final String segment;
    private final DelegationTokenProvider tokens;

    /**
     * @param calls the segment-call layer
     * @param segment the table segment's qualified name (e.g. {@code scope/kvt_kvtable/0.#epoch.0})
     * @param tokens the delegation tokens for the segment, {@code null} without auth
     */
    public TableSegmentClient(SegmentCalls calls, String segment, DelegationTokenProvider tokens) {
        this.calls = Objects.requireNonNull(calls, "calls");
        this.segment = Objects.requireNonNull(segment, "segment");
        if (segment.isEmpty()) {
            throw new IllegalArgumentException("table segment name must not be empty");
        }
        this.tokens = tokens;
    }

    /** @return the table segment this client is about */
    public String segment() {
        return segment;
    }

    // ---------------------------------------------------------------- the segment

    /**
     * Creates the table segment with keys of any length.
     *
     * @return true if created, false if a segment of that name exists already
     */
    public boolean create() {
        return create(0);
    }

    /**
     * Creates the table segment.
     *
     * @param keyLength the length every key must have (1 to {@value #MAX_FIXED_KEY_LENGTH}: a key-value table's
     *     segments), or 0 for keys of any length
     * @return true if created, false if a segment of that name exists already: the segment store does not compare
     *     the existing one's key length (nor whether it is a table at all), see {@link #info()}
     * @throws IllegalArgumentException if {@code keyLength} is out of range
     */
    public boolean create(int keyLength) {
        if (keyLength < 0 || keyLength > MAX_FIXED_KEY_LENGTH) {
            throw new IllegalArgumentException("key length of table segment " + segment + " must be 0 (any) or 1 to "
                    + MAX_FIXED_KEY_LENGTH + ": " + keyLength);
        }
        Reply r = calls.call(segment, tokens, "creation of table segment " + segment,
                (id, token) -> new CreateTableSegment(id, segment, false, keyLength, token, 0), null);
        return switch (r) {
            case SegmentCreated c -> true;
            case SegmentAlreadyExists e -> false;
            default -> throw calls.unexpected(segment, r, "CreateTableSegment");
        };
    }

    /**
     * Deletes the table segment.
     *
     * @param mustBeEmpty delete only if it holds no keys
     * @return true if deleted, false if there was no such segment
     * @throws TableSegmentNotEmptyException if {@code mustBeEmpty} and it holds keys
     */
    public boolean delete(boolean mustBeEmpty) {
        Reply r = calls.call(segment, tokens, "deletion of table segment " + segment,
                (id, token) -> new DeleteTableSegment(id, segment, mustBeEmpty, token), null);
        return switch (r) {
            case SegmentDeleted d -> true;
            case NoSuchSegment n -> false;
            case TableSegmentNotEmpty e -> throw new TableSegmentNotEmptyException("table segment " + segment
                    + " still holds keys: not deleted (it had to be empty)");
            default -> throw calls.unexpected(segment, r, "DeleteTableSegment");
        };
    }

    /**
     * @return the table segment's length, key count and key length
     * @throws NoSuchSegmentException if it does not exist
     */
    public TableSegmentInfo info() {
        io.sluice.wire.TableSegmentInfo i = calls.call(segment, tokens, "info of table segment " + segment,
                (id, token) -> new GetTableSegmentInfo(id, segment, token), io.sluice.wire.TableSegmentInfo.class,
                null);
        if (i.startOffset() < 0 || i.length() < i.startOffset() || i.keyLength() < 0) {
            throw new ProtocolException("segment store says table segment " + segment + " starts at "
                    + i.startOffset() + ", is " + i.length() + " bytes long and has keys of length " + i.keyLength());
        }
        return new TableSegmentInfo(segment, i.startOffset(), i.length(), i.entryCount(), i.keyLength());
    }

    // ---------------------------------------------------------------- reads

    /**
     * @param key the key
     * @return its entry (value and current version), or empty if the key does not exist
     * @throws NoSuchSegmentException if the table segment does not exist
     * @throws InvalidRequestException if the key has the wrong length for the table
     */
    public Optional<TableSegmentEntry> get(ByteBuffer key) {
        return get(List.of(Objects.requireNonNull(key, "key"))).getFirst();
    }

    /**
     * Reads several keys. Up to {@value #MAX_KEYS_PER_READ} keys are read in one request (the most whose longest
     * possible values fit in one reply), more in several sent at once (each from a virtual thread of its own, so
     * they take about one round trip): then the result is no snapshot of one moment.
     *
     * @param keys the keys, at most {@value #MAX_BATCH_SIZE}; duplicates are read twice
     * @return one element per key, in order: the entry, or empty if the key does not exist
     * @throws NoSuchSegmentException if the table segment does not exist
     * @throws IllegalArgumentException if there are too many keys or a key is empty or too long
     */
    public List<Optional<TableSegmentEntry>> get(List<ByteBuffer> keys) {
        Objects.requireNonNull(keys, "keys");
        List<TableKey> wire = new ArrayList<>(keys.size());
        long bytes = 0;
        for (int i = 0; i < keys.size(); i++) {
            ByteBuffer key = checkKey(keys.get(i), i);
            bytes += KEY_OVERHEAD + key.remaining();
            wire.add(new TableKey(key, NO_VERSION));
        }
        checkBatch(wire.size(), bytes, false);
        List<Supplier<List<Optional<TableSegmentEntry>>>> reads = new ArrayList<>();
        for (int from = 0; from < wire.size(); from += MAX_KEYS_PER_READ) {
            List<TableKey> slice = wire.subList(from, Math.min(wire.size(), from + MAX_KEYS_PER_READ));
            reads.add(() -> read(slice));
        }
        List<Optional<TableSegmentEntry>> out = new ArrayList<>(wire.size());
        Threads.all("sluice-table-read-", reads).forEach(out::addAll);
        return out;
    }

    /** One request: the entries of {@code keys} (at most {@link #MAX_KEYS_PER_READ}), empty for missing ones. */
    private List<Optional<TableSegmentEntry>> read(List<TableKey> keys) {
        TableRead r = calls.call(segment, tokens, "read of " + keys.size() + " keys of table segment " + segment,
                (id, token) -> new ReadTable(id, segment, token, keys), TableRead.class, null);
        List<TableEntry> entries = r.entries().entries();
        if (entries.size() != keys.size()) {
            throw new ProtocolException("segment store answered a read of " + keys.size() + " keys of table "
                    + "segment " + segment + " with " + entries.size() + " entries");
        }
        List<Optional<TableSegmentEntry>> out = new ArrayList<>(entries.size());
        for (TableEntry e : entries) {
            long version = e.key().keyVersion();
            out.add(version == NOT_EXISTS ? Optional.empty() : Optional.of(entry(e)));
        }
        return out;
    }

    // ---------------------------------------------------------------- writes

    /**
     * Writes {@code value} under {@code key} whatever the key's version.
     *
     * @return the key's new version
     * @throws NoSuchSegmentException if the table segment does not exist
     * @throws IllegalArgumentException if the key is empty or too long, or the value too long
     */
    public long put(ByteBuffer key, ByteBuffer value) {
        return put(TableSegmentEntry.unversioned(key, value));
    }

    /**
     * Writes {@code value} under {@code key} only if the key does not exist.
     *
     * @return the key's version
     * @throws BadKeyVersionException if the key exists (nothing is written)
     * @throws NoSuchSegmentException if the table segment does not exist
     */
    public long insert(ByteBuffer key, ByteBuffer value) {
        return put(TableSegmentEntry.notExists(key, value));
    }

    /**
     * Writes one entry on the condition its version names ({@link #NO_VERSION}: none).
     *
     * @return the key's new version
     * @throws BadKeyVersionException if the key exists at another version (or exists, for {@link #NOT_EXISTS})
     * @throws NoSuchKeyException if the entry names a version and the key does not exist
     * @throws NoSuchSegmentException if the table segment does not exist
     * @throws IllegalArgumentException if the key is empty or too long, or the value too long
     */
    public long put(TableSegmentEntry entry) {
        return put(List.of(Objects.requireNonNull(entry, "entry"))).getFirst();
    }

    /**
     * Writes several entries atomically: all or, if any entry's condition fails, none.
     *
     * @param entries the entries, each with its condition; at most {@value #MAX_BATCH_SIZE}, no key twice
     * @return the keys' new versions, in order (empty for no entries, without a request)
     * @throws BadKeyVersionException if a key exists at another version than its entry names (nothing is written)
     * @throws NoSuchKeyException if an entry names a version and its key does not exist (nothing is written)
     * @throws NoSuchSegmentException if the table segment does not exist
     * @throws IllegalArgumentException if the batch breaks a limit (see the class comment) or repeats a key
     */
    public List<Long> put(List<TableSegmentEntry> entries) {
        Objects.requireNonNull(entries, "entries");
        List<TableEntry> wire = new ArrayList<>(entries.size());
        Set<ByteBuffer> seen = new HashSet<>();
        long bytes = 0;
        for (int i = 0; i < entries.size(); i++) {
            TableSegmentEntry e = Objects.requireNonNull(entries.get(i), "entry " + i);
            ByteBuffer key = checkKey(e.key(), i);
            ByteBuffer value = e.value();
            if (value.remaining() > MAX_VALUE_LENGTH) {
                throw new IllegalArgumentException("value " + i + " for table segment " + segment + " is "
                        + value.remaining() + " bytes long: at most " + MAX_VALUE_LENGTH + " are allowed");
            }
            if (ENTRY_HEADER_BYTES + key.remaining() + value.remaining() > MAX_ENTRY_BYTES) {
                throw new IllegalArgumentException("entry " + i + " for table segment " + segment + " has a key of "
                        + key.remaining() + " and a value of " + value.remaining() + " bytes: with its "
                        + ENTRY_HEADER_BYTES + "-byte header an entry takes at most " + MAX_ENTRY_BYTES);
            }
            checkUnique(seen, key, i);
            bytes += KEY_OVERHEAD + key.remaining() + VALUE_OVERHEAD + value.remaining();
            wire.add(new TableEntry(new TableKey(key, e.version()), new TableValue(value)));
        }
        checkBatch(wire.size(), bytes, true);
        if (wire.isEmpty()) {
            return List.of();
        }
        String what = wire.size() == 1 ? "update of " + describe(wire.getFirst().key())
                : "update of " + wire.size() + " keys of table segment " + segment;
        TableEntries batch = new TableEntries(wire);
        AtomicInteger attempts = new AtomicInteger();
        Reply r = calls.call(segment, tokens, what, (id, token) -> {
            attempts.incrementAndGet();
            return new UpdateTableEntries(id, segment, token, batch, UpdateTableEntries.NULL_TABLE_SEGMENT_OFFSET);
        }, null);
        if (r instanceof TableEntriesUpdated u) {
            if (u.updatedVersions().size() != wire.size()) {
                throw new ProtocolException("segment store answered an update of " + wire.size() + " keys of table "
                        + "segment " + segment + " with " + u.updatedVersions().size() + " versions");
            }
            return u.updatedVersions();
        }
        throw conditionFailed(r, wire.stream().map(TableEntry::key).toList(), "update", "UpdateTableEntries",
                attempts.get() > 1);
    }

    // ---------------------------------------------------------------- removals

    /**
     * Removes {@code key} whatever its version; removing a missing key does nothing.
     *
     * @throws NoSuchSegmentException if the table segment does not exist
     */
    public void remove(ByteBuffer key) {
        remove(TableSegmentKey.unversioned(key));
    }

    /**
     * Removes one key on the condition its version names: {@link #NO_VERSION} (none) and {@link #NOT_EXISTS} remove a
     * missing key without complaint.
     *
     * @throws BadKeyVersionException if the key exists at another version (or exists, for {@link #NOT_EXISTS})
     * @throws NoSuchKeyException if the key names a version and does not exist
     * @throws NoSuchSegmentException if the table segment does not exist
     */
    public void remove(TableSegmentKey key) {
        remove(List.of(Objects.requireNonNull(key, "key")));
    }

    /**
     * Removes several keys atomically: all or, if any key's condition fails, none. Conditions as in
     * {@link #remove(TableSegmentKey)}.
     *
     * @param keys at most {@value #MAX_BATCH_SIZE}, no key twice; none: nothing is sent
     * @throws BadKeyVersionException if a key exists at another version than it names (nothing is removed)
     * @throws NoSuchKeyException if a key names a version and does not exist (nothing is removed)
     * @throws NoSuchSegmentException if the table segment does not exist
     * @throws IllegalArgumentException if the batch breaks a limit or repeats a key
     */
    public void remove(List<TableSegmentKey> keys) {
        Objects.requireNonNull(keys, "keys");
        List<TableKey> wire = new ArrayList<>(keys.size());
        Set<ByteBuffer> seen = new HashSet<>();
        long bytes = 0;
        for (int i = 0; i < keys.size(); i++) {
            TableSegmentKey k = Objects.requireNonNull(keys.get(i), "key " + i);
            ByteBuffer key = checkKey(k.key(), i);
            checkUnique(seen, key, i);
            bytes += KEY_OVERHEAD + key.remaining();
            wire.add(new TableKey(key, k.version()));
        }
        checkBatch(wire.size(), bytes, true);
        if (wire.isEmpty()) {
            return;
        }
        String what = wire.size() == 1 ? "removal of " + describe(wire.getFirst())
                : "removal of " + wire.size() + " keys of table segment " + segment;
        AtomicInteger attempts = new AtomicInteger();
        Reply r = calls.call(segment, tokens, what, (id, token) -> {
            attempts.incrementAndGet();
            return new RemoveTableKeys(id, segment, token, wire, UpdateTableEntries.NULL_TABLE_SEGMENT_OFFSET);
        }, null);
        if (!(r instanceof TableKeysRemoved)) {
            throw conditionFailed(r, wire, "removal", "RemoveTableKeys", attempts.get() > 1);
        }
    }

    // ---------------------------------------------------------------- iteration

    /**
     * The keys of the whole table, {@value #DEFAULT_PAGE_SIZE} per request. Blocks in {@code hasNext()} for the next
     * page. See {@link #keyPages(int, ByteBuffer)}.
     */
    public Iterator<TableSegmentKey> keys() {
        return TableSegmentPages.flatten(keyPages(DEFAULT_PAGE_SIZE, null));
    }

    /**
     * The entries of the whole table, {@value #DEFAULT_PAGE_SIZE} per request. Blocks in {@code hasNext()} for the
     * next page. See {@link #entryPages(int, ByteBuffer)}.
     */
    public Iterator<TableSegmentEntry> entries() {
        return TableSegmentPages.flatten(entryPages(DEFAULT_PAGE_SIZE, null));
    }

    /**
     * The table's keys with their versions, a page per request, from the start or from where an earlier iteration's
     * page ended. {@code hasNext()} blocks for the request; the iteration ends with the first empty page. A real
     * segment store takes the page size as a suggestion (pages may be shorter, and for tables with fixed-length keys
     * longer); every reply stays below 2 MiB of data or so.
     *
     * @param pageSize the most keys to ask for per request, at least 1
     * @param continuationToken a page's {@link TableSegmentPage#continuationToken()} to resume after it (from an
     *     iteration over the same table segment), or {@code null} (or empty) to start at the beginning. Its bytes are
     *     partly the segment store's own: altered ones may make a real segment store close the connection.
     * @throws IllegalArgumentException if {@code pageSize} is below 1 or the token is not one of these iterations'
     * @throws NoSuchSegmentException if the table segment does not exist (asked here when starting at the beginning,
     *     else from {@code hasNext()})
     */
    public Iterator<TableSegmentPage<TableSegmentKey>> keyPages(int pageSize, ByteBuffer continuationToken) {
        return new TableSegmentPages<>(segment, this::readKeys, TableSegmentKey::key,
                start(pageSize, continuationToken), pageSize);
    }

    /**
     * The table's entries, a page per request, from the start or from where an earlier iteration's page ended.
     * Otherwise as {@link #keyPages(int, ByteBuffer)}.
     */
    public Iterator<TableSegmentPage<TableSegmentEntry>> entryPages(int pageSize, ByteBuffer continuationToken) {
        return new TableSegmentPages<>(segment, this::readEntries, TableSegmentEntry::key,
                start(pageSize, continuationToken), pageSize);
    }

    /**
     * The keys from {@code fromKey} to {@code toKey} (both included, ordered as unsigned bytes) of a table with
     * fixed-length keys, a page per request; resume with {@link #keyPages(int, ByteBuffer)} and a page's token.
     *
     * @param fromKey the lowest key, of the table's key length
     * @param toKey the highest key, of the table's key length, not below {@code fromKey}
     * @throws IllegalArgumentException if the table's keys have no fixed length, the bounds do not have it, or
     *     {@code fromKey} is above {@code toKey}
     * @throws NoSuchSegmentException if the table segment does not exist
     */
    public Iterator<TableSegmentPage<TableSegmentKey>> keyPages(ByteBuffer fromKey, ByteBuffer toKey, int pageSize) {
        return new TableSegmentPages<>(segment, this::readKeys, TableSegmentKey::key, range(fromKey, toKey, pageSize),
                pageSize);
    }

    /**
     * The entries from {@code fromKey} to {@code toKey} of a table with fixed-length keys. Otherwise as
     * {@link #keyPages(ByteBuffer, ByteBuffer, int)}.
     */
    public Iterator<TableSegmentPage<TableSegmentEntry>> entryPages(ByteBuffer fromKey, ByteBuffer toKey,
                                                                     int pageSize) {
        return new TableSegmentPages<>(segment, this::readEntries, TableSegmentEntry::key,
                range(fromKey, toKey, pageSize), pageSize);
    }

    // ---------------------------------------------------------------- delta reads

    /**
     * Follows the changes to the table from {@code fromPosition} on: a reader that returns batches of changed entries
     * and waits for new ones. Close it when done. Tables with fixed-length keys have no delta reads on a real segment
     * store; the reader fails then.
     *
     * @param fromPosition 0 for every entry the table holds, {@link TableSegmentInfo#length()} for only the changes
     *     to come, or a {@link TableSegmentChanges#position()} an earlier reader returned
     * @return a started reader
     * @throws IllegalArgumentException if {@code fromPosition} is negative
     */
    public TableSegmentDeltaReader deltaReader(long fromPosition) {
        return deltaReader(fromPosition, TableSegmentDeltaReader.DEFAULT_BATCH_SIZE);
    }

    /**
     * As {@link #deltaReader(long)}, reading at most {@code batchSize} entries per request.
     *
     * @throws IllegalArgumentException if {@code fromPosition} is negative or {@code batchSize} below 1
     */
    public TableSegmentDeltaReader deltaReader(long fromPosition, int batchSize) {
        return new TableSegmentDeltaReader(calls, segment, tokens, fromPosition, batchSize);
    }

    /**
     * One delta read, without a reader thread and without waiting: the entries written from {@code fromPosition} on,
     * at most {@code maxEntries} of them (the newest value of each key in the span read, ordered by version; removals
     * are not reported). Call again from {@link TableSegmentChanges#position()} until {@link DeltaRead#reachedEnd()}
     * to see every change made before the first call.
     *
     * @param fromPosition 0, the table's length, or a position an earlier delta read returned
     * @param maxEntries entries asked for, at least 1 (a suggestion the segment store may round)
     * @return the changes and whether they reach the table's end
     * @throws IllegalArgumentException if {@code fromPosition} is negative or {@code maxEntries} below 1
     * @throws InvalidRequestException if the segment store has no delta reads for this table (fixed-length keys)
     * @throws NoSuchSegmentException if the table segment does not exist
     */
    public DeltaRead readDelta(long fromPosition, int maxEntries) {
        if (fromPosition < 0) {
            throw new IllegalArgumentException("a delta read of table segment " + segment + " starts at a position of"
                    + " 0 or more: " + fromPosition);
        }
        if (maxEntries < 1) {
            throw new IllegalArgumentException("a delta read asks for at least 1 entry: " + maxEntries);
        }
        TableEntriesDeltaRead r = TableSegmentDeltaReader.readDelta(calls, segment, tokens, fromPosition, maxEntries);
        return new DeltaRead(new TableSegmentChanges(TableSegmentDeltaReader.sorted(segment, r.entries()),
                r.shouldClear(), TableSegmentDeltaReader.next(r, fromPosition)), r.reachedEnd());
    }

    /**
     * What one {@link #readDelta} returned.
     *
     * @param changes the entries read, whether earlier state must be dropped, and where to read next
     * @param reachedEnd true if the read reached the table's end as the segment store saw it
     */
    public record DeltaRead(TableSegmentChanges changes, boolean reachedEnd) {
        /** Checks the values. */
        public DeltaRead {
            Objects.requireNonNull(changes, "changes");
        }
    }

    @Override
    public String toString() {
        return "TableSegmentClient[" + segment + "]";
    }

    // ---------------------------------------------------------------- helpers shared with the records

    static void checkVersion(long version) {
        if (version < 0 && version != NO_VERSION && version != NOT_EXISTS) {
            throw new IllegalArgumentException("a key version is NO_VERSION, NOT_EXISTS or at least 0: " + version);
        }
    }

    static String describeVersion(long version) {
        return version == NO_VERSION ? "NO_VERSION" : version == NOT_EXISTS ? "NOT_EXISTS" : Long.toString(version);
    }

    // ---------------------------------------------------------------- private

    private ByteBuffer checkKey(ByteBuffer key, int index) {
        Objects.requireNonNull(key, "key " + index);
        if (!key.hasRemaining()) {
            throw new IllegalArgumentException("key " + index + " for table segment " + segment + " is empty: "
                    + "keys are 1 to " + MAX_KEY_LENGTH + " bytes long");
        }
        if (key.remaining() > MAX_KEY_LENGTH) {
            throw new IllegalArgumentException("key " + index + " for table segment " + segment + " is "
                    + key.remaining() + " bytes long: at most " + MAX_KEY_LENGTH + " are allowed");
        }
        return key;
    }

    private void checkUnique(Set<ByteBuffer> seen, ByteBuffer key, int index) {
        if (!seen.add(key)) {
            throw new IllegalArgumentException("key " + index + " (" + Bytes.describe(key) + ") appears twice in "
                    + "one batch for table segment " + segment);
        }
    }

    private void checkBatch(int count, long bytes, boolean write) {
        if (count > MAX_BATCH_SIZE) {
            throw new IllegalArgumentException((write ? "a batch for" : "a read of") + " table segment " + segment
                    + " has " + count + " keys: at most " + MAX_BATCH_SIZE + " are allowed");
        }
        if (bytes > MAX_BATCH_BYTES) {
            throw new IllegalArgumentException((write ? "a batch for" : "a read of") + " table segment " + segment
                    + " takes " + bytes + " bytes: at most " + MAX_BATCH_BYTES + " are allowed");
        }
    }

    private String describe(TableKey key) {
        return "key of " + Bytes.describe(key.data()) + " at version " + describeVersion(key.keyVersion())
                + " in table segment " + segment;
    }

    /**
     * The exception for an update's or removal's reply that is not its success.
     *
     * @param retried whether an earlier attempt went unanswered: then the change may be in, and the exception says so
     */
    private SluiceException conditionFailed(Reply r, List<TableKey> keys, String what, String request,
                                            boolean retried) {
        String which = keys.size() == 1 ? "the " + describe(keys.getFirst())
                : "one of " + keys.size() + " keys of table segment " + segment;
        String outcome = retried ? "; an earlier attempt of this " + what + " went unanswered (its connection was "
                + "lost), so it may have been applied: read the key to know" : "; nothing was changed";
        return switch (r) {
            case TableKeyBadVersion b -> new BadKeyVersionException("conditional " + what + " failed: " + which
                    + (keys.size() == 1 ? " is" : " was") + " not at the version named (present at another "
                    + "version, or present although it had to be absent)" + outcome, retried);
            case TableKeyDoesNotExist n -> new NoSuchKeyException("conditional " + what + " failed: " + which
                    + (keys.size() == 1 ? " does" : " did") + " not exist" + outcome, retried);
            default -> calls.unexpected(segment, r, request);
        };
    }

    private TableSegmentEntry entry(TableEntry e) {
        return new TableSegmentEntry(e.key().data(), e.value().data(), version(e.key()));
    }

    private TableSegmentKey key(TableKey k) {
        return new TableSegmentKey(k.data(), version(k));
    }

    /**
     * A version the segment store reports for an existing key: 0 or more; {@link #NO_VERSION} only for the empty key,
     * whose version never travels (another client may have written one).
     */
    private long version(TableKey k) {
        long v = k.keyVersion();
        if (v < 0 && !(v == NO_VERSION && !k.data().hasRemaining())) {
            throw new ProtocolException("segment store reported version " + v + " for an existing key of table "
                    + "segment " + segment);
        }
        return v;
    }

    // ---------------------------------------------------------------- pages

    private TableSegmentPages.Page<TableSegmentKey> readKeys(TableIteratorArgs args, int pageSize) {
        TableKeysRead r = calls.call(segment, tokens, "iteration over the keys of table segment " + segment,
                (id, token) -> new ReadTableKeys(id, segment, token, pageSize, args), TableKeysRead.class, null);
        return new TableSegmentPages.Page<>(r.keys().stream().map(this::key).toList(), r.continuationToken());
    }

    private TableSegmentPages.Page<TableSegmentEntry> readEntries(TableIteratorArgs args, int pageSize) {
        TableEntriesRead r = calls.call(segment, tokens, "iteration over the entries of table segment " + segment,
                (id, token) -> new ReadTableEntries(id, segment, token, pageSize, args), TableEntriesRead.class, null);
        return new TableSegmentPages.Page<>(r.entries().entries().stream().map(this::entry).toList(),
                r.continuationToken());
    }

    private TableSegmentPages.Cursor start(int pageSize, ByteBuffer continuationToken) {
        checkPageSize(pageSize);
        if (continuationToken != null && continuationToken.hasRemaining()) {
            return TableSegmentPages.decode(continuationToken, segment);
        }
        int keyLength = info().keyLength();
        return keyLength == 0 ? new TableSegmentPages.Cursor.ByToken(Bytes.EMPTY)
                : new TableSegmentPages.Cursor.ByKey(Bytes.EMPTY, Bytes.EMPTY);
    }

    private TableSegmentPages.Cursor range(ByteBuffer fromKey, ByteBuffer toKey, int pageSize) {
        Objects.requireNonNull(fromKey, "fromKey");
        Objects.requireNonNull(toKey, "toKey");
        checkPageSize(pageSize);
        int keyLength = info().keyLength();
        if (keyLength == 0) {
            throw new IllegalArgumentException("table segment " + segment + " has keys of any length: only tables "
                    + "with fixed-length keys iterate over a key range");
        }
        if (fromKey.remaining() != keyLength || toKey.remaining() != keyLength) {
            throw new IllegalArgumentException("the keys of table segment " + segment + " are " + keyLength
                    + " bytes long, but the range is from a key of " + fromKey.remaining() + " bytes to one of "
                    + toKey.remaining());
        }
        if (TableSegmentPages.compare(fromKey, toKey) > 0) {
            throw new IllegalArgumentException("the range over table segment " + segment + " starts after its end");
        }
        return new TableSegmentPages.Cursor.ByKey(Bytes.view(fromKey, "fromKey"), Bytes.view(toKey, "toKey"));
    }

    private static void checkPageSize(int pageSize) {
        if (pageSize < 1) {
            throw new IllegalArgumentException("page size must be at least 1: " + pageSize);
        }
    }

}
