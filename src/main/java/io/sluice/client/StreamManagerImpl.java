package io.sluice.client;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

import io.sluice.admin.StreamInfo;
import io.sluice.admin.StreamManager;
import io.sluice.auth.AccessOperation;
import io.sluice.common.Deadline;
import io.sluice.controller.ControllerClient;
import io.sluice.controller.ScaleResult;
import io.sluice.controller.StreamSegments;
import io.sluice.errors.SluiceException;
import io.sluice.segment.DelegationTokenProvider;
import io.sluice.segment.SegmentCalls;
import io.sluice.segment.SegmentMetadataClient;
import io.sluice.stream.EventPointer;
import io.sluice.stream.KeyRange;
import io.sluice.stream.Names;
import io.sluice.stream.ScopedStream;
import io.sluice.stream.Segment;
import io.sluice.stream.SegmentWithRange;
import io.sluice.stream.Serializer;
import io.sluice.stream.StreamConfiguration;
import io.sluice.stream.StreamCut;
import io.sluice.stream.TransactionInfo;

/** {@link StreamManager} over the controller client, plus the segment stores for tail offsets. */
final class StreamManagerImpl implements StreamManager {
    private static final Duration SEGMENT_INFO_TIMEOUT = Duration.ofSeconds(30);

    private final ControllerClient controller;
    private final SegmentCalls calls;
    /** Read tokens per stream, for {@link #fetchEvent}. */
    private final ReadTokens readTokens;

    StreamManagerImpl(ControllerClient controller, SegmentCalls calls) {
        this.controller = controller;
        this.calls = calls;
        this.readTokens = new ReadTokens(controller);
    }

    @Override
    public boolean createScope(String scope) {
        return controller.createScope(scope);
    }

    @Override
    public boolean scopeExists(String scope) {
        return controller.scopeExists(Names.validateName("scope", scope));
    }

    @Override
    public List<String> listScopes() {
        List<String> out = new ArrayList<>();
        controller.scopeIterator().forEachRemaining(out::add);
        return out;
    }

    @Override
    public boolean deleteScope(String scope) {
        return controller.deleteScope(Names.validateName("scope", scope));
    }

    @Override
    public boolean deleteScopeRecursive(String scope) {
        // the controller answers SUCCESS for a missing scope too (Pravega 0.13 does; see ControllerClient)
        if (!controller.scopeExists(Names.validateName("scope", scope))) {
            return false;
        }
        return controller.deleteScopeRecursive(scope);
    }

    @Override
    public boolean createStream(String scope, String stream, StreamConfiguration configuration) {
        Objects.requireNonNull(configuration, "configuration");
        return controller.createStream(ScopedStream.of(scope, stream), configuration);
    }

    @Override
    public void updateStream(String scope, String stream, StreamConfiguration configuration) {
        Objects.requireNonNull(configuration, "configuration");
        controller.updateStream(ScopedStream.of(scope, stream), configuration);
    }

    @Override
    public boolean streamExists(String scope, String stream) {
        return controller.streamExists(ScopedStream.of(scope, stream));
    }

    @Override
    public StreamConfiguration streamConfiguration(String scope, String stream) {
        return controller.streamConfiguration(ScopedStream.of(scope, stream));
    }

    @Override
    public List<String> listStreams(String scope) {
        return names(controller.streamIterator(scope));
    }

    @Override
    public List<String> listStreams(String scope, String tag) {
        return names(controller.streamIterator(scope, tag));
    }

    private static List<String> names(Iterator<ScopedStream> it) {
        List<String> out = new ArrayList<>();
        it.forEachRemaining(s -> {
            if (!s.name().startsWith("_")) {
                out.add(s.name());
            }
        });
        return out;
    }

    @Override
    public StreamInfo streamInfo(String scope, String stream) {
        ScopedStream s = ScopedStream.of(scope, stream);
        StreamConfiguration config = controller.streamConfiguration(s);
        StreamCut head = controller.segmentsAtTime(s, 0);
        StreamSegments current = controller.currentSegments(s);
        if (current.ranges().isEmpty()) {
            return new StreamInfo(s, config, head, StreamCut.UNBOUNDED, true);
        }
        DelegationTokenProvider tokens = DelegationTokenProvider.fromController(controller, s, AccessOperation.READ);
        if (!current.delegationToken().isEmpty()) {
            tokens.offer(current.delegationToken());
        }
        Map<Segment, Long> tail = new TreeMap<>();
        Deadline deadline = Deadline.after(SEGMENT_INFO_TIMEOUT);
        for (Segment segment : current.segments()) {
            SegmentMetadataClient metadata = new SegmentMetadataClient(calls, segment.qualifiedName(), tokens);
            tail.put(segment, metadata.info(deadline).length());
        }
        return new StreamInfo(s, config, head, StreamCut.of(tail), false);
    }

    @Override
    public <T> T fetchEvent(EventPointer pointer, Serializer<T> serializer) {
        Objects.requireNonNull(pointer, "pointer");
        Objects.requireNonNull(serializer, "serializer");
        return new EventFetcher<>(calls, readTokens, serializer).fetch(pointer);
    }

    @Override
    public List<SegmentWithRange> currentSegments(String scope, String stream) {
        return controller.currentSegments(ScopedStream.of(scope, stream)).ranges();
    }

    @Override
    public List<TransactionInfo> listCompletedTransactions(String scope, String stream) {
        return controller.listCompletedTransactions(ScopedStream.of(scope, stream));
    }

    @Override
    public void sealStream(String scope, String stream) {
        controller.sealStream(ScopedStream.of(scope, stream));
    }

    @Override
    public boolean deleteStream(String scope, String stream) {
        return controller.deleteStream(ScopedStream.of(scope, stream));
    }

    @Override
    public void truncateStream(String scope, String stream, StreamCut cut) {
        controller.truncateStream(ScopedStream.of(scope, stream), cut);
    }

    @Override
    public List<SegmentWithRange> scaleStream(String scope, String stream, List<Segment> sealed, List<KeyRange> newRanges) {
        ScopedStream s = ScopedStream.of(scope, stream);
        Objects.requireNonNull(sealed, "sealed");
        Objects.requireNonNull(newRanges, "newRanges");
        ScaleResult result = controller.scale(s, sealed, newRanges);
        if (!result.started()) {
            throw new SluiceException("the controller refused to scale " + s + ": " + whyRefused(s, sealed, newRanges));
        }
        Deadline deadline = Deadline.after(Duration.ofMinutes(5));
        while (!controller.checkScale(s, result.epoch())) {
            deadline.check("scaling " + s);
            try {
                Thread.sleep(Duration.ofMillis(50));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new io.sluice.errors.StreamingInterruptedException("interrupted while scaling " + s, e);
            }
        }
        return result.newSegments();
    }

    /**
     * Names the precondition of a refused scale that fails now, as the controller checks them (Pravega 0.13's
     * {@code PersistentStreamBase.submitScale}): every sealed segment is current, and the stream keeps at least its
     * scaling policy's minimum number of segments. (New ranges that do not cover the sealed ones exactly are a
     * FAILURE, not a refusal.)
     */
    private String whyRefused(ScopedStream s, List<Segment> sealed, List<KeyRange> newRanges) {
        List<Segment> current = controller.currentSegments(s).segments();
        List<Segment> notCurrent = sealed.stream().filter(segment -> !current.contains(segment)).toList();
        if (!notCurrent.isEmpty()) {
            return "segment(s) " + notCurrent + " are not current (sealed by an earlier scale?)";
        }
        int after = current.size() - (int) sealed.stream().distinct().count() + newRanges.size();
        int min = controller.streamConfiguration(s).scalingPolicy().minNumSegments();
        if (after < min) {
            return "it would leave " + after + " segment(s), fewer than the minimum of " + min
                    + " of the stream's scaling policy";
        }
        return "the sealed segments must be current, the new ranges must cover exactly their key ranges, and the "
                + "stream must keep the minimum number of segments of its scaling policy";
    }
}
