package io.sluice.cli;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.Function;

import io.sluice.auth.BasicCredentials;
import io.sluice.auth.Credentials;
import io.sluice.auth.OAuth2ClientCredentials;
import io.sluice.client.ClientConfig;
import io.sluice.common.Retry;
import io.sluice.controller.ControllerClientConfig;
import io.sluice.controller.ControllerUri;
import io.sluice.stream.ReaderConfig;
import io.sluice.stream.RetryPolicy;
import io.sluice.stream.WriterConfig;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;

/**
 * The options every controller command takes (a picocli mixin): where the controller is, credentials, TLS trust,
 * the time limit, and the output format. Values given on the command line win over the environment
 * ({@value #ENV_CONTROLLER}, {@value #ENV_USER}, {@value #ENV_PASSWORD}). Confined to the command's thread.
 */
final class ControllerOptions {
    /** Environment variable with the default controller URI. */
    static final String ENV_CONTROLLER = "SLUICE_CONTROLLER";
    /** Environment variable with the user name for Basic authentication. */
    static final String ENV_USER = "SLUICE_USER";
    /** Environment variable with the password for Basic authentication. */
    static final String ENV_PASSWORD = "SLUICE_PASSWORD";
    /** Environment variable with the OAuth2 client secret. */
    static final String ENV_OAUTH2_SECRET = "SLUICE_OAUTH2_CLIENT_SECRET";
    /** The longest a command waits for one connection to a segment store. */
    private static final Duration MAX_CONNECT_TIMEOUT = Duration.ofSeconds(10);
    /** The longest wait between two attempts of a writer or reader (Pravega's). */
    private static final Duration MAX_RETRY_WAIT = Duration.ofSeconds(20);
    /** The most attempts of a writer or reader (Pravega's). */
    private static final int MAX_RETRY_ATTEMPTS = 10;
    /** The controller when neither {@code --controller} nor {@value #ENV_CONTROLLER} says otherwise. */
    static final String DEFAULT_CONTROLLER = "tcp://127.0.0.1:9090";

    @Option(names = "--controller", paramLabel = "URI", order = 100,
            description = "the controller: tcp://HOST:PORT (several comma-separated), tls:// for TLS, pravega:// or "
                    + "pravegas:// to discover the controllers; default: $" + ENV_CONTROLLER + ", else "
                    + DEFAULT_CONTROLLER)
    String controller;

    @Option(names = "--user", paramLabel = "NAME", order = 101,
            description = "user name for Basic authentication (default: $" + ENV_USER + "); needs a password")
    String user;

    @Option(names = "--password", paramLabel = "PASSWORD", order = 102,
            description = "password for Basic authentication (default: $" + ENV_PASSWORD + ", which keeps it out of "
                    + "the process list)")
    String password;

    @Option(names = "--keycloak-json", paramLabel = "FILE", order = 102,
            description = "authenticate with Keycloak: the client adapter file (keycloak.json, as Pravega's Keycloak "
                    + "plugin uses it); tokens are requesting-party tokens for pravega-controller")
    Path keycloakJson;

    @Option(names = "--oauth2-token-url", paramLabel = "URL", order = 102,
            description = "authenticate with OAuth2 client credentials at this token endpoint (with "
                    + "--oauth2-client-id and a secret); Bearer tokens, refreshed before they expire")
    URI oauth2TokenUrl;

    @Option(names = "--oauth2-client-id", paramLabel = "ID", order = 102,
            description = "the OAuth2 client id for --oauth2-token-url")
    String oauth2ClientId;

    @Option(names = "--oauth2-client-secret", paramLabel = "SECRET", order = 102,
            description = "the OAuth2 client secret (default: $" + ENV_OAUTH2_SECRET + ", which keeps it out of the "
                    + "process list)")
    String oauth2ClientSecret;

    @Option(names = "--trust-store", paramLabel = "PEM", order = 103,
            description = "CA certificates (PEM) to trust for tls:// and pravegas:// (default: the JVM's trust store); "
                    + "an error with a plain tcp:// or pravega:// controller")
    Path trustStore;

    @Option(names = "--no-validate-hostname", order = 103,
            description = "for tls:// and pravegas://: accept a server certificate that does not name the host "
                    + "connected to (the chain is still checked against the trust store); host names are verified "
                    + "by default")
    boolean noValidateHostname;

    @Option(names = "--timeout", paramLabel = "DURATION", defaultValue = "30s", order = 104,
            converter = DurationConverter.class,
            description = "give up after this long, retries included (e.g. 500ms, 30s, 2m; default: ${DEFAULT-VALUE})")
    Duration timeout;

    @Option(names = "--json", order = 105,
            description = "print one JSON object on standard output instead of text, for failures too")
    boolean json;

    @Option(names = {"-v", "--verbose"}, order = 106, description = "print the stack trace of a failure")
    boolean verbose;

    /** Reads a {@code --timeout}-style duration. */
    static final class DurationConverter implements ITypeConverter<Duration> {
        @Override
        public Duration convert(String value) {
            return Formats.parseDuration(value);
        }
    }

    /**
     * Builds the controller client configuration these options describe.
     *
     * @param env the environment lookup (variable name → value or null)
     * @return the configuration
     * @throws IllegalArgumentException naming the option or variable that is wrong
     */
    ControllerClientConfig config(Function<String, String> env) {
        String uriText = controller != null ? controller : env.apply(ENV_CONTROLLER);
        String uriSource = controller != null ? "--controller" : "$" + ENV_CONTROLLER;
        if (uriText == null || uriText.isBlank()) {
            uriText = DEFAULT_CONTROLLER;
            uriSource = "the default controller";
        }
        ControllerUri uri;
        try {
            uri = ControllerUri.parse(uriText);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(uriSource + ": " + e.getMessage(), e);
        }
        if (trustStore != null && !uri.tls()) {
            throw new IllegalArgumentException("--trust-store applies to TLS only, but " + uriSource + " is "
                    + uriText + " (plain TCP): use a tls:// or pravegas:// URI, or leave out --trust-store");
        }
        if (noValidateHostname && !uri.tls()) {
            throw new IllegalArgumentException("--no-validate-hostname applies to TLS only, but " + uriSource
                    + " is " + uriText + " (plain TCP): use a tls:// or pravegas:// URI, or leave it out");
        }
        if (timeout.isZero() || timeout.isNegative()) {
            throw new IllegalArgumentException("--timeout must be positive: " + timeout);
        }
        ControllerClientConfig.Builder b = ControllerClientConfig.builder(uri).trustStore(trustStore)
                .validateHostname(!noValidateHostname).operationTimeout(timeout)
                .rpcTimeout(timeout.compareTo(ControllerClientConfig.DEFAULT_RPC_TIMEOUT) < 0 ? timeout
                        : ControllerClientConfig.DEFAULT_RPC_TIMEOUT);
        String name = user != null ? user : env.apply(ENV_USER);
        String secret = password != null ? password : env.apply(ENV_PASSWORD);
        Credentials bearer = oauth2(env);
        if (bearer != null) {
            if (user != null || password != null) {
                throw new IllegalArgumentException("--user/--password (Basic) and "
                        + (keycloakJson != null ? "--keycloak-json" : "--oauth2-token-url")
                        + " exclude each other: choose one way to authenticate");
            }
            b.credentials(bearer);
        } else if (name != null && !name.isEmpty()) {
            if (secret == null) {
                throw new IllegalArgumentException("user '" + name + "' needs a password: give --password or set $"
                        + ENV_PASSWORD);
            }
            b.credentials(new BasicCredentials(name, secret));
        } else if (password != null) {
            throw new IllegalArgumentException("--password needs a user: give --user or set $" + ENV_USER);
        }
        return b.build();
    }

    /**
     * The OAuth2 credentials the options ask for, or null when they ask for none.
     *
     * @param env the environment lookup
     * @return Keycloak or plain OAuth2 client credentials, or null
     * @throws IllegalArgumentException naming a missing or conflicting option
     */
    private Credentials oauth2(Function<String, String> env) {
        boolean oauth = oauth2TokenUrl != null || oauth2ClientId != null || oauth2ClientSecret != null;
        if (keycloakJson != null) {
            if (oauth) {
                throw new IllegalArgumentException("--keycloak-json and --oauth2-* exclude each other: the file "
                        + "names the client and its secret");
            }
            if (!java.nio.file.Files.isReadable(keycloakJson)) {
                throw new IllegalArgumentException("--keycloak-json: cannot read " + keycloakJson);
            }
            return OAuth2ClientCredentials.fromKeycloakJson(keycloakJson);
        }
        if (!oauth) {
            return null;
        }
        String secret = oauth2ClientSecret != null ? oauth2ClientSecret : env.apply(ENV_OAUTH2_SECRET);
        java.util.List<String> missing = new java.util.ArrayList<>();
        if (oauth2TokenUrl == null) {
            missing.add("--oauth2-token-url");
        }
        if (oauth2ClientId == null) {
            missing.add("--oauth2-client-id");
        }
        if (secret == null) {
            missing.add("a secret (--oauth2-client-secret or $" + ENV_OAUTH2_SECRET + ")");
        }
        if (!missing.isEmpty()) {
            throw new IllegalArgumentException("OAuth2 client credentials need --oauth2-token-url, "
                    + "--oauth2-client-id and a secret; missing: " + String.join(", ", missing));
        }
        return OAuth2ClientCredentials.builder().tokenEndpoint(oauth2TokenUrl).client(oauth2ClientId, secret)
                .build();
    }

    /**
     * Pravega's retry policy for lost connections (waits of 1 ms, growing tenfold), with waits of at most a third of
     * {@code timeout} (and 20 s) and as many attempts as fit: the waits of all retries add up to no more than
     * {@code timeout}. With Pravega's own policy a writer or reader whose server is gone retries for about 90 s,
     * whatever {@code --timeout} says.
     *
     * @param timeout the command's {@code --timeout}
     * @return the policy for the command's writers and readers
     */
    static RetryPolicy retryWithin(Duration timeout) {
        Duration third = timeout.dividedBy(3);
        Retry policy = Retry.withExpBackoff(Duration.ofMillis(1), 10, Integer.MAX_VALUE,
                third.compareTo(MAX_RETRY_WAIT) < 0 ? third : MAX_RETRY_WAIT);
        long budget = timeout.toNanos();
        long waits = 0;
        int attempts = 1;
        while (attempts < MAX_RETRY_ATTEMPTS) {
            long next = policy.backoff(attempts).toNanos();
            if (waits + next > budget) {
                break;
            }
            waits += next;
            attempts++;
        }
        return RetryPolicy.exponential(policy.initialBackoff(), policy.multiplier(), attempts, policy.maxBackoff());
    }

    /**
     * @param timeout the command's {@code --timeout}
     * @return how a command's writer behaves: a write waits at most {@code timeout} for room, lost connections are
     *     retried as {@link #retryWithin} says
     */
    static WriterConfig writerConfig(Duration timeout) {
        return WriterConfig.DEFAULT.withBackpressureTimeout(timeout).withRetry(retryWithin(timeout));
    }

    /**
     * @param timeout the command's {@code --timeout}
     * @return how a command's readers behave: lost connections are retried as {@link #retryWithin} says
     */
    static ReaderConfig readerConfig(Duration timeout) {
        return ReaderConfig.DEFAULT.withRetry(retryWithin(timeout));
    }

    /**
     * @param controller a configuration from {@link #config}
     * @return how long opening a segment-store connection may take: {@code operationTimeout}, at most 10 s
     */
    static Duration connectTimeout(ControllerClientConfig controller) {
        Duration timeout = controller.operationTimeout();
        return timeout.compareTo(MAX_CONNECT_TIMEOUT) < 0 ? timeout : MAX_CONNECT_TIMEOUT;
    }


    /**
     * @param controller a configuration from {@link #config}
     * @return the configuration of a {@link io.sluice.client.SluiceClient} for the same cluster
     */
    static ClientConfig clientConfig(ControllerClientConfig controller) {
        ClientConfig.Builder b = ClientConfig.builder(uriText(controller))
                .validateHostname(controller.validateHostname()).rpcTimeout(controller.rpcTimeout())
                .operationTimeout(controller.operationTimeout()).connectTimeout(connectTimeout(controller));
        controller.trustStore().ifPresent(b::trustStore);
        controller.credentials().ifPresent(b::credentials);
        return b.build();
    }

    /** @return the controller URI of {@code controller} as text */
    private static String uriText(ControllerClientConfig controller) {
        ControllerUri uri = controller.controllerUri();
        return uri.scheme().text() + "://" + uri.endpoints().stream().map(Object::toString)
                .collect(java.util.stream.Collectors.joining(","));
    }
}
