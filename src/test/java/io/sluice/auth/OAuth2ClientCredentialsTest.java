package io.sluice.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import io.sluice.common.Await;
import io.sluice.common.MutableClock;
import io.sluice.common.TokenCache;
import io.sluice.errors.AuthenticationException;
import io.sluice.errors.AuthorizationException;
import io.sluice.errors.ConnectionFailedException;
import io.sluice.errors.DeadlineExceededException;
import io.sluice.errors.ProtocolException;
import io.sluice.errors.RetriableException;
import io.sluice.errors.ServiceUnavailableException;

@Timeout(30)
class OAuth2ClientCredentialsTest {
    private FakeTokenEndpoint endpoint;
    private final MutableClock clock = new MutableClock();
    private final List<OAuth2ClientCredentials> created = new ArrayList<>();

    @BeforeEach
    void start() throws IOException {
        endpoint = new FakeTokenEndpoint();
    }

    @AfterEach
    void stop() {
        created.forEach(OAuth2ClientCredentials::close);
        endpoint.close();
    }

    private OAuth2ClientCredentials.Builder builder() {
        return OAuth2ClientCredentials.builder()
                .tokenEndpoint(endpoint.tokenEndpoint())
                .client("my-app", "s3cret")
                .clock(clock);
    }

    private OAuth2ClientCredentials track(OAuth2ClientCredentials credentials) {
        created.add(credentials);
        return credentials;
    }

    private static String basic(String id, String secret) {
        return "Basic " + Base64.getEncoder().encodeToString((id + ":" + secret).getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void fetchesWithTheClientCredentialsGrantAndBasicAuthentication() throws Exception {
        OAuth2ClientCredentials credentials = track(builder().scope("pravega openid").build());
        endpoint.replyToken("tok-1", 300);

        assertThat(credentials.method()).isEqualTo("Bearer");
        assertThat(credentials.authorizationHeader()).isEqualTo("Bearer tok-1");

        FakeTokenEndpoint.Request request = endpoint.takeRequest();
        assertThat(request.method()).isEqualTo("POST");
        assertThat(request.path()).isEqualTo(FakeTokenEndpoint.PATH);
        assertThat(request.header("Content-Type")).isEqualTo("application/x-www-form-urlencoded");
        assertThat(request.header("Accept")).isEqualTo("application/json");
        assertThat(request.header("Authorization")).isEqualTo(basic("my-app", "s3cret"));
        assertThat(request.form()).containsExactly(Map.entry("grant_type", "client_credentials"),
                Map.entry("scope", "pravega openid"));
        assertThat(request.body()).doesNotContain("s3cret");
    }

    @Test
    void basicAuthenticationFormEncodesIdAndSecret() throws Exception {
        OAuth2ClientCredentials credentials = track(builder().client("app:1", "p@ss wörd&=").build());
        endpoint.replyToken("tok", 300);
        credentials.token();
        assertThat(endpoint.takeRequest().header("Authorization"))
                .isEqualTo(basic("app%3A1", "p%40ss+w%C3%B6rd%26%3D"));
    }

    @Test
    void clientSecretPostSendsTheSecretInTheBody() throws Exception {
        OAuth2ClientCredentials credentials = track(builder()
                .client("my-app", "p@ss wörd&=")
                .clientAuthentication(OAuth2ClientCredentials.ClientAuthentication.CLIENT_SECRET_POST)
                .build());
        endpoint.replyToken("tok-2", 300);
        assertThat(credentials.token()).isEqualTo("tok-2");

        FakeTokenEndpoint.Request request = endpoint.takeRequest();
        assertThat(request.header("Authorization")).isNull();
        assertThat(request.form()).containsExactly(Map.entry("grant_type", "client_credentials"),
                Map.entry("client_id", "my-app"), Map.entry("client_secret", "p@ss wörd&="));
    }

    @Test
    void keycloakFactoryGetsAnRptForThePravegaControllerLikePravegasPlugin() throws Exception {
        URI withSlash = URI.create(endpoint.serverUrl() + "/");
        OAuth2ClientCredentials credentials = track(OAuth2ClientCredentials.keycloak(withSlash, "pravega", "my-app",
                "s3cret"));
        assertThat(credentials.tokenEndpoint()).isEqualTo(endpoint.tokenEndpoint());
        assertThat(credentials.umaAudience()).isEqualTo("pravega-controller");
        endpoint.replyToken("kc-access", 300);
        endpoint.replyToken("kc-rpt", 300);
        assertThat(credentials.token()).isEqualTo("kc-rpt");

        FakeTokenEndpoint.Request grant = endpoint.takeRequest();
        assertThat(grant.path()).isEqualTo("/realms/pravega/protocol/openid-connect/token");
        assertThat(grant.header("Authorization")).isEqualTo(basic("my-app", "s3cret"));
        assertThat(grant.form()).containsExactly(Map.entry("grant_type", "client_credentials"));

        FakeTokenEndpoint.Request uma = endpoint.takeRequest();
        assertThat(uma.path()).isEqualTo("/realms/pravega/protocol/openid-connect/token");
        assertThat(uma.header("Authorization")).isEqualTo("Bearer kc-access");
        assertThat(uma.form()).containsExactly(
                Map.entry("grant_type", "urn:ietf:params:oauth:grant-type:uma-ticket"),
                Map.entry("audience", "pravega-controller"));
        assertThat(credentials.toString()).contains("rpt=pravega-controller");
    }

    @Test
    void theRptStepCanBeRetargetedOrTurnedOff() throws Exception {
        OAuth2ClientCredentials plain = track(OAuth2ClientCredentials.builder().umaAudience(null)
                .keycloak(endpoint.serverUrl(), "pravega").client("my-app", "s3cret").build());
        assertThat(plain.umaAudience()).isNull();
        endpoint.replyToken("plain-access", 300);
        assertThat(plain.token()).isEqualTo("plain-access");
        assertThat(endpoint.takeRequest().form()).containsEntry("grant_type", "client_credentials");
        assertThat(endpoint.requestCount()).isEqualTo(1);

        OAuth2ClientCredentials other = track(builder().umaAudience("my-controller").build());
        endpoint.replyToken("a", 300);
        endpoint.replyToken("rpt", 300);
        assertThat(other.token()).isEqualTo("rpt");
        endpoint.takeRequest();
        assertThat(endpoint.takeRequest().form()).containsEntry("audience", "my-controller");
    }

    @Test
    void theRptLifetimeDecidesTheRefresh() {
        OAuth2ClientCredentials credentials = track(builder().umaAudience("pravega-controller").build());
        endpoint.replyToken("access", 300);
        endpoint.replyToken("rpt-1", 100); // margin 10 s
        assertThat(credentials.token()).isEqualTo("rpt-1");
        clock.advanceSeconds(89);
        assertThat(credentials.token()).isEqualTo("rpt-1");
        assertThat(endpoint.requestCount()).isEqualTo(2);
        clock.advanceSeconds(1);
        endpoint.replyToken("access-2", 300);
        endpoint.replyToken("rpt-2", 100);
        assertThat(credentials.token()).isEqualTo("rpt-2");
        assertThat(endpoint.requestCount()).isEqualTo(4);
    }

    @Test
    void aRefusedRptIsAnAuthorizationError() {
        OAuth2ClientCredentials credentials = track(builder().umaAudience("pravega-controller").build());
        endpoint.replyToken("access", 300);
        endpoint.reply(403, "{\"error\":\"access_denied\",\"error_description\":\"not_authorized\"}");
        assertThatThrownBy(credentials::token)
                .isInstanceOf(AuthorizationException.class)
                .hasMessageContaining(endpoint.tokenEndpoint().toString())
                .hasMessageContaining("audience 'pravega-controller'")
                .hasMessageContaining("access_denied: not_authorized");
    }

    @Test
    void keycloakEndpointKeepsALegacyAuthPathAndEncodesTheRealm() {
        assertThat(OAuth2ClientCredentials.keycloakTokenEndpoint(URI.create("https://kc.example.com/auth"), "my realm"))
                .isEqualTo(URI.create("https://kc.example.com/auth/realms/my%20realm/protocol/openid-connect/token"));
        assertThatThrownBy(() -> OAuth2ClientCredentials.keycloakTokenEndpoint(URI.create("kc.example.com"), "r"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("absolute http or https");
        assertThatThrownBy(() -> OAuth2ClientCredentials.keycloakTokenEndpoint(URI.create("https://kc"), ""))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("realm");
    }

    @Test
    void loadsAKeycloakClientFile(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("keycloak.json");
        Files.writeString(file, """
                {
                  "realm": "pravega",
                  "auth-server-url": "%s/",
                  "ssl-required": "external",
                  "resource": "pravega-client",
                  "credentials": { "secret": "from-file" },
                  "confidential-port": 0
                }
                """.formatted(endpoint.serverUrl()));
        OAuth2ClientCredentials credentials = track(OAuth2ClientCredentials.builder().keycloakJson(file)
                .clock(clock).build());
        assertThat(credentials.tokenEndpoint()).isEqualTo(endpoint.tokenEndpoint());
        assertThat(credentials.clientId()).isEqualTo("pravega-client");
        assertThat(credentials.umaAudience()).isEqualTo("pravega-controller");
        endpoint.replyToken("file-access", 300);
        endpoint.replyToken("file-rpt", 300);
        assertThat(credentials.token()).isEqualTo("file-rpt");
        assertThat(endpoint.takeRequest().header("Authorization")).isEqualTo(basic("pravega-client", "from-file"));
        assertThat(endpoint.takeRequest().header("Authorization")).isEqualTo("Bearer file-access");
    }

    @Test
    void keycloakClientFileErrorsNameTheProblem(@TempDir Path dir) throws Exception {
        Path noSecret = dir.resolve("no-secret.json");
        Files.writeString(noSecret, "{\"realm\":\"r\",\"auth-server-url\":\"http://kc\",\"resource\":\"c\"}");
        assertThatThrownBy(() -> OAuth2ClientCredentials.fromKeycloakJson(noSecret))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(noSecret.toString()).hasMessageContaining("credentials.secret");

        Path noRealm = dir.resolve("no-realm.json");
        Files.writeString(noRealm, "{\"auth-server-url\":\"http://kc\",\"resource\":\"c\",\"credentials\":{\"secret\":\"s\"}}");
        assertThatThrownBy(() -> OAuth2ClientCredentials.fromKeycloakJson(noRealm))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("has no realm");

        Path publicClient = dir.resolve("public.json");
        Files.writeString(publicClient, "{\"realm\":\"r\",\"auth-server-url\":\"http://kc\",\"resource\":\"c\","
                + "\"public-client\":true}");
        assertThatThrownBy(() -> OAuth2ClientCredentials.fromKeycloakJson(publicClient))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("public client");

        Path broken = dir.resolve("broken.json");
        Files.writeString(broken, "{\"realm\":");
        assertThatThrownBy(() -> OAuth2ClientCredentials.fromKeycloakJson(broken))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("malformed JSON");

        assertThatThrownBy(() -> OAuth2ClientCredentials.fromKeycloakJson(dir.resolve("missing.json")))
                .isInstanceOf(java.io.UncheckedIOException.class).hasMessageContaining("missing.json");
    }

    @Test
    void cachesTheTokenAndRefreshesItBeforeExpiry() throws Exception {
        OAuth2ClientCredentials credentials = track(builder().build());
        endpoint.replyToken("tok-1", 300);
        for (int i = 0; i < 5; i++) {
            assertThat(credentials.token()).isEqualTo("tok-1");
        }
        assertThat(endpoint.requestCount()).isEqualTo(1);

        // default margin: min(30 s, 10% of 300 s) = 30 s, so the refresh is due at 270 s
        clock.advanceSeconds(269);
        assertThat(credentials.token()).isEqualTo("tok-1");
        assertThat(endpoint.requestCount()).isEqualTo(1);

        endpoint.replyToken("tok-2", 300);
        clock.advanceSeconds(1);
        assertThat(credentials.token()).isEqualTo("tok-2");
        assertThat(endpoint.requestCount()).isEqualTo(2);
        assertThat(credentials.token()).isEqualTo("tok-2");
        assertThat(endpoint.requestCount()).isEqualTo(2);
    }

    @Test
    void shortLivedTokensUseTenPercentAndAConfiguredMarginWins() throws Exception {
        OAuth2ClientCredentials byDefault = track(builder().build());
        endpoint.replyToken("short", 60); // margin 6 s
        byDefault.token();
        clock.advanceSeconds(53);
        byDefault.token();
        assertThat(endpoint.requestCount()).isEqualTo(1);
        clock.advanceSeconds(1);
        endpoint.replyToken("short-2", 60);
        assertThat(byDefault.token()).isEqualTo("short-2");

        OAuth2ClientCredentials configured = track(builder().refreshMargin(Duration.ofSeconds(100)).build());
        endpoint.replyToken("long", 300); // refresh at 200 s
        configured.token();
        int before = endpoint.requestCount();
        clock.advanceSeconds(199);
        configured.token();
        assertThat(endpoint.requestCount()).isEqualTo(before);
        clock.advanceSeconds(1);
        endpoint.replyToken("long-2", 300);
        assertThat(configured.token()).isEqualTo("long-2");
    }

    @Test
    void withoutExpiresInTheDefaultLifetimeApplies() {
        OAuth2ClientCredentials credentials = track(builder().defaultLifetime(Duration.ofSeconds(100)).build());
        endpoint.reply(200, "{\"access_token\":\"no-exp\",\"token_type\":\"bearer\"}"); // margin 10 s
        assertThat(credentials.token()).isEqualTo("no-exp");
        clock.advanceSeconds(89);
        assertThat(credentials.token()).isEqualTo("no-exp");
        assertThat(endpoint.requestCount()).isEqualTo(1);
        clock.advanceSeconds(1);
        endpoint.reply(200, "{\"access_token\":\"no-exp-2\",\"expires_in\":\"300\"}");
        assertThat(credentials.token()).isEqualTo("no-exp-2");
        clock.advanceSeconds(269); // expires_in as a string was understood: 300 s, margin 30 s
        assertThat(credentials.token()).isEqualTo("no-exp-2");
        assertThat(endpoint.requestCount()).isEqualTo(2);
    }

    @Test
    void concurrentCallersShareOneFetch() throws Exception {
        OAuth2ClientCredentials credentials = track(builder().build());
        CountDownLatch gate = new CountDownLatch(1);
        endpoint.replyWhenOpen(gate, 200, FakeTokenEndpoint.tokenJson("shared", 300));
        int callers = 8;
        ExecutorService pool = Executors.newFixedThreadPool(callers);
        try {
            List<Future<String>> results = new ArrayList<>();
            for (int i = 0; i < callers; i++) {
                results.add(pool.submit(credentials::token));
            }
            Await.until("all callers wait for the fetch", () -> credentials.waitingCount() == callers);
            endpoint.takeRequest(); // the one request is held at the gate
            gate.countDown();
            for (Future<String> result : results) {
                assertThat(result.get(10, TimeUnit.SECONDS)).isEqualTo("shared");
            }
        } finally {
            gate.countDown();
            pool.shutdownNow();
        }
        assertThat(endpoint.requestCount()).isEqualTo(1);
        assertThat(credentials.fetchCount()).isEqualTo(1);
    }

    @Test
    void invalidClientIsAnAuthenticationErrorNamingTheEndpoint() {
        OAuth2ClientCredentials credentials = track(builder().build());
        endpoint.reply(401, "{\"error\":\"invalid_client\",\"error_description\":\"Invalid client or Invalid client"
                + " credentials\"}");
        assertThatThrownBy(credentials::token)
                .isInstanceOf(AuthenticationException.class)
                .hasMessageContaining(endpoint.tokenEndpoint().toString())
                .hasMessageContaining("'my-app'")
                .hasMessageContaining("HTTP 401")
                .hasMessageContaining("invalid_client: Invalid client or Invalid client credentials");
    }

    @Test
    void badRequestErrorsAreAuthenticationErrorsToo() {
        OAuth2ClientCredentials credentials = track(builder().build());
        endpoint.reply(400, "{\"error\":\"unauthorized_client\",\"error_description\":\"Client not enabled to"
                + " retrieve service account\"}");
        assertThatThrownBy(credentials::token)
                .isInstanceOf(AuthenticationException.class)
                .hasMessageContaining("HTTP 400")
                .hasMessageContaining("unauthorized_client: Client not enabled");
        endpoint.reply(404, "{\"error\":\"Realm does not exist\"}");
        assertThatThrownBy(credentials::token)
                .isInstanceOf(AuthenticationException.class)
                .hasMessageContaining("HTTP 404").hasMessageContaining("Realm does not exist");
        endpoint.reply(401, "<html>nope</html>");
        assertThatThrownBy(credentials::token)
                .isInstanceOf(AuthenticationException.class).hasMessageContaining("<html>nope</html>");
    }

    @Test
    void malformedJsonIsAClearProtocolError() {
        OAuth2ClientCredentials credentials = track(builder().build());
        endpoint.reply(200, "{\"access_token\":\"abc\",");
        assertThatThrownBy(credentials::token)
                .isInstanceOf(ProtocolException.class)
                .hasMessageContaining(endpoint.tokenEndpoint().toString())
                .hasMessageContaining("malformed token response")
                .hasMessageContaining("offset 22");
    }

    @Test
    void responsesWithoutAUsableTokenAreProtocolErrors() {
        OAuth2ClientCredentials credentials = track(builder().build());
        endpoint.reply(200, "{\"token_type\":\"Bearer\",\"expires_in\":300}");
        assertThatThrownBy(credentials::token)
                .isInstanceOf(ProtocolException.class).hasMessageContaining("no access_token");
        endpoint.reply(200, "{\"access_token\":\"abc\",\"token_type\":\"mac\"}");
        assertThatThrownBy(credentials::token)
                .isInstanceOf(ProtocolException.class).hasMessageContaining("token_type mac");
        endpoint.reply(200, "{\"access_token\":\"a b\"}");
        assertThatThrownBy(credentials::token)
                .isInstanceOf(ProtocolException.class).hasMessageContaining("unusable access_token");
        endpoint.reply(200, "[]");
        assertThatThrownBy(credentials::token)
                .isInstanceOf(ProtocolException.class).hasMessageContaining("expected a JSON object");
    }

    @Test
    void oversizedResponsesAreRejected() {
        OAuth2ClientCredentials credentials = track(builder().build());
        endpoint.reply(200, new byte[OAuth2ClientCredentials.MAX_RESPONSE_BYTES + 1]);
        assertThatThrownBy(credentials::token)
                .isInstanceOf(ProtocolException.class).hasMessageContaining("larger than");
    }

    @Test
    void unreachableEndpointIsRetriable() {
        URI down = endpoint.tokenEndpoint();
        endpoint.close();
        OAuth2ClientCredentials credentials = track(OAuth2ClientCredentials.builder().tokenEndpoint(down)
                .client("my-app", "s3cret").requestTimeout(Duration.ofSeconds(5)).build());
        assertThatThrownBy(credentials::token)
                .isInstanceOf(ConnectionFailedException.class)
                .isInstanceOf(RetriableException.class)
                .hasMessageContaining(down.toString());
    }

    @Test
    void serverErrorsAreRetriable() {
        OAuth2ClientCredentials credentials = track(builder().build());
        endpoint.reply(503, "");
        assertThatThrownBy(credentials::token)
                .isInstanceOf(ServiceUnavailableException.class)
                .hasMessageContaining("HTTP 503").hasMessageContaining("(empty body)");
        endpoint.replyToken("after-503", 300);
        assertThat(credentials.token()).isEqualTo("after-503");
    }

    @Test
    void aSlowEndpointTimesOut() {
        OAuth2ClientCredentials credentials = track(builder().requestTimeout(Duration.ofMillis(300)).build());
        CountDownLatch never = new CountDownLatch(1);
        endpoint.replyWhenOpen(never, 200, FakeTokenEndpoint.tokenJson("late", 300));
        try {
            assertThatThrownBy(credentials::token)
                    .isInstanceOf(DeadlineExceededException.class)
                    .hasMessageContaining(endpoint.tokenEndpoint().toString());
        } finally {
            never.countDown();
        }
    }

    @Test
    void aFailedRefreshKeepsTheValidTokenAndBacksOff() {
        OAuth2ClientCredentials credentials = track(builder().build());
        endpoint.replyToken("tok-1", 300);
        credentials.token();
        clock.advanceSeconds(275); // due for refresh, valid until 300
        endpoint.reply(503, "{\"error\":\"temporarily_unavailable\"}");
        assertThat(credentials.token()).isEqualTo("tok-1");
        assertThat(endpoint.requestCount()).isEqualTo(2);
        assertThat(credentials.token()).isEqualTo("tok-1"); // within the back-off: no new request
        assertThat(endpoint.requestCount()).isEqualTo(2);

        clock.advance(TokenCache.FAILED_REFRESH_BACKOFF);
        endpoint.replyToken("tok-2", 300);
        assertThat(credentials.token()).isEqualTo("tok-2");
        assertThat(endpoint.requestCount()).isEqualTo(3);
    }

    @Test
    void aFailedRefreshAfterExpiryFails() {
        OAuth2ClientCredentials credentials = track(builder().build());
        endpoint.replyToken("tok-1", 300);
        credentials.token();
        clock.advanceSeconds(300);
        endpoint.reply(503, "");
        assertThatThrownBy(credentials::token).isInstanceOf(ServiceUnavailableException.class);
    }

    @Test
    void refreshAfterRejectedFetchesOnceForTheRejectedToken() {
        OAuth2ClientCredentials credentials = track(builder().build());
        endpoint.replyToken("tok-1", 300);
        assertThat(credentials.token()).isEqualTo("tok-1");
        endpoint.replyToken("tok-2", 300);
        assertThat(credentials.refreshAfterRejected("tok-1")).isEqualTo("tok-2");
        assertThat(credentials.refreshAfterRejected("tok-1")).isEqualTo("tok-2");
        assertThat(credentials.token()).isEqualTo("tok-2");
        assertThat(endpoint.requestCount()).isEqualTo(2);
    }

    @Test
    void aRejectedTokenIsNotServedWhenTheRefreshFails() {
        OAuth2ClientCredentials credentials = track(builder().build());
        endpoint.replyToken("tok-1", 300);
        credentials.token();
        endpoint.reply(503, "");
        assertThatThrownBy(() -> credentials.refreshAfterRejected("tok-1"))
                .isInstanceOf(ServiceUnavailableException.class);
        endpoint.replyToken("tok-2", 300);
        assertThat(credentials.token()).isEqualTo("tok-2");
    }

    @Test
    void builderChecksItsArguments() {
        assertThatThrownBy(() -> OAuth2ClientCredentials.builder().client("a", "b").build())
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("token endpoint");
        assertThatThrownBy(() -> OAuth2ClientCredentials.builder().tokenEndpoint(endpoint.tokenEndpoint()).build())
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("client id");
        assertThatThrownBy(() -> OAuth2ClientCredentials.builder().tokenEndpoint(URI.create("ftp://x/token")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("ftp://x/token");
        assertThatThrownBy(() -> OAuth2ClientCredentials.builder().client("a", ""))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("client secret");
        assertThatThrownBy(() -> OAuth2ClientCredentials.builder().scope(" "))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("scope");
        assertThatThrownBy(() -> OAuth2ClientCredentials.builder().requestTimeout(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("requestTimeout");
        assertThatThrownBy(() -> OAuth2ClientCredentials.builder().refreshMargin(Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("refreshMargin");
        assertThatThrownBy(() -> OAuth2ClientCredentials.builder().umaAudience(""))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("umaAudience");
    }

    @Test
    void toStringHidesTheSecretAndCloseStopsIt() {
        OAuth2ClientCredentials credentials = track(builder().scope("pravega").build());
        assertThat(credentials.toString()).contains("my-app").contains("pravega").doesNotContain("s3cret");
        credentials.close();
        credentials.close();
        assertThatThrownBy(credentials::token).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("closed");
    }
}
