package io.sluice.compat;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.sluice.common.Json;
import io.sluice.compat.BothServers.Target;
import io.sluice.state.Revision;
import io.sluice.state.RevisionedStreamClient;
import io.sluice.state.StateSynchronizer;
import io.sluice.state.SynchronizerScenarios;
import io.sluice.state.SynchronizerScenarios.Append;
import io.sluice.stream.Serializers;

/**
 * Interop of Sluice's {@link StateSynchronizer} and {@link RevisionedStreamClient} with the OFFICIAL client's
 * ({@code compat/official-client.sh sync-interop}) both ways, on the real Pravega 0.13 and on Sluice's embedded
 * server: each reads the state and the values the other wrote (through a compaction), continues the same log with
 * conditional writes, and both name revisions and marks with the same text.
 */
@CompatTest
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class SynchronizerInteropCompatTest {
    private static final Duration DRIVER_TIMEOUT = Duration.ofMinutes(3);
    private static final int UPDATES = 5;

    @RegisterExtension
    @Order(1)
    static final RealPravegaScope real = new RealPravegaScope("compat-sync-interop");
    @RegisterExtension
    @Order(2) // after the scope it uses
    static final BothServersExtension both = new BothServersExtension(real);

    private static Map<String, Object> driver(Target t, String stream, String role) throws Exception {
        OfficialClient.Result result = OfficialClient.run("sync-" + role + "-" + stream,
                List.of("sync-interop", "--role", role, "--controller", t.controllerUri(), "--scope", t.scope(),
                        "--stream", stream, "--events", Integer.toString(UPDATES),
                        "--timeout-seconds", Long.toString(DRIVER_TIMEOUT.toSeconds())),
                DRIVER_TIMEOUT.plusSeconds(60));
        String context = "official client sync-interop --role " + role + " x " + t.name() + ": " + result.describe();
        assertThat(result.exitCode()).as(context).isZero();
        Map<String, Object> json = Json.parseObject(result.json());
        assertThat(json.get("ok")).as(context).isEqualTo(true);
        @SuppressWarnings("unchecked")
        Map<String, Object> part = (Map<String, Object>) json.get("sync-interop");
        assertThat(part.get("ok")).as(context).isEqualTo(true);
        return part;
    }

    private static StateSynchronizer<String, Append> sync(Target t, String stream) {
        return t.client().newStateSynchronizer(t.scope(), stream, SynchronizerScenarios.APPENDS, Serializers.utf8());
    }

    private static RevisionedStreamClient<String> log(Target t, String stream) {
        return t.client().newRevisionedStreamClient(t.scope(), stream + "-rev", Serializers.utf8());
    }

    private static List<Map.Entry<Revision, String>> all(RevisionedStreamClient<String> log) {
        List<Map.Entry<Revision, String>> out = new ArrayList<>();
        Iterator<Map.Entry<Revision, String>> it = log.readFrom(log.fetchOldestRevision());
        it.forEachRemaining(out::add);
        return out;
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"real", "embedded"})
    void sluiceWritesTheOfficialClientReadsAndContinues(String server) throws Exception {
        Target target = both.servers().target(server);
        String stream = "from-sluice";
        target.createStream(stream);
        target.createStream(stream + "-rev");
        try (StateSynchronizer<String, Append> s = sync(target, stream);
             RevisionedStreamClient<String> log = log(target, stream)) {
            s.initialize("sluice-init");
            for (int i = 0; i < UPDATES; i++) {
                String item = "sluice:" + i;
                s.updateState(state -> List.of(new Append(item)));
            }
            s.updateStateUnconditionally(new Append("sluice-unconditional"));
            s.compact(state -> state);
            s.updateState(state -> List.of(new Append("sluice-after-compact")));
            String written = s.state();

            List<String> values = new ArrayList<>();
            List<String> revisions = new ArrayList<>();
            Revision r = log.fetchLatestRevision();
            for (int i = 0; i < UPDATES; i++) {
                r = log.writeConditionally(r, "sluice-rev:" + i);
                values.add("sluice-rev:" + i);
                revisions.add(r.toString());
            }
            log.writeUnconditionally("sluice-rev-unconditional");
            values.add("sluice-rev-unconditional");
            revisions.add(log.fetchLatestRevision().toString());
            assertThat(log.compareAndSetMark(null, Revision.fromString(revisions.get(0)))).isTrue();

            Map<String, Object> part = driver(target, stream, "read");
            assertThat(part.get("state")).as("the state the official client read").isEqualTo(written);
            assertThat(part.get("revision")).as("its revision").isEqualTo(s.revision().toString());
            s.fetchUpdates();
            assertThat(s.state()).as("Sluice applies the official client's update").isEqualTo(written
                    + ",official-read").isEqualTo(part.get("state_after"));
            assertThat(s.revision().toString()).isEqualTo(part.get("revision_after"));

            assertThat(part.get("values")).as("the values the official client read").isEqualTo(values);
            assertThat(part.get("revisions")).isEqualTo(revisions);
            assertThat(part.get("rev_mark")).isEqualTo(revisions.get(0));
            List<Map.Entry<Revision, String>> after = all(log);
            assertThat(after.get(after.size() - 1)).isEqualTo(Map.entry(
                    Revision.fromString((String) part.get("rev_written")), "official-rev-read"));
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"real", "embedded"})
    void theOfficialClientWritesSluiceReadsAndContinues(String server) throws Exception {
        Target target = both.servers().target(server);
        String stream = "from-official";
        target.createStream(stream);
        target.createStream(stream + "-rev");
        Map<String, Object> part = driver(target, stream, "write");
        StringBuilder want = new StringBuilder("official-init");
        for (int i = 0; i < UPDATES; i++) {
            want.append(",official:").append(i);
        }
        want.append(",official-unconditional,official-after-compact");
        assertThat(part.get("state")).isEqualTo(want.toString());
        try (StateSynchronizer<String, Append> s = sync(target, stream);
             RevisionedStreamClient<String> log = log(target, stream)) {
            s.fetchUpdates();
            assertThat(s.state()).as("the state Sluice read from the official client's log").isEqualTo(want.toString());
            assertThat(s.revision().toString()).isEqualTo(part.get("revision"));
            assertThat(s.bytesWrittenSinceCompaction()).isEqualTo(((Number) part.get("bytes_since_compaction"))
                    .longValue());
            assertThat(s.updateState(state -> List.of(new Append("sluice-read")))).isEqualTo(want + ",sluice-read");
            try (StateSynchronizer<String, Append> again = sync(target, stream)) {
                again.fetchUpdates();
                assertThat(again.state()).isEqualTo(want + ",sluice-read");
            }

            @SuppressWarnings("unchecked")
            List<String> revisions = (List<String>) part.get("revisions");
            List<Map.Entry<Revision, String>> read = all(log);
            assertThat(read).hasSize(UPDATES + 1);
            for (int i = 0; i < UPDATES; i++) {
                assertThat(read.get(i).getValue()).isEqualTo("official-rev:" + i);
                assertThat(read.get(i).getKey().toString()).isEqualTo(revisions.get(i));
            }
            assertThat(read.get(UPDATES).getValue()).isEqualTo("official-rev-unconditional");
            assertThat(log.fetchLatestRevision().toString()).isEqualTo(part.get("rev_latest"));
            assertThat(String.valueOf(log.getMark())).isEqualTo(part.get("rev_mark")).isEqualTo(revisions.get(0));
            Revision stale = Revision.fromString(revisions.get(UPDATES - 1));
            assertThat(log.writeConditionally(stale, "stale")).as("the unconditional write moved the end").isNull();
            Revision mine = log.writeConditionally(log.fetchLatestRevision(), "sluice-rev-read");
            assertThat(mine).isNotNull();
            assertThat(log.compareAndSetMark(Revision.fromString(revisions.get(0)), mine)).isTrue();
        }
    }
}
