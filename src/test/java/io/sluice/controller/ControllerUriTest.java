package io.sluice.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;

import io.sluice.common.Endpoint;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Controller URI parsing. */
@Timeout(30)
class ControllerUriTest {

    @Test
    void parsesEverySchemeWithDefaultPort() {
        ControllerUri tcp = ControllerUri.parse("tcp://localhost");
        assertThat(tcp.scheme()).isEqualTo(ControllerUri.Scheme.TCP);
        assertThat(tcp.endpoints()).containsExactly(new Endpoint("localhost", 9090));
        assertThat(tcp.tls()).isFalse();
        assertThat(tcp.discovery()).isFalse();
        assertThat(ControllerUri.parse("tls://h:443").tls()).isTrue();
        assertThat(ControllerUri.parse("SSL://h").scheme()).isEqualTo(ControllerUri.Scheme.SSL);
        assertThat(ControllerUri.parse("ssl://h").tls()).isTrue();
        ControllerUri discovery = ControllerUri.parse("pravega://h1:1,h2");
        assertThat(discovery.discovery()).isTrue();
        assertThat(discovery.tls()).isFalse();
        assertThat(discovery.endpoints()).containsExactly(new Endpoint("h1", 1), new Endpoint("h2", 9090));
        assertThat(ControllerUri.parse("pravegas://h").tls()).isTrue();
        assertThat(ControllerUri.parse("pravegas://h").discovery()).isTrue();
    }

    @Test
    void parsesListsIpv6AndTrailingSlash() {
        ControllerUri uri = ControllerUri.parse(" tcp://10.0.0.1:9090,[::1]:9091,host-3/ ");
        assertThat(uri.endpoints()).containsExactly(new Endpoint("10.0.0.1", 9090), new Endpoint("::1", 9091),
                new Endpoint("host-3", 9090));
        assertThat(uri).hasToString("tcp://10.0.0.1:9090,[::1]:9091,host-3:9090");
        assertThat(ControllerUri.parse(uri.toString())).isEqualTo(uri);
    }

    @Test
    void rejectsBadUrisWithClearMessages() {
        assertThatThrownBy(() -> ControllerUri.parse("localhost:9090")).hasMessageContaining("has no scheme");
        assertThatThrownBy(() -> ControllerUri.parse("http://h:1")).hasMessageContaining("unknown scheme 'http'")
                .hasMessageContaining("tcp://, tls://, ssl://, pravega://, pravegas://");
        assertThatThrownBy(() -> ControllerUri.parse("tcp://")).hasMessageContaining("has no host");
        assertThatThrownBy(() -> ControllerUri.parse("tcp://h:1,,h2:2")).hasMessageContaining("empty endpoint");
        assertThatThrownBy(() -> ControllerUri.parse("tcp://h:x")).hasMessageContaining("invalid port 'x'");
        assertThatThrownBy(() -> ControllerUri.parse("tcp://h:70000")).hasMessageContaining("[1, 65535]");
        assertThatThrownBy(() -> ControllerUri.parse("tcp://h:1/path")).hasMessageContaining("found '/'");
        assertThatThrownBy(() -> ControllerUri.parse("tcp://user@h:1")).hasMessageContaining("found '@'");
        assertThatThrownBy(() -> ControllerUri.parse("tcp://h:1?x=1")).hasMessageContaining("found '?'");
        assertThatThrownBy(() -> ControllerUri.parse("tcp://::1:9090")).hasMessageContaining("IPv6");
        for (String bad : List.of("", "://h", "tcp:/h", "tcp:h")) {
            assertThatThrownBy(() -> ControllerUri.parse(bad)).as(bad).isInstanceOf(IllegalArgumentException.class);
        }
    }
}
