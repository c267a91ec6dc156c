package io.sluice.server.controller;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.Predicate;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.sluice.controller.grpc.v1.StreamConfig;
import io.sluice.errors.NoSuchSegmentException;

/**
 * What every part of the controller ({@link ControllerCore}'s {@code Scopes}, {@code Streams}, {@code Scaling},
 * {@code Transactions}...) shares: the {@link Journal} (metadata), the per-entity {@link SerialExecutors} keys, the
 * segment store ({@link SegmentAdmin}), the clock and the settings, plus the few helpers more than one part needs.
 *
 * <p>Changes to one stream (with its watermark stream), reader group, key-value table or scope run one at a time on
 * that entity's key: {@link #streamKey}, {@link #readerGroupKey}, {@link #kvtKey}, {@link #scopeKey}.
 * Thread-safe.
 */
record ControllerContext(Journal journal, SerialExecutors executors, SegmentAdmin admin, Clock clock,
                         ControllerSettings settings) {
    private static final Logger LOG = LoggerFactory.getLogger(ControllerContext.class);

    // ---------------------------------------------------------------- keys

    /** A stream and its watermark stream {@code _MARK<stream>} share one key. */
    static String streamKey(String scope, String stream) {
        String base = stream.startsWith(Names.MARK_STREAM_PREFIX)
                ? stream.substring(Names.MARK_STREAM_PREFIX.length()) : stream;
        return "stream:" + scope + "/" + base;
    }

    /** A reader group's key is that of its state stream {@code _RG<group>}. */
    static String readerGroupKey(String scope, String readerGroup) {
        return streamKey(scope, Names.readerGroupStream(readerGroup));
    }

    static String kvtKey(String scope, String kvt) {
        return "kvt:" + scope + "/" + kvt;
    }

    static String scopeKey(String scope) {
        return "scope:" + scope;
    }

    /** Runs the task on the key's serial executor and waits for it. */
    <T> T onKey(String key, Callable<T> task) {
        return SerialExecutors.await(executors.submit(key, task));
    }

    // ---------------------------------------------------------------- helpers

    /** @return one page of the names after {@code token} that pass the filter, and the next token */
    ControllerCore.Page page(Iterable<String> sortedNames, String token, Predicate<String> filter) {
        List<String> names = new ArrayList<>();
        String last = token;
        for (String name : sortedNames) {
            if (!token.isEmpty() && name.compareTo(token) <= 0) {
                continue;
            }
            if (names.size() == settings.pageSize()) {
                break;
            }
            last = name;
            if (filter.test(name)) {
                names.add(name);
            }
        }
        return new ControllerCore.Page(names, last);
    }

    /** @throws io.grpc.StatusRuntimeException NOT_FOUND if the stream does not exist */
    static StreamMeta requireStream(ControllerModel m, String scope, String stream) {
        StreamMeta s = m.stream(scope, stream);
        if (s == null) {
            throw Protos.notFound("stream " + Names.scoped(scope, stream) + " does not exist");
        }
        return s;
    }

    /** Creates a segment of a stream with the stream's scaling policy and rollover size. */
    void createStreamSegment(String name, StreamConfig config) {
        admin.createSegment(name, (byte) config.getScalingPolicy().getScaleTypeValue(),
                config.getScalingPolicy().getTargetRate(), config.getRolloverSizeBytes());
    }

    /** Seals a segment; one that does not exist is logged and skipped. */
    void sealSegment(String name) {
        try {
            admin.sealSegment(name);
        } catch (NoSuchSegmentException e) {
            LOG.warn("segment {} should be sealed but does not exist", name);
        }
    }
}
