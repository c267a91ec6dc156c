package io.sluice.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import io.sluice.admin.ReaderGroup;
import io.sluice.auth.AccessOperation;
import io.sluice.auth.BasicCredentials;
import io.sluice.client.ClientConfig;
import io.sluice.client.ClientInternals;
import io.sluice.client.SluiceClient;
import io.sluice.errors.AuthenticationException;
import io.sluice.errors.AuthorizationException;
import io.sluice.errors.SluiceException;
import io.sluice.errors.TokenExpiredException;
import io.sluice.server.auth.AccessLevel;
import io.sluice.server.auth.DelegationTokens;
import io.sluice.server.controller.PasswordFile;
import io.sluice.stream.EventRead;
import io.sluice.stream.EventStreamReader;
import io.sluice.stream.EventStreamWriter;
import io.sluice.stream.ReaderGroupConfig;
import io.sluice.stream.ScalingPolicy;
import io.sluice.stream.ScopedStream;
import io.sluice.stream.Serializers;
import io.sluice.stream.StreamConfiguration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Delegation tokens that expire while a writer writes and a reader reads, and users revoked while their clients run.
 *
 * <ul>
 *   <li>On a server clock the test moves (every token expires at each step, {@value #DEFAULT_LIFETIMES} lifetimes by
 *       default): the segment store refuses the expired tokens, the client fetches new ones and carries on; every
 *       event is read once, in order per key.</li>
 *   <li>On the real clock with a short lifetime (2 s, as {@code --token-lifetime 2s} gives): the client refreshes before expiry
 *       while a writer and a reader run for several lifetimes.</li>
 *   <li>A user removed from the password file, or whose rights shrank, while their client runs: the server reads
 *       the file again, their next token request is refused with a clear error, and their writer fails with an
 *       authentication or authorization error once the token they hold expires, rather than hanging or retrying.</li>
 * </ul>
 * {@code -Dsluice.reliability.full=true} runs more lifetimes (see docs/reliability.md).
 */
@Timeout(180)
class TokenLifetimeTest {
    private static final boolean FULL = Boolean.getBoolean("sluice.reliability.full");
    static final int DEFAULT_LIFETIMES = 10;
    private static final int LIFETIMES = FULL ? 200 : DEFAULT_LIFETIMES;
    private static final int EVENTS_PER_LIFETIME = FULL ? 500 : 200;
    private static final int REAL_LIFETIMES = FULL ? 10 : 3;
    private static final int KEYS = 8;
    private static final Duration LIFETIME = Duration.ofSeconds(30);

    @TempDir
    Path dir;

    private final ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();

    @AfterEach
    void stopThreads() {
        threads.shutdownNow();
    }

    /** The server's clock for tokens: real time plus an offset the test moves forward. */
    static final class SteppedClock extends Clock {
        private final AtomicLong offsetMillis = new AtomicLong();

        void step(Duration by) {
            offsetMillis.addAndGet(by.toMillis());
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return Instant.now().plusMillis(offsetMillis.get());
        }
    }

    private Path passwordFile(String... lines) throws Exception {
        Path file = dir.resolve("users");
        writeAtomically(file, lines);
        return file;
    }

    /** Replaces the file as an editor or a deployment script does: a new file renamed over the old one. */
    private void writeAtomically(Path file, String... lines) throws Exception {
        Path tmp = dir.resolve("users.tmp");
        Files.writeString(tmp, String.join("\n", lines) + "\n");
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    private static String user(String name, String acl) {
        return PasswordFile.entry(name, (name + "-pw").toCharArray(), acl, 1);
    }

    private static SluiceClient connect(EmbeddedServer server, String user) {
        return SluiceClient.connect(ClientConfig.builder(server.controllerUri())
                .credentials(new BasicCredentials(user, user + "-pw")).build());
    }

    private static void createStream(SluiceClient client, ScopedStream stream, int segments) {
        ClientInternals.controller(client).createScope(stream.scope());
        ClientInternals.controller(client).createStream(stream,
                StreamConfiguration.builder().scalingPolicy(ScalingPolicy.fixed(segments)).build());
    }

    /** Reads until {@code expected} events arrived; returns them in the order read. */
    private static List<String> readEvents(EventStreamReader<String> reader, int expected, AtomicBoolean stop) {
        List<String> read = new ArrayList<>();
        while (read.size() < expected && !stop.get()) {
            EventRead<String> e = reader.readNextEvent(Duration.ofMillis(500));
            if (e.event() != null) {
                read.add(e.event());
            }
        }
        return read;
    }

    /** Every event {@code k<key>:<n>} once, in order per key. */
    private static void assertExactlyOnceInKeyOrder(List<String> read, int events) {
        Set<String> seen = new HashSet<>();
        Map<String, Integer> lastPerKey = new HashMap<>();
        for (String e : read) {
            assertThat(seen.add(e)).as("read twice: %s", e).isTrue();
            String[] kn = e.split(":");
            int n = Integer.parseInt(kn[1]);
            Integer last = lastPerKey.put(kn[0], n);
            assertThat(last == null || last < n).as("order of key %s: %s after %s", kn[0], n, last).isTrue();
        }
        assertThat(read).as("every event read").hasSize(events);
    }

    @Test
    void aWriterAndAReaderCarryOnWhileEveryTokenExpiresManyTimes() throws Exception {
        SteppedClock clock = new SteppedClock();
        DelegationTokens tokens = new DelegationTokens(DelegationTokens.randomSecret(), LIFETIME, clock);
        ScopedStream stream = ScopedStream.of("tokens", "stepped");
        int events = LIFETIMES * EVENTS_PER_LIFETIME;
        try (EmbeddedServer server = EmbeddedServer.builder().inMemory()
                .passwordFile(passwordFile(user("admin", "prn::*,READ_UPDATE"))).delegationTokens(tokens).build();
             SluiceClient client = connect(server, "admin")) {
            createStream(client, stream, 2);
            AtomicBoolean stop = new AtomicBoolean();
            try (ReaderGroup group = client.readerGroupManager(stream.scope()).createReaderGroup("g",
                    ReaderGroupConfig.builder().stream(stream).disableAutomaticCheckpoints().build());
                 EventStreamReader<String> reader = client.newReader(stream.scope(), "g", "r", Serializers.utf8());
                 EventStreamWriter<String> writer = client.newWriter(stream.scope(), stream.name(),
                         Serializers.utf8())) {
                Future<List<String>> read = threads.submit(() -> readEvents(reader, events, stop));
                int expired = 0;
                for (int i = 0; i < events; i++) {
                    writer.write("k" + i % KEYS, "k" + i % KEYS + ":" + i);
                    if (i % EVENTS_PER_LIFETIME == EVENTS_PER_LIFETIME - 1) {
                        writer.flush();
                        // every token handed out so far expires now, the writer's and the reader's
                        String before = tokens.create("admin", stream.scope() + "/" + stream.name(),
                                AccessLevel.READ);
                        clock.step(LIFETIME.plusSeconds(1));
                        assertThatThrownBy(() -> tokens.verify(before)).isInstanceOf(TokenExpiredException.class);
                        expired++;
                    }
                }
                writer.flush();
                try {
                    assertExactlyOnceInKeyOrder(read.get(120, TimeUnit.SECONDS), events);
                } finally {
                    stop.set(true);
                }
                assertThat(expired).isEqualTo(LIFETIMES);
            }
        }
    }

    @Test
    void theClientRefreshesShortLivedTokensBeforeTheyExpireWhileItWritesAndReads() throws Exception {
        Duration lifetime = Duration.ofSeconds(2);
        ScopedStream stream = ScopedStream.of("tokens", "short");
        try (EmbeddedServer server = EmbeddedServer.builder().inMemory()
                .passwordFile(passwordFile(user("admin", "prn::*,READ_UPDATE"))).tokenLifetime(lifetime).build();
             SluiceClient client = connect(server, "admin")) {
            createStream(client, stream, 2);
            AtomicBoolean stop = new AtomicBoolean();
            AtomicLong written = new AtomicLong();
            List<String> read;
            try (ReaderGroup group = client.readerGroupManager(stream.scope()).createReaderGroup("g",
                    ReaderGroupConfig.builder().stream(stream).disableAutomaticCheckpoints().build());
                 EventStreamReader<String> reader = client.newReader(stream.scope(), "g", "r", Serializers.utf8());
                 EventStreamWriter<String> writer = client.newWriter(stream.scope(), stream.name(),
                         Serializers.utf8())) {
                Instant first = null;
                Instant until = Instant.now().plus(lifetime.multipliedBy(REAL_LIFETIMES));
                int i = 0;
                while (Instant.now().isBefore(until)) {
                    writer.write("k" + i % KEYS, "k" + i % KEYS + ":" + i).await(Duration.ofSeconds(30));
                    i++;
                    if (first == null) {
                        first = Instant.now();
                    }
                }
                writer.flush();
                written.set(i);
                int events = i;
                read = threads.submit(() -> readEvents(reader, events, stop)).get(120, TimeUnit.SECONDS);
                stop.set(true);
            }
            assertExactlyOnceInKeyOrder(read, (int) written.get());
            assertThat(written.get()).as("events written over %s lifetimes", REAL_LIFETIMES).isPositive();
        }
    }

    /**
     * On the wire: appends carry no token, so the segment store closes the connection at a session's first append
     * after its token expired; the writer's setup with the expired token is refused as expired, with a new one it
     * goes on where the durable appends end.
     */
    @Test
    void theSegmentStoreClosesAnAppendSessionWhoseTokenExpired() throws Exception {
        SteppedClock clock = new SteppedClock();
        DelegationTokens tokens = new DelegationTokens(DelegationTokens.randomSecret(), LIFETIME, clock);
        String segment = "wire/events/0.#epoch.0";
        java.util.UUID writer = java.util.UUID.randomUUID();
        try (EmbeddedServer server = EmbeddedServer.builder().inMemory()
                .passwordFile(passwordFile(user("admin", "prn::*,READ_UPDATE"))).delegationTokens(tokens).build()) {
            String first = tokens.create("admin", "wire/events", AccessLevel.READ_UPDATE);
            try (io.sluice.connection.Connection c = connectRaw(server)) {
                io.sluice.connection.Flow f = c.openFlow();
                assertThat(call(f, id -> new io.sluice.wire.CreateSegment(id, segment, (byte) 0, 0, first, 0)))
                        .isInstanceOf(io.sluice.wire.SegmentCreated.class);
                assertThat(call(f, id -> new io.sluice.wire.SetupAppend(id, writer, segment, first)))
                        .isInstanceOf(io.sluice.wire.AppendSetup.class);
                assertThat(append(c, f, writer, 1, "e1")).isInstanceOf(io.sluice.wire.DataAppended.class);
                clock.step(LIFETIME.plusSeconds(1));
                assertThatThrownBy(() -> append(c, f, writer, 2, "e2")).as("the connection is closed, e2 not taken")
                        .isInstanceOf(io.sluice.errors.ConnectionFailedException.class);
            }
            try (io.sluice.connection.Connection c = connectRaw(server)) {
                io.sluice.connection.Flow f = c.openFlow();
                assertThat(call(f, id -> new io.sluice.wire.SetupAppend(id, writer, segment, first)))
                        .isInstanceOfSatisfying(io.sluice.wire.AuthTokenCheckFailed.class,
                                a -> assertThat(a.isTokenExpired()).isTrue());
                String fresh = tokens.create("admin", "wire/events", AccessLevel.READ_UPDATE);
                io.sluice.wire.AppendSetup setup = (io.sluice.wire.AppendSetup) call(f,
                        id -> new io.sluice.wire.SetupAppend(id, writer, segment, fresh));
                assertThat(setup.lastEventNumber()).isEqualTo(1);
                assertThat(append(c, f, writer, 2, "e2")).isInstanceOf(io.sluice.wire.DataAppended.class);
            }
        }
    }

    private static io.sluice.connection.Connection connectRaw(EmbeddedServer server) {
        return new io.sluice.connection.TcpConnectionFactory().connect(server.segmentStoreEndpoint(),
                io.sluice.common.Deadline.after(Duration.ofSeconds(30)));
    }

    private static io.sluice.wire.Reply call(io.sluice.connection.Flow f,
                                             java.util.function.LongFunction<io.sluice.wire.Request> request) {
        long id = f.nextRequestId();
        f.send(request.apply(id));
        io.sluice.wire.Reply r = f.await(io.sluice.common.Deadline.after(Duration.ofSeconds(30)));
        assertThat(r.requestId()).isEqualTo(id);
        return r;
    }

    private static io.sluice.wire.Reply append(io.sluice.connection.Connection c, io.sluice.connection.Flow f,
                                               java.util.UUID writer, long eventNumber, String event) {
        io.sluice.wire.WireOutput out = new io.sluice.wire.WireOutput();
        long id = f.nextRequestId();
        io.sluice.wire.AppendEncoder.writeBlock(out, writer, List.of(java.nio.ByteBuffer.wrap(
                event.getBytes(java.nio.charset.StandardCharsets.UTF_8))), eventNumber, id);
        c.sendFrames(out.buffer());
        return f.await(io.sluice.common.Deadline.after(Duration.ofSeconds(30)));
    }

    @Test
    void aUserRemovedFromThePasswordFileGetsNoNewTokenAndTheirWriterFailsWithAnAuthError() throws Exception {
        SteppedClock clock = new SteppedClock();
        DelegationTokens tokens = new DelegationTokens(DelegationTokens.randomSecret(), LIFETIME, clock);
        ScopedStream stream = ScopedStream.of("revoke", "events");
        String admin = user("admin", "prn::*,READ_UPDATE");
        Path users = passwordFile(admin, user("alice", "prn::/scope:revoke,READ_UPDATE;prn::/scope:revoke/*,READ_UPDATE"));
        try (EmbeddedServer server = EmbeddedServer.builder().inMemory().passwordFile(users).delegationTokens(tokens)
                .build();
             SluiceClient adminClient = connect(server, "admin");
             SluiceClient alice = connect(server, "alice")) {
            createStream(adminClient, stream, 1);
            EventStreamWriter<String> writer = alice.newWriter(stream.scope(), stream.name(), Serializers.utf8());
            writer.write("k", "k:0").await(Duration.ofSeconds(30));
            assertThat(ClientInternals.controller(alice).delegationToken(stream, AccessOperation.READ_WRITE))
                    .isNotEmpty();

            writeAtomically(users, admin);
            assertThatThrownBy(() -> ClientInternals.controller(alice).delegationToken(stream,
                    AccessOperation.READ_WRITE)).as("the next token request")
                    .isInstanceOf(AuthenticationException.class).hasMessageContaining("wrong credentials");
            // the token she holds is still valid until it expires; then her writer cannot get another
            writer.write("k", "k:1").await(Duration.ofSeconds(30));
            clock.step(LIFETIME.plusSeconds(1));
            assertThatThrownBy(() -> {
                writer.write("k", "k:2");
                writer.flush();
            }).isInstanceOf(AuthenticationException.class).hasMessageContaining("wrong credentials");
            assertThatThrownBy(() -> writer.write("k", "k:3").await(Duration.ofSeconds(30)))
                    .as("the writer stays failed").isInstanceOf(SluiceException.class);
            writer.close();
            // nobody else is affected
            try (EventStreamWriter<String> w = adminClient.newWriter(stream.scope(), stream.name(),
                    Serializers.utf8())) {
                w.write("k", "k:4").await(Duration.ofSeconds(30));
            }
        }
    }

    @Test
    void aUserWhoseWriteRightIsTakenAwayGetsNoWriteTokenAndTheirWriterFailsWithAnAuthorizationError()
            throws Exception {
        SteppedClock clock = new SteppedClock();
        DelegationTokens tokens = new DelegationTokens(DelegationTokens.randomSecret(), LIFETIME, clock);
        ScopedStream stream = ScopedStream.of("rights", "events");
        String admin = user("admin", "prn::*,READ_UPDATE");
        Path users = passwordFile(admin, user("bob", "prn::/scope:rights,READ_UPDATE;prn::/scope:rights/*,READ_UPDATE"));
        try (EmbeddedServer server = EmbeddedServer.builder().inMemory().passwordFile(users).delegationTokens(tokens)
                .build();
             SluiceClient adminClient = connect(server, "admin");
             SluiceClient bob = connect(server, "bob")) {
            createStream(adminClient, stream, 1);
            EventStreamWriter<String> writer = bob.newWriter(stream.scope(), stream.name(), Serializers.utf8());
            writer.write("k", "k:0").await(Duration.ofSeconds(30));

            writeAtomically(users, admin, user("bob", "prn::/scope:rights,READ;prn::/scope:rights/*,READ"));
            assertThatThrownBy(() -> ClientInternals.controller(bob).delegationToken(stream,
                    AccessOperation.READ_WRITE)).isInstanceOf(AuthorizationException.class)
                    .hasMessageContaining("READ_UPDATE");
            assertThat(ClientInternals.controller(bob).delegationToken(stream, AccessOperation.READ))
                    .as("reading is still allowed").isNotEmpty();
            clock.step(LIFETIME.plusSeconds(1));
            assertThatThrownBy(() -> {
                writer.write("k", "k:1");
                writer.flush();
            }).isInstanceOf(AuthorizationException.class).hasMessageContaining("READ_UPDATE");
            writer.close();
        }
    }
}
