package io.sluice.common;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Parsing and printing endpoints. */
@Timeout(30)
class EndpointTest {

    @Test
    void parsesHostPortBareHostAndIpv6() {
        assertThat(Endpoint.parse("h:1", 9)).isEqualTo(new Endpoint("h", 1));
        assertThat(Endpoint.parse("h", 9)).isEqualTo(new Endpoint("h", 9));
        assertThat(Endpoint.parse("[::1]:12345", 9)).isEqualTo(new Endpoint("::1", 12345));
        assertThat(Endpoint.parse("[::1]", 9)).isEqualTo(new Endpoint("::1", 9));
        assertThat(new Endpoint("::1", 5)).hasToString("[::1]:5");
        assertThat(new Endpoint("10.0.0.1", 5)).hasToString("10.0.0.1:5");
    }

    @Test
    void rejectsBadAddresses() {
        for (String bad : List.of("", ":1", "h:", "h:x", "h:0", "h:65536", "::1", "[::1", "[::1]x", "h:123456")) {
            assertThatThrownBy(() -> Endpoint.parse(bad, 9)).as(bad).isInstanceOf(IllegalArgumentException.class);
        }
        assertThatThrownBy(() -> new Endpoint("a b", 1)).isInstanceOf(IllegalArgumentException.class);
    }
}
