package io.sluice.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import io.sluice.auth.Credentials;
import io.sluice.controller.ControllerClientConfig;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The controller commands' OAuth2 options: {@code --oauth2-token-url/--oauth2-client-id/--oauth2-client-secret}
 * (or {@code $SLUICE_OAUTH2_CLIENT_SECRET}) and {@code --keycloak-json} make Bearer credentials that fetch their
 * token from the endpoint; missing or conflicting options are usage errors naming them.
 */
@Timeout(60)
class OAuth2OptionsTest {
    private HttpServer endpoint;
    private final List<String> bodies = new CopyOnWriteArrayList<>();
    private final Map<String, String> env = new HashMap<>();

    @BeforeEach
    void startEndpoint() throws IOException {
        endpoint = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        endpoint.createContext("/", exchange -> {
            bodies.add(new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
            byte[] reply = "{\"access_token\":\"tok-1\",\"token_type\":\"Bearer\",\"expires_in\":300}"
                    .getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("content-type", "application/json");
            exchange.sendResponseHeaders(200, reply.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(reply);
            }
        });
        endpoint.start();
    }

    @AfterEach
    void stopEndpoint() {
        endpoint.stop(0);
    }

    private String url() {
        return "http://127.0.0.1:" + endpoint.getAddress().getPort() + "/token";
    }

    /** The configuration {@code scope list} would connect with, after picocli parsed {@code args}. */
    private ControllerClientConfig configOf(String... args) {
        ScopeCommands.ListScopes command = new ScopeCommands.ListScopes();
        new CommandLine(command).parseArgs(args);
        return command.options.config(env::get);
    }

    @Test
    void clientCredentialsGiveBearerTokensFromTheEndpoint() {
        env.put(ControllerOptions.ENV_OAUTH2_SECRET, "s3cret");
        Credentials c = configOf("--oauth2-token-url", url(), "--oauth2-client-id", "cli").credentials().orElseThrow();
        assertThat(c.method()).isEqualTo("Bearer");
        assertThat(c.token()).isEqualTo("tok-1");
        assertThat(bodies).singleElement().asString().contains("grant_type=client_credentials");
    }

    @Test
    void aKeycloakFileGivesKeycloakCredentials(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("keycloak.json");
        Files.writeString(file, "{\"realm\":\"pravega\",\"auth-server-url\":\"http://127.0.0.1:"
                + endpoint.getAddress().getPort() + "/\",\"resource\":\"cli\",\"credentials\":{\"secret\":\"x\"}}");
        Credentials c = configOf("--keycloak-json", file.toString()).credentials().orElseThrow();
        assertThat(c.method()).isEqualTo("Bearer");
    }

    @Test
    void missingAndConflictingOptionsAreNamed() {
        assertThatThrownBy(() -> configOf("--oauth2-token-url", url()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("missing: --oauth2-client-id, a secret");
        assertThatThrownBy(() -> configOf("--oauth2-token-url", url(), "--oauth2-client-id", "c",
                "--oauth2-client-secret", "s", "--user", "bob", "--password", "pw"))
                .hasMessageContaining("exclude each other");
        assertThatThrownBy(() -> configOf("--keycloak-json", "/nonexistent/keycloak.json"))
                .hasMessageContaining("--keycloak-json: cannot read");
        assertThatThrownBy(() -> configOf("--keycloak-json", "k.json", "--oauth2-client-id", "c"))
                .hasMessageContaining("exclude each other");
    }

    @Test
    void onTheCommandLineABadOptionIsAUsageError() {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int status = Main.run(new PrintWriter(out), new PrintWriter(err), "scope", "list", "--oauth2-client-id", "c");
        assertThat(status).isEqualTo(2);
        assertThat(err.toString()).contains("missing: --oauth2-token-url");
    }
}
