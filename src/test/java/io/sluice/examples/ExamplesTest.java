package io.sluice.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.client.SluiceClient;
import io.sluice.errors.NoSuchStreamException;
import io.sluice.stream.EventStreamWriter;
import io.sluice.stream.ScalingPolicy;
import io.sluice.stream.ScopedStream;
import io.sluice.stream.Serializers;
import io.sluice.stream.StreamConfiguration;
import io.sluice.testing.SluiceInject;
import io.sluice.testing.SluiceTest;
import io.sluice.testing.TestScope;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Runs each example of {@code examples/} against the embedded server and checks what it did. */
@SluiceTest
@Timeout(120)
class ExamplesTest {

    @SluiceInject
    SluiceClient client;

    @Test
    void theFollowerPrintsWhatIsWrittenAfterItStartsAndNothingBefore(@TestScope String scope) throws Exception {
        client.streamManager().createStream(scope, "log", StreamConfiguration.builder()
                .scalingPolicy(ScalingPolicy.fixed(2)).build());
        try (EventStreamWriter<String> w = client.newWriter(scope, "log", Serializers.utf8())) {
            w.write("k", "before");
            w.flush();
            LinkedBlockingQueue<String> printed = new LinkedBlockingQueue<>();
            AtomicBoolean keepGoing = new AtomicBoolean(true);
            CompletableFuture<Void> running;
            String group;
            try (Follower follower = new Follower(client, ScopedStream.of(scope, "log"))) {
                group = follower.group();
                running = CompletableFuture.runAsync(() -> follower.run(printed::add, keepGoing::get),
                        r -> Thread.ofVirtual().start(r));
                List<String> written = new ArrayList<>();
                for (int i = 0; i < 20; i++) {
                    written.add("line-" + i);
                    w.write("k", "line-" + i);
                }
                w.flush();
                List<String> seen = new ArrayList<>();
                while (seen.size() < written.size()) {
                    String next = printed.poll(30, TimeUnit.SECONDS);
                    assertThat(next).as("the follower printed " + seen + " only").isNotNull();
                    seen.add(next);
                }
                assertThat(seen).containsExactlyElementsOf(written);
                keepGoing.set(false);
                running.get(30, TimeUnit.SECONDS);
            }
            assertThatThrownBy(() -> client.readerGroupManager(scope).readerGroup(group))
                    .as("the follower's group, deleted when it closed").isInstanceOf(NoSuchStreamException.class);
        }
    }

    @Test
    void theWordCountGivesTheSameCountsAfterAResetToItsCheckpoint(@TestScope String scope) {
        WordCount.Result result = WordCount.run(client, scope, "lines");
        Map<String, Long> expected = new TreeMap<>();
        for (String line : WordCount.TEXT) {
            for (String word : line.toLowerCase(Locale.ROOT).split("\\s+")) {
                expected.merge(word, 1L, Long::sum);
            }
        }
        assertThat(result.counts()).isEqualTo(expected);
        assertThat(result.afterReset()).isEqualTo(expected);
        assertThat(result.checkpoint()).isEqualTo("half");
    }

    @Test
    void onlyTheCommittedTransactionsEventsAreRead(@TestScope String scope) {
        List<String> seen = Transactions.run(client, scope, "transfers");
        assertThat(seen).containsExactlyInAnyOrder("alice -10", "bob +10");
    }

    @Test
    void theKeyValueTableRefusesTheStaleUpdate(@TestScope String scope) {
        List<String> log = KeyValueTables.run(client, scope, "balances");
        assertThat(log).hasSize(5);
        assertThat(log.get(0)).startsWith("alice has 10000 cents at version ");
        assertThat(log.get(1)).startsWith("alice paid 3000, now at version ");
        assertThat(log.get(2)).startsWith("the stale update was refused: ");
        assertThat(log.get(3)).isEqualTo("accounts: [alice, bob]");
        assertThat(log.get(4)).isEqualTo("alice has 7000 cents");
    }
}
