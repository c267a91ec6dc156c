package io.sluice.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.sluice.client.SluiceClient;
import io.sluice.errors.DeadlineExceededException;
import io.sluice.errors.NoSuchStreamException;
import io.sluice.testing.SluiceInject;
import io.sluice.testing.SluiceTest;
import io.sluice.stream.ScalingPolicy;
import io.sluice.stream.Serializers;
import io.sluice.stream.StreamConfiguration;

/** The public state synchronizer and revisioned stream client against the embedded server. */
@Timeout(120)
@SluiceTest
class StateSynchronizerApiTest {
    private static final String SCOPE = "syncscope";
    private static final AtomicInteger STREAMS = new AtomicInteger();
    @SluiceInject
    private static SluiceClient client;
    private static SynchronizerScenarios.Env env;

    @BeforeAll
    static void start() {
        client.streamManager().createScope(SCOPE);
        env = new SynchronizerScenarios.Env(client, SCOPE, what -> {
            String stream = what + "-" + STREAMS.incrementAndGet();
            client.streamManager().createStream(SCOPE, stream, StreamConfiguration.builder()
                    .scalingPolicy(ScalingPolicy.fixed(1)).build());
            return stream;
        });
    }

    @Test
    void initializeUpdateAndFetch() {
        SynchronizerScenarios.initializeUpdateAndFetch(env);
    }

    @Test
    void fourRacingSynchronizersApplyEveryUpdateOnce() throws Exception {
        SynchronizerScenarios.racingUpdatesApplyEveryUpdateOnce(env, 4, 50);
    }

    @Test
    void compactionTruncatesAndEveryoneStartsFromTheMark() {
        SynchronizerScenarios.compactionTruncatesAndEveryoneStartsFromTheMark(env);
    }

    @Test
    void revisionedStreamClient() {
        SynchronizerScenarios.revisionedStreamClient(env);
    }

    @Test
    void badArguments() {
        assertThatThrownBy(() -> client.newStateSynchronizer(SCOPE, "missing", SynchronizerScenarios.APPENDS,
                Serializers.utf8())).isInstanceOf(NoSuchStreamException.class);
        assertThatThrownBy(() -> client.newRevisionedStreamClient(SCOPE, "missing", Serializers.utf8()))
                .isInstanceOf(NoSuchStreamException.class);
        String stream = env.newStream().apply("args");
        assertThatThrownBy(() -> client.newStateSynchronizer(SCOPE, stream, null, Serializers.utf8()))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("updateSerializer");
        assertThatThrownBy(() -> client.newStateSynchronizer(SCOPE, stream, SynchronizerScenarios.APPENDS, null))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("initialSerializer");
        assertThatThrownBy(() -> client.newRevisionedStreamClient(SCOPE, stream, null))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("serializer");
        try (StateSynchronizer<String, SynchronizerScenarios.Append> s = env.sync(stream)) {
            assertThatThrownBy(() -> s.compact(x -> x)).isInstanceOf(IllegalStateException.class);
            assertThatThrownBy(() -> s.updateState(null)).isInstanceOf(NullPointerException.class);
            assertThatThrownBy(() -> s.updateStateUnconditionally(List.of()))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at least one update");
        }
        try (RevisionedStreamClient<String> log = env.log(stream)) {
            assertThatThrownBy(() -> log.writeConditionally(null, "x")).isInstanceOf(NullPointerException.class);
            assertThatThrownBy(() -> log.writeUnconditionally(null)).isInstanceOf(NullPointerException.class);
            log.close();
            assertThatThrownBy(() -> log.writeUnconditionally("x")).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("closed");
        }
    }

    @Test
    void anUpdateThatLosesEveryRaceGivesUpAfterTheUpdateTimeout() {
        String stream = env.newStream().apply("timeout");
        SynchronizerConfig quick = new SynchronizerConfig(Duration.ofMillis(200));
        try (StateSynchronizer<String, SynchronizerScenarios.Append> loser = client.newStateSynchronizer(SCOPE, stream,
                SynchronizerScenarios.APPENDS, Serializers.utf8(), quick);
             StateSynchronizer<String, SynchronizerScenarios.Append> winner = env.sync(stream)) {
            loser.initialize("");
            AtomicInteger calls = new AtomicInteger();
            assertThatThrownBy(() -> loser.updateState(s -> {
                calls.incrementAndGet();
                winner.updateState(w -> List.of(new SynchronizerScenarios.Append("winner")));
                return List.of(new SynchronizerScenarios.Append("loser"));
            })).isInstanceOf(DeadlineExceededException.class).hasMessageContaining("lost");
            assertThat(calls.get()).isGreaterThan(1);
            loser.fetchUpdates();
            assertThat(SynchronizerScenarios.items(loser.state())).containsOnlyKeys("winner")
                    .containsEntry("winner", calls.get());
        }
        assertThatThrownBy(() -> new SynchronizerConfig(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("positive");
        assertThatThrownBy(() -> new SynchronizerConfig(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> client.newStateSynchronizer(SCOPE, stream, SynchronizerScenarios.APPENDS,
                Serializers.utf8(), null)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("synchronizerConfig");
    }

    @Test
    void revisionsAndTheirTextForm() {
        Revision r = Revision.of("s/t/0.#epoch.0", 42);
        assertThat(r.toString()).isEqualTo("s/t/0.#epoch.0:42:0");
        assertThat(Revision.fromString("s/t/0.#epoch.0:42:0")).isEqualTo(r).hasSameHashCodeAs(r);
        assertThat(Revision.of("s/t/0.#epoch.0", 43)).isGreaterThan(r);
        assertThatThrownBy(() -> Revision.of("s/t/0.#epoch.0", -1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("negative");
        assertThatThrownBy(() -> Revision.of("", 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Revision.fromString("s/t/0:x:0")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("numbers");
        assertThatThrownBy(() -> Revision.fromString("nothing")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not a revision");
    }
}
