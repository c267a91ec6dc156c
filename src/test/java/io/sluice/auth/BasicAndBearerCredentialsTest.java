package io.sluice.auth;

import io.sluice.common.TestJwts;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Base64;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class BasicAndBearerCredentialsTest {

    @Test
    void basicHeaderIsBase64OfUserColonPassword() {
        BasicCredentials credentials = new BasicCredentials("admin", "1111_aaaa");
        assertThat(credentials.method()).isEqualTo("Basic");
        assertThat(credentials.token()).isEqualTo("YWRtaW46MTExMV9hYWFh");
        assertThat(credentials.authorizationHeader()).isEqualTo("Basic YWRtaW46MTExMV9hYWFh");
        assertThat(credentials.user()).isEqualTo("admin");
    }

    @Test
    void basicEncodesUtf8AndAllowsColonsInThePassword() {
        BasicCredentials credentials = new BasicCredentials("jörg", "pa:ss wörd");
        String decoded = new String(Base64.getDecoder().decode(credentials.token()), StandardCharsets.UTF_8);
        assertThat(decoded).isEqualTo("jörg:pa:ss wörd");
        assertThat(new BasicCredentials("u", "").token()).isEqualTo("dTo=");
    }

    @Test
    void basicRejectsBadUsers() {
        assertThatThrownBy(() -> new BasicCredentials("a:b", "p"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("':'");
        assertThatThrownBy(() -> new BasicCredentials("", "p"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("user");
        assertThatThrownBy(() -> new BasicCredentials(null, "p"))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("user");
        assertThatThrownBy(() -> new BasicCredentials("u", null))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("password");
    }

    @Test
    void basicNeverShowsThePasswordAndHasValueEquality() {
        BasicCredentials credentials = new BasicCredentials("admin", "s3cret!");
        assertThat(credentials.toString()).contains("admin").doesNotContain("s3cret").doesNotContain(credentials.token());
        assertThat(credentials).isEqualTo(new BasicCredentials("admin", "s3cret!"))
                .hasSameHashCodeAs(new BasicCredentials("admin", "s3cret!"))
                .isNotEqualTo(new BasicCredentials("admin", "other"));
    }

    @Test
    void bearerHeaderCarriesTheTokenAsIs() {
        String jwt = TestJwts.withPayload("{\"sub\":\"app\"}");
        BearerCredentials credentials = new BearerCredentials(jwt);
        assertThat(credentials.method()).isEqualTo("Bearer");
        assertThat(credentials.token()).isEqualTo(jwt);
        assertThat(credentials.authorizationHeader()).isEqualTo("Bearer " + jwt);
        assertThat(credentials.toString()).doesNotContain(jwt);
        assertThat(credentials).isEqualTo(new BearerCredentials(jwt)).isNotEqualTo(new BearerCredentials("x"));
    }

    @Test
    void bearerRejectsTokensThatCannotTravelInAHeader() {
        assertThatThrownBy(() -> new BearerCredentials("abc\r\nX-Evil: 1"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("U+000D at index 3");
        assertThatThrownBy(() -> new BearerCredentials("a b"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("U+0020");
        assertThatThrownBy(() -> new BearerCredentials(""))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("empty");
        assertThatThrownBy(() -> new BearerCredentials(null)).isInstanceOf(NullPointerException.class);
    }
}
