package io.sluice.wire;

import java.util.Objects;
import java.util.UUID;

/**
 * One attribute update carried by {@link MergeSegments}, applied to the target atomically with the merge. Not a
 * command: a 33-byte structure nested in the MergeSegments payload.
 *
 * <pre>
 * attributeId UUID | attributeUpdateType u8 | newValue i64 | oldValue i64
 * </pre>
 *
 * @param attributeId the attribute
 * @param attributeUpdateType how to apply the update: one of {@link #NONE}, {@link #REPLACE},
 *     {@link #REPLACE_IF_GREATER}, {@link #ACCUMULATE}, {@link #REPLACE_IF_EQUALS}
 * @param newValue the value to store (or to add, for {@link #ACCUMULATE})
 * @param oldValue the value the attribute must have now, for {@link #REPLACE_IF_EQUALS}
 *     ({@link WireProtocol#NULL_ATTRIBUTE_VALUE} = must be unset)
 */
public record ConditionalAttributeUpdate(UUID attributeId, byte attributeUpdateType, long newValue, long oldValue) {
    /** Update type: set only if the attribute has no value yet. */
    public static final byte NONE = 0;
    /** Update type: set unconditionally. */
    public static final byte REPLACE = 1;
    /** Update type: set only if the new value is greater than the current one (or there is none). */
    public static final byte REPLACE_IF_GREATER = 2;
    /** Update type: add the new value to the current one. */
    public static final byte ACCUMULATE = 3;
    /** Update type: set only if the current value equals {@code oldValue} (compare-and-set). */
    public static final byte REPLACE_IF_EQUALS = 4;
    /** Encoded size: UUID (16) + type (1) + two int64 (16). */
    public static final int LENGTH = 2 * Long.BYTES + 1 + 2 * Long.BYTES;

    /** Checks that the attribute id is present. */
    public ConditionalAttributeUpdate {
        Objects.requireNonNull(attributeId, "attributeId");
    }

    /**
     * Writes the {@link #LENGTH} bytes of this update.
     *
     * @param out where to write
     */
    public void writeFields(WireOutput out) {
        out.writeUuid(attributeId);
        out.writeByte(attributeUpdateType);
        out.writeLong(newValue);
        out.writeLong(oldValue);
    }

    static ConditionalAttributeUpdate readFrom(WireInput in) {
        UUID attributeId = in.readUuid("attributeId");
        byte updateType = in.readByte("attributeUpdateType");
        long newValue = in.readLong("newValue");
        long oldValue = in.readLong("oldValue");
        return new ConditionalAttributeUpdate(attributeId, updateType, newValue, oldValue);
    }
}
