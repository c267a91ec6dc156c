package io.sluice.server.auth;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Base64;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.sluice.errors.AuthenticationException;
import io.sluice.errors.AuthorizationException;
import io.sluice.errors.TokenExpiredException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class DelegationTokensTest {
    private static final byte[] SECRET = "0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
    private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");

    private static DelegationTokens at(Instant now) {
        return new DelegationTokens(SECRET, Duration.ofMinutes(10), Clock.fixed(now, ZoneOffset.UTC));
    }

    @Test
    void tokenIsAnHs256JwtWithTheClaims() {
        String token = at(NOW).create("alice", "sc/s", AccessLevel.READ);
        String[] parts = token.split("\\.");
        assertThat(parts).hasSize(3);
        Base64.Decoder b64 = Base64.getUrlDecoder();
        assertThat(new String(b64.decode(parts[0]), StandardCharsets.UTF_8))
                .isEqualTo("{\"alg\":\"HS256\",\"typ\":\"JWT\"}");
        Map<String, Object> claims = DelegationTokens.Json.read(new String(b64.decode(parts[1]), StandardCharsets.UTF_8));
        assertThat(claims).containsEntry("sub", "alice").containsEntry("res", "sc/s").containsEntry("perm", "READ")
                .containsEntry("iat", NOW.getEpochSecond()).containsEntry("exp", NOW.getEpochSecond() + 600);
        assertThat(at(NOW).verify(token)).isEqualTo(new DelegationTokens.Claims("alice", "sc/s", AccessLevel.READ,
                NOW.getEpochSecond() + 600));
    }

    @Test
    void thePayloadDecodesWithTheStandardAlphabetAsTheJavaClientDoes() {
        // '>', '?', '~' and non-ASCII characters would put '-' or '_' into a base64url payload
        String user = "a>b?c~d\u00e9>>??~~" + "x".repeat(7);
        for (int pad = 0; pad < 3; pad++) {
            String token = at(NOW).create(user + "y".repeat(pad), "sc/s", AccessLevel.READ);
            String body = token.split("\\.")[1];
            assertThat(body).doesNotContain("-", "_");
            String json = new String(Base64.getDecoder().decode(body), StandardCharsets.UTF_8);
            java.util.regex.Matcher exp = java.util.regex.Pattern.compile("\"exp\":\\s?(\\d+)").matcher(json);
            assertThat(exp.find()).isTrue();
            assertThat(Long.parseLong(exp.group(1))).isEqualTo(NOW.getEpochSecond() + 600);
            assertThat(at(NOW).verify(token).subject()).isEqualTo(user + "y".repeat(pad));
        }
    }

    @Test
    void tamperedForeignOrMalformedTokensFail() {
        String token = at(NOW).create("alice", "sc/s", AccessLevel.READ);
        String[] parts = token.split("\\.");
        String forged = parts[0] + "." + Base64.getUrlEncoder().withoutPadding().encodeToString(
                "{\"sub\":\"alice\",\"res\":\"sc/s\",\"perm\":\"READ_UPDATE\",\"exp\":9999999999}"
                        .getBytes(StandardCharsets.UTF_8)) + "." + parts[2];
        assertThatThrownBy(() -> at(NOW).verify(forged)).isInstanceOf(AuthenticationException.class);
        DelegationTokens other = new DelegationTokens("another secret of 32 bytes or more"
                .getBytes(StandardCharsets.US_ASCII), Duration.ofMinutes(10), Clock.fixed(NOW, ZoneOffset.UTC));
        assertThatThrownBy(() -> other.verify(token)).isInstanceOf(AuthenticationException.class);
        assertThatThrownBy(() -> at(NOW).verify("")).isInstanceOf(AuthenticationException.class);
        assertThatThrownBy(() -> at(NOW).verify("a.b")).isInstanceOf(AuthenticationException.class);
        assertThatThrownBy(() -> at(NOW).verify("a.b.c.d")).isInstanceOf(AuthenticationException.class);
        assertThatThrownBy(() -> at(NOW).verify(parts[0] + "." + parts[1] + ".%%%"))
                .isInstanceOf(AuthenticationException.class);
    }

    @Test
    void tokensExpire() {
        String token = at(NOW).create("alice", "sc/s", AccessLevel.READ_UPDATE);
        at(NOW.plusSeconds(599)).verify(token);
        assertThatThrownBy(() -> at(NOW.plusSeconds(600)).verify(token)).isInstanceOf(TokenExpiredException.class);
    }

    @Test
    void checkMatchesSegmentsToTheTokensResourceAndLevel() {
        DelegationTokens tokens = at(NOW);
        String write = tokens.create("alice", "sc/s", AccessLevel.READ_UPDATE);
        String read = tokens.create("alice", "sc/s", AccessLevel.READ);
        tokens.check(write, "sc/s/3.#epoch.1", AccessLevel.READ_UPDATE);
        tokens.check(write, "sc/s/3.#epoch.1#transaction.0000000100000002000000000000000a", AccessLevel.READ_UPDATE);
        tokens.check(read, "sc/s/0.#epoch.0", AccessLevel.READ);
        assertThatThrownBy(() -> tokens.check(read, "sc/s/0.#epoch.0", AccessLevel.READ_UPDATE))
                .isInstanceOf(AuthorizationException.class);
        assertThatThrownBy(() -> tokens.check(write, "sc/other/0.#epoch.0", AccessLevel.READ))
                .isInstanceOf(AuthorizationException.class);
        String table = tokens.create("alice", "sc/t", AccessLevel.READ_UPDATE);
        tokens.check(table, "sc/t_kvtable/2.#epoch.0", AccessLevel.READ_UPDATE);
        assertThat(DelegationTokens.resourceOfSegment("sc/_RGgroup/0.#epoch.0")).isEqualTo("sc/_RGgroup");
        assertThatThrownBy(() -> DelegationTokens.resourceOfSegment("sc/s")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void badArgumentsAreNamed() {
        assertThatThrownBy(() -> new DelegationTokens(new byte[8], Duration.ofMinutes(1), Clock.systemUTC()))
                .hasMessageContaining("32 bytes");
        assertThatThrownBy(() -> at(NOW).create("a", "sc/s", AccessLevel.NONE)).hasMessageContaining("NONE");
        assertThat(DelegationTokens.randomSecret()).hasSize(32);
    }

    @Test
    void jsonEscapesRoundTrip() {
        String text = DelegationTokens.Json.write(new java.util.LinkedHashMap<>(Map.of("k", "a\"b\\c\n\u0001é")));
        assertThat(DelegationTokens.Json.read(text)).containsEntry("k", "a\"b\\c\n\u0001é");
        assertThatThrownBy(() -> DelegationTokens.Json.read("{\"a\":[1]}")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> DelegationTokens.Json.read("{\"a\":1} x")).isInstanceOf(IllegalArgumentException.class);
    }
}
