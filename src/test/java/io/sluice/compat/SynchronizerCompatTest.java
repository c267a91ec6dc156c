package io.sluice.compat;

import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.sluice.state.SynchronizerScenarios;
import io.sluice.table.TableSynchronizerScenarios;

/**
 * The public synchronizers against the REAL Pravega 0.13: the state synchronizer and revisioned stream client on
 * one-segment streams (conditional appends, the mark attribute, truncation), and the table synchronizer on a table
 * segment the client creates itself (delta reads, tombstones, conditional batches), with the same scenarios as the
 * embedded tests, four racing updaters included.
 */
@CompatTest
@Timeout(180)
class SynchronizerCompatTest {
    @RegisterExtension
    static final RealPravegaScope real = new RealPravegaScope("compat-synchronizers");
    private static final AtomicInteger STREAMS = new AtomicInteger();

    private static SynchronizerScenarios.Env env() {
        return new SynchronizerScenarios.Env(real.client, real.scope, what -> {
            String stream = what + "-" + STREAMS.incrementAndGet();
            real.createStream(stream, 1);
            return stream;
        });
    }

    @Test
    void stateSynchronizerInitializeUpdateAndFetch() {
        SynchronizerScenarios.initializeUpdateAndFetch(env());
    }

    @Test
    void fourRacingStateSynchronizersApplyEveryUpdateOnce() throws Exception {
        SynchronizerScenarios.racingUpdatesApplyEveryUpdateOnce(env(), 4, 25);
    }

    @Test
    void stateSynchronizerCompaction() {
        SynchronizerScenarios.compactionTruncatesAndEveryoneStartsFromTheMark(env());
    }

    @Test
    void revisionedStreamClient() {
        SynchronizerScenarios.revisionedStreamClient(env());
    }

    @Test
    void tableSynchronizerInsertGetRemoveAndFetch() {
        TableSynchronizerScenarios.insertGetRemoveAndFetch(real.client, real.scope);
    }

    @Test
    void tableSynchronizerUpdates() {
        TableSynchronizerScenarios.updates(real.client, real.scope);
    }

    @Test
    void tableSynchronizerKeysReadAreConditioned() {
        TableSynchronizerScenarios.keysReadAreConditioned(real.client, real.scope);
    }

    @Test
    void fourRacingTableUpdatersNeverLoseAnIncrement() throws Exception {
        TableSynchronizerScenarios.racingUpdatersNeverLoseAnIncrement(real.client, real.scope, 4, 100);
    }

    @Test
    void tableSynchronizerBadArguments() {
        TableSynchronizerScenarios.badArguments(real.client, real.scope);
    }
}
