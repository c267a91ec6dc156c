package io.sluice.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import io.sluice.client.SluiceClient;
import io.sluice.server.EmbeddedServer;
import io.sluice.stream.EventRead;
import io.sluice.stream.EventStreamReader;
import io.sluice.stream.EventStreamWriter;
import io.sluice.stream.ReaderGroupConfig;
import io.sluice.stream.Serializers;
import io.sluice.stream.StreamConfiguration;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.platform.testkit.engine.EngineExecutionResults;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Event;

/**
 * {@link SluiceExtension}, run on sample test classes through JUnit's engine test kit: which server each test gets
 * (one per class, one per test, the enclosing class's for a nested class), what it injects into fields and
 * parameters, the fresh scopes, the servers closed when their class or test ends, and the errors of a misused
 * extension. The samples are static nested classes, which surefire does not run on its own.
 */
@Timeout(120)
class SluiceExtensionTest {

    /** What the samples saw: test name to the server it got (the samples run one at a time). */
    static final Map<String, EmbeddedServer> SERVERS = new ConcurrentHashMap<>();
    static final List<String> SCOPES = new CopyOnWriteArrayList<>();

    private static EngineExecutionResults run(Class<?> sample) {
        SERVERS.clear();
        SCOPES.clear();
        return EngineTestKit.engine("junit-jupiter").selectors(selectClass(sample)).execute();
    }

    private static void assertAllPassed(EngineExecutionResults results, int tests) {
        List<String> failures = results.testEvents().failed().stream()
                .map(e -> e.getTestDescriptor().getDisplayName() + ": " + e.getPayload(
                        org.junit.platform.engine.TestExecutionResult.class)
                        .flatMap(org.junit.platform.engine.TestExecutionResult::getThrowable)
                        .map(Throwable::toString).orElse("?"))
                .toList();
        assertThat(failures).as("failed sample tests").isEmpty();
        assertThat(results.testEvents().succeeded().count()).isEqualTo(tests);
    }

    private static boolean accepts(EmbeddedServer server) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", server.segmentStoreEndpoint().port()), 2000);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static String failureOf(EngineExecutionResults results) {
        return results.allEvents().failed().stream().map(Event::getPayload)
                .flatMap(p -> p.stream())
                .filter(p -> p instanceof org.junit.platform.engine.TestExecutionResult)
                .map(p -> ((org.junit.platform.engine.TestExecutionResult) p).getThrowable()
                        .map(Throwable::getMessage).orElse(""))
                .findFirst().orElse("(no failure)");
    }

    @SluiceTest
    @TestMethodOrder(MethodOrderer.OrderAnnotation.class)
    static class PerClassSample {
        @SluiceInject
        static EmbeddedServer classServer;
        @SluiceInject
        SluiceClient client;
        @SluiceInject
        EmbeddedServer server;
        @ControllerUri
        String uri;
        @TestScope
        String scope;

        @Test
        @Order(1)
        void first() {
            assertThat(server).isSameAs(classServer);
            assertThat(uri).isEqualTo(server.controllerUri());
            SERVERS.put("first", server);
            SCOPES.add(scope);
        }

        @Test
        @Order(2)
        void second(SluiceClient parameter, EmbeddedServer serverParameter, @ControllerUri URI asUri,
                    @TestScope String sameScope) {
            assertThat(parameter).isSameAs(client);
            assertThat(serverParameter).isSameAs(server);
            assertThat(asUri).isEqualTo(URI.create(server.controllerUri()));
            assertThat(sameScope).as("one scope per test, field and parameter alike").isEqualTo(scope);
            SERVERS.put("second", server);
            SCOPES.add(scope);
        }

        @Test
        @Order(3)
        void aTestWritesAndReadsInItsScope(@TestScope String mine) {
            assertThat(client.streamManager().scopeExists(mine)).isTrue();
            client.streamManager().createStream(mine, "orders", StreamConfiguration.builder().build());
            try (EventStreamWriter<String> w = client.newWriter(mine, "orders", Serializers.utf8())) {
                w.writeAndWait("k", "hello");
            }
            client.readerGroupManager(mine).createReaderGroup("g", ReaderGroupConfig.builder().stream(mine + "/orders").build());
            try (EventStreamReader<String> r = client.newReader(mine, "g", "r1", Serializers.utf8())) {
                EventRead<String> read = r.readNextEvent(Duration.ofSeconds(10));
                assertThat(read.event()).isEqualTo("hello");
            }
            SERVERS.put("third", server);
            SCOPES.add(mine);
        }
    }

    @Test
    void aServerPerClassIsSharedByItsTestsAndClosedAfterTheLast() {
        assertAllPassed(run(PerClassSample.class), 3);
        EmbeddedServer server = SERVERS.get("first");
        assertThat(SERVERS.values()).containsOnly(server).hasSize(3);
        assertThat(SCOPES).hasSize(3).doesNotHaveDuplicates();
        assertThat(SCOPES.get(0)).matches("t\\d+-first");
        assertThat(accepts(server)).as("the class's server still accepts").isFalse();
    }

    @SluiceTest(server = ServerLifecycle.PER_TEST)
    @TestMethodOrder(MethodOrderer.OrderAnnotation.class)
    static class PerTestSample {
        @SluiceInject
        SluiceClient client;
        @SluiceInject
        EmbeddedServer server;

        @Test
        @Order(1)
        void writesAStream() {
            client.streamManager().createScope("shared-name");
            client.streamManager().createStream("shared-name", "s", StreamConfiguration.builder().build());
            SERVERS.put("a", server);
        }

        @Test
        @Order(2)
        void seesNothingOfTheOther() {
            assertThat(client.streamManager().scopeExists("shared-name")).isFalse();
            assertThat(accepts(SERVERS.get("a"))).as("the first test's server, after it ended").isFalse();
            SERVERS.put("b", server);
        }
    }

    @Test
    void aServerPerTestIsNewForEachAndClosedWithIt() {
        assertAllPassed(run(PerTestSample.class), 2);
        assertThat(SERVERS.get("a")).isNotSameAs(SERVERS.get("b"));
        assertThat(accepts(SERVERS.get("b"))).isFalse();
    }

    @SluiceTest
    static class NestedSample {
        @SluiceInject
        EmbeddedServer outer;

        @Test
        void outerTest() {
            SERVERS.put("outer", outer);
        }

        @Nested
        class Inner {
            @SluiceInject
            EmbeddedServer inner;

            @Test
            void innerTest() {
                assertThat(inner).isSameAs(outer);
                SERVERS.put("inner", inner);
            }
        }
    }

    @Test
    void aNestedClassSharesTheEnclosingClassesServer() {
        assertAllPassed(run(NestedSample.class), 2);
        assertThat(SERVERS.get("inner")).isSameAs(SERVERS.get("outer"));
    }

    static class RegisteredSample {
        @RegisterExtension
        static SluiceExtension sluice = SluiceExtension.builder().containers(3)
                .configureServer(b -> b.advertisedHost("localhost"))
                .configureClient(c -> c.operationTimeout(Duration.ofSeconds(7)))
                .build();

        SluiceClient client;
        EmbeddedServer server;

        @BeforeEach
        void setUp(SluiceClient c, EmbeddedServer s) {
            this.client = c;
            this.server = s;
        }

        @Test
        void theServerHasWhatTheBuilderSaid() {
            assertThat(server.controllerUri()).startsWith("tcp://localhost:");
            assertThat(client.streamManager().createScope("registered")).isTrue();
            SERVERS.put("registered", server);
        }
    }

    @Test
    void anExtensionRegisteredInCodeConfiguresItsServerAndResolvesLifecycleParameters() {
        assertAllPassed(run(RegisteredSample.class), 1);
        assertThat(accepts(SERVERS.get("registered"))).isFalse();
    }

    @SluiceTest
    static class WrongFieldSample {
        @SluiceInject
        Integer notSomethingSluiceHas;

        @Test
        void never() {
        }
    }

    @SluiceTest(server = ServerLifecycle.PER_TEST)
    static class StaticFieldPerTestSample {
        @Test
        void never(@ControllerUri String uri) {
        }

        @org.junit.jupiter.api.BeforeAll
        static void before(SluiceClient client) {
        }
    }

    @SluiceTest(containers = 0)
    static class NoContainersSample {
        @Test
        void never() {
        }
    }

    @Test
    void aMisusedExtensionFailsTheTestsWithAMessageNamingTheMistake() {
        assertThat(failureOf(run(WrongFieldSample.class)))
                .contains("WrongFieldSample.notSomethingSluiceHas", "java.lang.Integer");
        assertThat(failureOf(run(StaticFieldPerTestSample.class))).contains("with a server per test");
        assertThat(failureOf(run(NoContainersSample.class))).contains("containers = 0", "at least 1 container");
    }

    @Test
    void scopeNamesKeepOnlyWhatAScopeNameMayHold() {
        assertThat(SluiceExtension.nameOf("writes_an order!")).isEqualTo("writes-an-order-");
        assertThat(SluiceExtension.nameOf("x".repeat(100))).hasSize(48);
        assertThat(SluiceExtension.nameOf("")).isEqualTo("test");
        assertThatThrownBy(() -> SluiceExtension.builder().containers(0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("containers");
    }
}
