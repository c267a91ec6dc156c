package io.sluice.wire;

import java.util.Arrays;

/**
 * The index of the protocol: every type code of WIRE_VERSION 17 and the decoder of its payload.
 * Request/reply pairs are adjacent. Codes fit in a signed byte but travel as int32.
 *
 * <p>Unassigned codes: 6, 13–19, 22–27, 43–49, 54, 62–67, 72–73 (retired), 92–99, 101–127.
 * The admin codes −3…−6 are served on a separate admin listener, not on the data port.
 */
public enum WireCommandType {
    HELLO(-127, Hello::readFrom),

    PADDING(-1, Padding::readFrom),
    PARTIAL_EVENT(-2, PartialEvent::readFrom),

    FLUSH_TO_STORAGE(-3, FlushToStorage::readFrom),
    FLUSHED_TO_STORAGE(-4, StorageFlushed::readFrom),
    LIST_STORAGE_CHUNKS(-5, ListStorageChunks::readFrom),
    STORAGE_CHUNKS_LISTED(-6, StorageChunksListed::readFrom),

    /** Only valid nested: inside append block data, ConditionalAppend, and segment contents. */
    EVENT(0, null),

    SETUP_APPEND(1, SetupAppend::readFrom),
    APPEND_SETUP(2, AppendSetup::readFrom),
    APPEND_BLOCK(3, AppendBlock::readFrom),
    APPEND_BLOCK_END(4, AppendBlockEnd::readFrom),
    CONDITIONAL_APPEND(5, ConditionalAppend::readFrom),
    DATA_APPENDED(7, DataAppended::readFrom),
    CONDITIONAL_CHECK_FAILED(8, ConditionalCheckFailed::readFrom),

    READ_SEGMENT(9, ReadSegment::readFrom),
    SEGMENT_READ(10, SegmentRead::readFrom),

    GET_STREAM_SEGMENT_INFO(11, GetStreamSegmentInfo::readFrom),
    STREAM_SEGMENT_INFO(12, StreamSegmentInfo::readFrom),

    CREATE_SEGMENT(20, CreateSegment::readFrom),
    SEGMENT_CREATED(21, SegmentCreated::readFrom),

    SEAL_SEGMENT(28, SealSegment::readFrom),
    SEGMENT_SEALED(29, SegmentSealed::readFrom),

    DELETE_SEGMENT(30, DeleteSegment::readFrom),
    SEGMENT_DELETED(31, SegmentDeleted::readFrom),

    UPDATE_SEGMENT_POLICY(32, UpdateSegmentPolicy::readFrom),
    SEGMENT_POLICY_UPDATED(33, SegmentPolicyUpdated::readFrom),

    GET_SEGMENT_ATTRIBUTE(34, GetSegmentAttribute::readFrom),
    SEGMENT_ATTRIBUTE(35, SegmentAttribute::readFrom),

    UPDATE_SEGMENT_ATTRIBUTE(36, UpdateSegmentAttribute::readFrom),
    SEGMENT_ATTRIBUTE_UPDATED(37, SegmentAttributeUpdated::readFrom),

    TRUNCATE_SEGMENT(38, TruncateSegment::readFrom),
    SEGMENT_TRUNCATED(39, SegmentTruncated::readFrom),

    CREATE_TRANSIENT_SEGMENT(40, CreateTransientSegment::readFrom),

    /** Since wire version 17. */
    LOCATE_OFFSET(41, LocateOffset::readFrom),
    /** Since wire version 17. */
    OFFSET_LOCATED(42, OffsetLocated::readFrom),

    WRONG_HOST(50, WrongHost::readFrom),
    SEGMENT_IS_SEALED(51, SegmentIsSealed::readFrom),
    SEGMENT_ALREADY_EXISTS(52, SegmentAlreadyExists::readFrom),
    NO_SUCH_SEGMENT(53, NoSuchSegment::readFrom),
    INVALID_EVENT_NUMBER(55, InvalidEventNumber::readFrom),
    SEGMENT_IS_TRUNCATED(56, SegmentIsTruncated::readFrom),
    OPERATION_UNSUPPORTED(57, OperationUnsupported::readFrom),

    MERGE_SEGMENTS(58, MergeSegments::readFrom),
    SEGMENTS_MERGED(59, SegmentsMerged::readFrom),

    AUTH_TOKEN_CHECK_FAILED(60, AuthTokenCheckFailed::readFrom),
    ERROR_MESSAGE(61, ErrorMessage::readFrom),

    GET_TABLE_SEGMENT_INFO(68, GetTableSegmentInfo::readFrom),
    TABLE_SEGMENT_INFO(69, TableSegmentInfo::readFrom),
    CREATE_TABLE_SEGMENT(70, CreateTableSegment::readFrom),
    DELETE_TABLE_SEGMENT(71, DeleteTableSegment::readFrom),
    UPDATE_TABLE_ENTRIES(74, UpdateTableEntries::readFrom),
    TABLE_ENTRIES_UPDATED(75, TableEntriesUpdated::readFrom),
    REMOVE_TABLE_KEYS(76, RemoveTableKeys::readFrom),
    TABLE_KEYS_REMOVED(77, TableKeysRemoved::readFrom),
    READ_TABLE(78, ReadTable::readFrom),
    TABLE_READ(79, TableRead::readFrom),
    TABLE_SEGMENT_NOT_EMPTY(80, TableSegmentNotEmpty::readFrom),
    TABLE_KEY_DOES_NOT_EXIST(81, TableKeyDoesNotExist::readFrom),
    TABLE_KEY_BAD_VERSION(82, TableKeyBadVersion::readFrom),
    READ_TABLE_KEYS(83, ReadTableKeys::readFrom),
    TABLE_KEYS_READ(84, TableKeysRead::readFrom),
    READ_TABLE_ENTRIES(85, ReadTableEntries::readFrom),
    TABLE_ENTRIES_READ(86, TableEntriesRead::readFrom),
    /** Note: the reply's code is lower than its request's. */
    TABLE_ENTRIES_DELTA_READ(87, TableEntriesDeltaRead::readFrom),
    READ_TABLE_ENTRIES_DELTA(88, ReadTableEntriesDelta::readFrom),

    CONDITIONAL_BLOCK_END(89, ConditionalBlockEnd::readFrom),
    MERGE_SEGMENTS_BATCH(90, MergeSegmentsBatch::readFrom),
    SEGMENTS_BATCH_MERGED(91, SegmentsBatchMerged::readFrom),

    KEEP_ALIVE(100, KeepAlive::readFrom);

    /** Reads one command's payload. The input is bounded to the payload. */
    @FunctionalInterface
    interface Decoder {
        WireCommand read(WireInput in);
    }

    private static final WireCommandType[] BY_CODE = new WireCommandType[256];

    static {
        for (WireCommandType t : values()) {
            int slot = t.code & 0xFF;
            if (BY_CODE[slot] != null) {
                throw new ExceptionInInitializerError("duplicate wire code " + t.code);
            }
            BY_CODE[slot] = t;
        }
    }

    private final int code;
    private final Decoder decoder;

    WireCommandType(int code, Decoder decoder) {
        if (code < -127 || code > 127) {
            throw new IllegalArgumentException("wire codes must fit in a signed byte: " + code);
        }
        this.code = code;
        this.decoder = decoder;
    }

    /** @return the int32 type code sent on the wire */
    public int code() {
        return code;
    }

    /** @return true for EVENT, the one type with no top-level decoder */
    public boolean nestedOnly() {
        return decoder == null;
    }

    Decoder decoder() {
        return decoder;
    }

    /**
     * @param code a type code read from the wire
     * @return its type, or {@code null} if the code is not assigned
     */
    public static WireCommandType forCode(int code) {
        if (code < -128 || code > 127) {
            return null;
        }
        return BY_CODE[code & 0xFF];
    }

    /** @return every type that can appear as a top-level frame */
    public static WireCommandType[] topLevel() {
        return Arrays.stream(values()).filter(t -> !t.nestedOnly()).toArray(WireCommandType[]::new);
    }
}
