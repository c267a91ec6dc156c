package io.sluice.common;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

@Timeout(10)
class JwtTest {

    @Test
    void readsExpFromAControllerStyleToken() {
        String token = TestJwts.withPayload("{\"sub\":\"admin\",\"aud\":\"segmentstore\",\"iat\":1569837384,"
                + "\"exp\":1569837434}");
        assertThat(Jwt.expiry(token)).isEqualTo(Instant.ofEpochSecond(1569837434));
    }

    @Test
    void toleratesWhitespaceNestingAndClaimOrder() {
        String token = TestJwts.withPayload("""
                { "exp" : 1700000000 ,
                  "nested": {"exp": 1},
                  "scope": ["a", "b"] }""");
        assertThat(Jwt.expiry(token)).isEqualTo(Instant.ofEpochSecond(1700000000));
    }

    @Test
    void readsFractionalAndExponentNumericDates() {
        assertThat(Jwt.expiry(TestJwts.withPayload("{\"exp\":1700000000.25}")))
                .isEqualTo(Instant.ofEpochSecond(1700000000, 250_000_000));
        assertThat(Jwt.expiry(TestJwts.withPayload("{\"exp\":1.7e9}"))).isEqualTo(Instant.ofEpochSecond(1_700_000_000));
    }

    @Test
    void readsPayloadsThatNeedUrlSafeCharacters() {
        // '?' and '>' in the claims give '_' and '-' in base64url
        String payload = "{\"sub\":\"??>>\",\"exp\":1700000001}";
        String encoded = TestJwts.b64url(payload);
        assertThat(encoded).containsAnyOf("_", "-");
        assertThat(Jwt.expiry("h." + encoded + ".s")).isEqualTo(Instant.ofEpochSecond(1700000001));
    }

    @Test
    void toleratesPaddingAndTheStandardAlphabet() {
        String payload = "{\"sub\":\"??>>\",\"exp\":1700000002}";
        String standardPadded = Base64.getEncoder().encodeToString(payload.getBytes(StandardCharsets.UTF_8));
        assertThat(standardPadded).containsAnyOf("+", "/");
        assertThat(Jwt.expiry("h." + standardPadded + ".s")).isEqualTo(Instant.ofEpochSecond(1700000002));
        String padded = Base64.getUrlEncoder().encodeToString("{\"exp\":50}".getBytes(StandardCharsets.UTF_8));
        assertThat(padded).endsWith("=");
        assertThat(Jwt.expiry("h." + padded + ".s")).isEqualTo(Instant.ofEpochSecond(50));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "opaque-token", "a.b", "a.b.c.d.e", "h.!!!.s", "h.a.s"})
    void notAJwtHasNoExpiry(String token) {
        assertThat(Jwt.expiry(token)).isNull();
    }

    @ParameterizedTest
    @ValueSource(strings = {"not json", "[1,2]", "{\"sub\":\"x\"}", "{\"exp\":\"1700000000\"}", "{\"exp\":null}",
        "{\"exp\":1e30}", "{\"exp\":true}", "{\"exp\":17"})
    void noUsableExpClaimMeansNoExpiry(String payload) {
        assertThat(Jwt.expiry(TestJwts.withPayload(payload))).isNull();
    }

    @Test
    void nullHasNoExpiry() {
        assertThat(Jwt.expiry(null)).isNull();
    }
}
