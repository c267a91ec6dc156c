package io.sluice.server.controller;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.sluice.server.controller.ControllerModel.KvtMeta;
import io.sluice.server.controller.ControllerModel.KvtState;
import io.sluice.server.controller.ControllerModel.ReaderGroupMeta;
import io.sluice.server.controller.ControllerModel.ScopeMeta;

import static io.sluice.server.controller.ControllerContext.kvtKey;
import static io.sluice.server.controller.ControllerContext.readerGroupKey;
import static io.sluice.server.controller.ControllerContext.scopeKey;
import static io.sluice.server.controller.ControllerContext.streamKey;

/**
 * After a restart, finishes what the replayed journal shows as begun but not done, each on its entity's key, with
 * the same steps the parts run the first time (all of them idempotent). Thread-safe.
 */
final class Recovery {
    private static final Logger LOG = LoggerFactory.getLogger(Recovery.class);

    private final ControllerContext ctx;
    private final Scopes scopes;
    private final Streams streams;
    private final Scaling scaling;
    private final Truncation truncation;
    private final TxnCompletion completion;
    private final ReaderGroups readerGroups;
    private final KeyValueTables kvts;

    Recovery(ControllerContext ctx, Scopes scopes, Streams streams, Scaling scaling, Truncation truncation,
             TxnCompletion completion, ReaderGroups readerGroups, KeyValueTables kvts) {
        this.ctx = ctx;
        this.scopes = scopes;
        this.streams = streams;
        this.scaling = scaling;
        this.truncation = truncation;
        this.completion = completion;
        this.readerGroups = readerGroups;
        this.kvts = kvts;
    }

    /**
     * Finishes, in the background, everything the replayed log shows as begun but not done: stream creations,
     * scales, rolling transactions, truncations, seals, deletions, commits and aborts, reader group, table and
     * recursive scope deletions.
     *
     * @return futures of the submitted work
     */
    List<CompletableFuture<?>> resumeUnfinishedWork() {
        record Work(String key, String what, Callable<Object> task) {
        }
        List<Work> work = ctx.journal().read(m -> {
            List<Work> list = new ArrayList<>();
            for (ScopeMeta scope : m.scopes().values()) {
                String sc = scope.name;
                for (StreamMeta s : scope.streams.values()) {
                    String st = s.name;
                    String key = streamKey(sc, st);
                    if (s.state == StreamMeta.State.CREATING) {
                        list.add(new Work(key, "creating " + st, () -> {
                            streams.resumeStreamCreation(sc, st);
                            return null;
                        }));
                    }
                    if (s.scale != null) {
                        list.add(new Work(key, "scaling " + st, () -> {
                            scaling.finishScale(sc, st);
                            return null;
                        }));
                    }
                    if (s.pendingTruncation != null) {
                        list.add(new Work(key, "truncating " + st, () -> {
                            truncation.finishTruncation(sc, st);
                            return null;
                        }));
                    }
                    boolean committing = s.rolling != null
                            || s.txns.values().stream().anyMatch(t -> t.state() == TxnPhase.COMMITTING);
                    if (committing) {
                        list.add(new Work(key, "committing transactions of " + st, () -> {
                            completion.processCommits(sc, st);
                            return null;
                        }));
                    }
                    if (s.txns.values().stream().anyMatch(t -> t.state() == TxnPhase.ABORTING)) {
                        list.add(new Work(key, "aborting transactions of " + st, () -> {
                            completion.processAborts(sc, st);
                            return null;
                        }));
                    }
                    if (s.state == StreamMeta.State.SEALING) {
                        list.add(new Work(key, "sealing " + st, () -> streams.sealInternal(sc, st)));
                    }
                    if (s.state == StreamMeta.State.DELETING) {
                        list.add(new Work(key, "deleting " + st, () -> streams.deleteInternal(sc, st)));
                    }
                }
                for (ReaderGroupMeta rg : scope.readerGroups.values()) {
                    if (rg.deleting) {
                        list.add(new Work(readerGroupKey(sc, rg.name), "deleting reader group " + rg.name,
                                () -> readerGroups.finishReaderGroupDeletion(sc, rg.name, "")));
                    }
                }
                for (KvtMeta kvt : scope.kvts.values()) {
                    String key = kvtKey(sc, kvt.name);
                    if (kvt.state == KvtState.CREATING) {
                        list.add(new Work(key, "creating table " + kvt.name, () -> {
                            kvts.finishKvtCreation(sc, kvt.name);
                            return null;
                        }));
                    } else if (kvt.state == KvtState.DELETING) {
                        list.add(new Work(key, "deleting table " + kvt.name,
                                () -> kvts.finishKvtDeletion(sc, kvt.name)));
                    }
                }
                if (scope.deleting) {
                    list.add(new Work(scopeKey(sc), "deleting scope " + sc, () -> scopes.finishScopeDeletion(sc)));
                }
            }
            return list;
        });
        List<CompletableFuture<?>> futures = new ArrayList<>();
        for (Work w : work) {
            LOG.info("resuming unfinished work: {}", w.what());
            futures.add(ctx.executors().submit(w.key(), w.task())
                    .whenComplete((v, e) -> logFailure(e, "resuming " + w.what())));
        }
        return futures;
    }

    private static void logFailure(Throwable e, String what) {
        if (e != null) {
            LOG.error("{} failed", what, e);
        }
    }
}
