package io.sluice.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.TreeMap;

import io.sluice.admin.StreamManager;
import io.sluice.auth.BasicCredentials;
import io.sluice.segment.ScriptedSegmentStore;
import io.sluice.server.EmbeddedServer;
import io.sluice.server.auth.AccessLevel;
import io.sluice.server.auth.DelegationTokens;
import io.sluice.server.controller.PasswordFile;
import io.sluice.stream.EventStreamWriter;
import io.sluice.stream.ScalingPolicy;
import io.sluice.stream.Segment;
import io.sluice.stream.SegmentWithRange;
import io.sluice.stream.Serializers;
import io.sluice.stream.StreamConfiguration;
import io.sluice.stream.StreamCut;
import io.sluice.wire.Request;
import io.sluice.wire.WrongHost;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code StreamManager.streamInfo} asks the segment stores for the tail of every segment: it follows a segment that
 * moved and refreshes a delegation token that expired, as every other segment request does (before the segment-call
 * layer it did neither, and failed).
 */
@Timeout(60)
class StreamInfoFailoverTest {
    @TempDir
    Path dir;

    /** @return a segment store that answers every request with WrongHost: where a segment used to be */
    static ScriptedSegmentStore wrongHostStore() throws IOException {
        return new ScriptedSegmentStore((conn, request, peer) ->
                peer.send(new WrongHost(((Request) request).requestId(), "", "", "")));
    }

    /** Creates shop/orders with two segments, writes to both; @return its tail, read from the segment store */
    private static StreamCut writeSomeEvents(EmbeddedServer server, ClientConfig config) {
        try (SluiceClient client = SluiceClient.connect(config)) {
            StreamManager streams = client.streamManager();
            streams.createScope("shop");
            streams.createStream("shop", "orders", StreamConfiguration.builder()
                    .scalingPolicy(ScalingPolicy.fixed(2)).build());
            try (EventStreamWriter<String> writer = client.newWriter("shop", "orders", Serializers.utf8())) {
                for (int i = 0; i < 20; i++) {
                    writer.write("key-" + i, "event " + i);
                }
                writer.flush();
            }
            Map<Segment, Long> tail = new TreeMap<>();
            for (SegmentWithRange range : streams.currentSegments("shop", "orders")) {
                Segment s = range.segment();
                tail.put(s, server.segmentStore().segmentInfo(s.qualifiedName()).orElseThrow().length());
            }
            assertThat(tail.values()).as("both segments have events").allSatisfy(l -> assertThat(l).isPositive());
            return StreamCut.of(tail);
        }
    }

    @Test
    void streamInfoFollowsASegmentThatMoved() throws Exception {
        try (EmbeddedServer server = EmbeddedServer.builder().inMemory().build();
             ScriptedSegmentStore old = wrongHostStore();
             ReroutingController controller = new ReroutingController(server)) {
            StreamCut tail = writeSomeEvents(server, ClientConfig.of(server.controllerUri()));
            controller.misroute("orders", old.endpoint(), 1);

            try (SluiceClient client = SluiceClient.connect(controller.uri())) {
                assertThat(client.streamManager().streamInfo("shop", "orders").tail()).isEqualTo(tail);
            }
            assertThat(old.received()).as("one request went to the old segment store").hasSize(1);
            assertThat(controller.uriCalls("orders")).as("two segments, and the moved one asked about again")
                    .isEqualTo(3);
        }
    }

    @Test
    void streamInfoRefreshesAnExpiredDelegationToken() throws Exception {
        Path users = dir.resolve("users");
        Files.writeString(users, PasswordFile.entry("admin", "pw".toCharArray(), "prn::*,READ_UPDATE", 1) + "\n");
        byte[] secret = DelegationTokens.randomSecret();
        try (EmbeddedServer server = EmbeddedServer.builder().inMemory().passwordFile(users)
                .delegationTokens(new DelegationTokens(secret, DelegationTokens.DEFAULT_LIFETIME, Clock.systemUTC()))
                .build();
             ReroutingController controller = new ReroutingController(server)) {
            BasicCredentials admin = new BasicCredentials("admin", "pw");
            StreamCut tail = writeSomeEvents(server, ClientConfig.builder(server.controllerUri()).credentials(admin)
                    .build());
            // a token the segment store will find expired (validly signed, an hour ago)
            Clock anHourAgo = Clock.fixed(Instant.now().minus(Duration.ofHours(1)), ZoneOffset.UTC);
            controller.currentSegmentsToken(new DelegationTokens(secret, Duration.ofMinutes(1), anHourAgo)
                    .create("admin", "shop/orders", AccessLevel.READ));

            try (SluiceClient client = SluiceClient.connect(ClientConfig.builder(controller.uri()).credentials(admin)
                    .build())) {
                assertThat(client.streamManager().streamInfo("shop", "orders").tail()).isEqualTo(tail);
            }
            assertThat(controller.delegationTokenCalls()).as("one refresh serves both segments").isEqualTo(1);
        }
    }
}
