package io.sluice.stream;

import java.time.Duration;
import java.util.Objects;

/**
 * How much of a stream the controller keeps: everything ({@link #NONE}), data younger than a time, or a number of
 * bytes. The controller truncates the stream so that at least {@code param} is kept and at most {@code max}.
 * Immutable value.
 *
 * @param type the kind of policy
 * @param param the minimum to keep: milliseconds for {@link Type#TIME}, bytes for {@link Type#SIZE}, 0 for none
 * @param max the maximum to keep, in the same unit ({@link Long#MAX_VALUE} for no maximum), 0 for none
 */
public record RetentionPolicy(Type type, long param, long max) {

    /** Keep everything. */
    public static final RetentionPolicy NONE = new RetentionPolicy(Type.NONE, 0, 0);

    /** The kinds of retention policy. */
    public enum Type {
        /** No retention: the stream keeps all its data (the controller API calls this {@code UNKNOWN}). */
        NONE,
        /** Keep by age; bounds in milliseconds. */
        TIME,
        /** Keep by size; bounds in bytes. */
        SIZE
    }

    /**
     * @throws IllegalArgumentException if a bound is negative, {@code max < param}, or {@link Type#NONE} has bounds
     */
    public RetentionPolicy {
        Objects.requireNonNull(type, "type");
        if (type == Type.NONE) {
            if (param != 0 || max != 0) {
                throw new IllegalArgumentException("retention policy NONE takes no bounds: param " + param
                        + ", max " + max);
            }
        } else if (param < 0 || max < param) {
            throw new IllegalArgumentException("retention policy " + type + " needs 0 <= param <= max: param "
                    + param + ", max " + max);
        }
    }

    /**
     * @param keep keep at least this much recent data
     * @return a time-based policy without upper bound
     */
    public static RetentionPolicy byTime(Duration keep) {
        return new RetentionPolicy(Type.TIME, keep.toMillis(), Long.MAX_VALUE);
    }

    /**
     * @param min keep at least this much recent data
     * @param max keep at most this much
     * @return a time-based policy
     */
    public static RetentionPolicy byTime(Duration min, Duration max) {
        return new RetentionPolicy(Type.TIME, min.toMillis(), max.toMillis());
    }

    /**
     * @param bytes keep at least this many bytes
     * @return a size-based policy without upper bound
     */
    public static RetentionPolicy bySizeBytes(long bytes) {
        return new RetentionPolicy(Type.SIZE, bytes, Long.MAX_VALUE);
    }

    /**
     * @param minBytes keep at least this many bytes
     * @param maxBytes keep at most this many bytes
     * @return a size-based policy
     */
    public static RetentionPolicy bySizeBytes(long minBytes, long maxBytes) {
        return new RetentionPolicy(Type.SIZE, minBytes, maxBytes);
    }
}
