package io.sluice.client;

import java.util.Map;
import java.util.Objects;

import io.sluice.admin.ReaderGroup;
import io.sluice.admin.ReaderGroupManager;
import io.sluice.controller.ControllerClient;
import io.sluice.errors.AlreadyExistsException;
import io.sluice.errors.NoSuchStreamException;
import io.sluice.segment.SegmentStores;
import io.sluice.stream.Names;
import io.sluice.stream.ReaderGroupConfig;
import io.sluice.stream.ScopedStream;
import io.sluice.stream.StreamCut;

/** Reader groups of one scope: registered with the controller, state in {@code _RG<group>}. Thread-safe. */
final class ReaderGroupManagerImpl implements ReaderGroupManager {
    private final String scope;
    private final ControllerClient controller;
    private final SegmentStores stores;

    ReaderGroupManagerImpl(String scope, ControllerClient controller, SegmentStores stores) {
        this.scope = Names.validateName("scope", scope);
        this.controller = controller;
        this.stores = stores;
    }

    @Override
    public ReaderGroup createReaderGroup(String group, ReaderGroupConfig config) {
        Names.validateReaderGroup(group);
        Objects.requireNonNull(config, "config");
        for (Map.Entry<ScopedStream, StreamCut> e : config.startingStreamCuts().entrySet()) {
            StreamCut cut = e.getValue();
            if (!cut.isUnbounded() && !controller.isStreamCutValid(e.getKey(), cut)) {
                throw new IllegalArgumentException("starting stream cut " + cut + " of reader group " + scope + "/"
                        + group + " is not a valid cut of stream " + e.getKey());
            }
        }
        for (ScopedStream stream : config.startingStreamCuts().keySet()) {
            controller.headStreamCut(stream);   // NoSuchStreamException before anything is registered
        }
        ReaderGroupConfig stored = controller.createReaderGroup(scope, group, config);
        String difference = difference(stored, config);
        if (difference != null) {
            throw new AlreadyExistsException("reader group " + scope + "/" + group + " already exists with another "
                    + "configuration (" + difference + ")");
        }
        return new ReaderGroupImpl(scope, group, stored, GroupStateClient.open(scope, group, controller, stores),
                controller, stores);
    }

    /** @return what differs between two configurations (ignoring the controller-assigned id and generation) */
    private static String difference(ReaderGroupConfig a, ReaderGroupConfig b) {
        if (!a.startingStreamCuts().equals(b.startingStreamCuts())) {
            return "starting stream cuts " + a.startingStreamCuts() + " vs " + b.startingStreamCuts();
        }
        if (!a.endingStreamCuts().equals(b.endingStreamCuts())) {
            return "ending stream cuts " + a.endingStreamCuts() + " vs " + b.endingStreamCuts();
        }
        if (a.groupRefreshTimeMillis() != b.groupRefreshTimeMillis()) {
            return "refresh " + a.groupRefreshTimeMillis() + " vs " + b.groupRefreshTimeMillis() + " ms";
        }
        if (a.automaticCheckpointIntervalMillis() != b.automaticCheckpointIntervalMillis()) {
            return "checkpoint interval " + a.automaticCheckpointIntervalMillis() + " vs "
                    + b.automaticCheckpointIntervalMillis() + " ms";
        }
        if (a.maxOutstandingCheckpointRequest() != b.maxOutstandingCheckpointRequest()) {
            return "outstanding checkpoints " + a.maxOutstandingCheckpointRequest() + " vs "
                    + b.maxOutstandingCheckpointRequest();
        }
        if (a.retentionType() != b.retentionType()) {
            return "retention " + a.retentionType() + " vs " + b.retentionType();
        }
        return null;
    }

    @Override
    public ReaderGroup readerGroup(String group) {
        Names.validateReaderGroup(group);
        ReaderGroupConfig config = controller.readerGroupConfig(scope, group);
        return new ReaderGroupImpl(scope, group, config, GroupStateClient.open(scope, group, controller, stores),
                controller, stores);
    }

    @Override
    public boolean deleteReaderGroup(String group) {
        Names.validateReaderGroup(group);
        ReaderGroupConfig config;
        try {
            config = controller.readerGroupConfig(scope, group);
        } catch (NoSuchStreamException e) {
            return false;
        }
        return controller.deleteReaderGroup(scope, group, config.readerGroupId());
    }

    @Override
    public String toString() {
        return "ReaderGroupManager[" + scope + "]";
    }
}
