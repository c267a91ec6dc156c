package io.sluice.server.controller;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.sluice.common.SegmentListLimit;
import io.sluice.controller.grpc.v1.KeyValueTableConfig;
import io.sluice.controller.grpc.v1.RetentionPolicy;
import io.sluice.controller.grpc.v1.ScalingPolicy;
import io.sluice.controller.grpc.v1.SegmentId;
import io.sluice.controller.grpc.v1.SegmentRange;
import io.sluice.controller.grpc.v1.StreamConfig;
import io.sluice.controller.grpc.v1.StreamInfo;
import io.sluice.controller.grpc.v1.Tags;

/** Building and checking the protobuf messages the controller exchanges. Pure functions. */
final class Protos {
    /** Pravega's limit on tags per stream. */
    static final int MAX_TAGS = 128;
    /** Pravega's limit on a tag's length. */
    static final int MAX_TAG_LENGTH = 256;
    /** Rollover size of reader group state streams (Pravega: 4 MiB). */
    static final long READER_GROUP_ROLLOVER_BYTES = 4L * 1024 * 1024;

    private Protos() {
    }

    static StreamInfo streamInfo(String scope, String stream) {
        return StreamInfo.newBuilder().setScope(scope).setStream(stream).build();
    }

    static SegmentId segmentId(String scope, String stream, long id) {
        return SegmentId.newBuilder().setStreamInfo(streamInfo(scope, stream)).setSegmentId(id).build();
    }

    static SegmentRange segmentRange(String scope, String stream, SegmentRecord segment) {
        return segmentRange(scope, stream, segment.id(), segment.keyStart(), segment.keyEnd());
    }

    static SegmentRange segmentRange(String scope, String stream, long id, double minKey, double maxKey) {
        return SegmentRange.newBuilder().setSegmentId(segmentId(scope, stream, id)).setMinKey(minKey)
                .setMaxKey(maxKey).build();
    }

    static List<SegmentRange> segmentRanges(String scope, String stream, List<SegmentRecord> segments) {
        List<SegmentRange> ranges = new ArrayList<>(segments.size());
        for (SegmentRecord s : StreamMeta.sortedByKey(segments)) {
            ranges.add(segmentRange(scope, stream, s));
        }
        return ranges;
    }

    static StatusRuntimeException invalid(String message) {
        return Status.INVALID_ARGUMENT.withDescription(message).asRuntimeException();
    }

    static StatusRuntimeException notFound(String message) {
        return Status.NOT_FOUND.withDescription(message).asRuntimeException();
    }

    static StatusRuntimeException failedPrecondition(String message) {
        return Status.FAILED_PRECONDITION.withDescription(message).asRuntimeException();
    }

    /**
     * Checks a stream configuration the way Pravega's client-side builders do.
     *
     * @throws StatusRuntimeException INVALID_ARGUMENT naming the bad field
     */
    static void checkStreamConfig(String scope, String stream, StreamConfig config) {
        ScalingPolicy policy = config.getScalingPolicy();
        if (policy.getScaleType() == ScalingPolicy.ScalingPolicyType.UNRECOGNIZED) {
            throw invalid("unknown scaling policy type " + policy.getScaleTypeValue());
        }
        if (policy.getMinNumSegments() <= 0) {
            throw invalid("scalingPolicy.minNumSegments must be > 0, got " + policy.getMinNumSegments());
        }
        // refused as INVALID_ARGUMENT, like every invalid configuration; scaling may still split a stream beyond it
        int max = SegmentListLimit.maxSegments(scope, stream);
        if (policy.getMinNumSegments() > max) {
            throw invalid("scalingPolicy.minNumSegments must be at most " + max + " for a stream of these names (the "
                    + "list of its segments must fit into one controller reply), got " + policy.getMinNumSegments());
        }
        if (policy.getScaleType() != ScalingPolicy.ScalingPolicyType.FIXED_NUM_SEGMENTS
                && (policy.getTargetRate() <= 0 || policy.getScaleFactor() <= 0)) {
            throw invalid("an auto-scaling policy needs targetRate > 0 and scaleFactor > 0, got "
                    + policy.getTargetRate() + " and " + policy.getScaleFactor());
        }
        RetentionPolicy retention = config.getRetentionPolicy();
        if (retention.getRetentionType() == RetentionPolicy.RetentionPolicyType.UNRECOGNIZED) {
            throw invalid("unknown retention policy type " + retention.getRetentionTypeValue());
        }
        if (retention.getRetentionParam() < 0 || retention.getRetentionMax() < 0) {
            throw invalid("retention parameters must not be negative, got " + retention.getRetentionParam()
                    + " and " + retention.getRetentionMax());
        }
        if (config.getRolloverSizeBytes() < 0) {
            throw invalid("rolloverSizeBytes must not be negative, got " + config.getRolloverSizeBytes());
        }
        if (config.getTimestampAggregationTimeout() < 0) {
            throw invalid("timestampAggregationTimeout must not be negative, got "
                    + config.getTimestampAggregationTimeout());
        }
        if (config.getTags().getTagCount() > MAX_TAGS) {
            throw invalid("at most " + MAX_TAGS + " tags per stream, got " + config.getTags().getTagCount());
        }
        for (String tag : config.getTags().getTagList()) {
            if (tag.length() > MAX_TAG_LENGTH) {
                throw invalid("a tag may have at most " + MAX_TAG_LENGTH + " characters, got " + tag.length());
            }
        }
    }

    /**
     * The configuration as the controller stores and returns it: its StreamInfo names the stream (no access
     * operation), an UNKNOWN retention policy is dropped, duplicate tags are removed.
     */
    static StreamConfig normalize(String scope, String stream, StreamConfig config) {
        StreamConfig.Builder b = config.toBuilder().setStreamInfo(streamInfo(scope, stream));
        if (config.getRetentionPolicy().getRetentionType() == RetentionPolicy.RetentionPolicyType.UNKNOWN) {
            b.clearRetentionPolicy();
        }
        b.setTags(Tags.newBuilder().addAllTag(new LinkedHashSet<>(config.getTags().getTagList())));
        return b.build();
    }

    /** @return the configuration of a fixed one-segment internal stream */
    static StreamConfig internalStreamConfig(String scope, String stream, long rolloverSizeBytes) {
        return StreamConfig.newBuilder().setStreamInfo(streamInfo(scope, stream))
                .setScalingPolicy(ScalingPolicy.newBuilder()
                        .setScaleType(ScalingPolicy.ScalingPolicyType.FIXED_NUM_SEGMENTS).setMinNumSegments(1))
                .setTags(Tags.getDefaultInstance())
                .setRolloverSizeBytes(rolloverSizeBytes).build();
    }

    /**
     * Checks a key-value table configuration (Pravega's controller-side checks).
     *
     * @throws StatusRuntimeException INVALID_ARGUMENT naming the bad field
     */
    static void checkKvtConfig(KeyValueTableConfig config) {
        if (config.getPartitionCount() <= 0) {
            throw invalid("partitionCount must be > 0, got " + config.getPartitionCount());
        }
        if (config.getPrimaryKeyLength() <= 0) {
            throw invalid("primaryKeyLength must be > 0, got " + config.getPrimaryKeyLength());
        }
        if (config.getSecondaryKeyLength() < 0) {
            throw invalid("secondaryKeyLength must not be negative, got " + config.getSecondaryKeyLength());
        }
        if (config.getRolloverSizeBytes() < 0) {
            throw invalid("rolloverSizeBytes must not be negative, got " + config.getRolloverSizeBytes());
        }
    }
}
