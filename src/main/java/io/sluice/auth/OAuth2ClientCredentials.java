package io.sluice.auth;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.net.ConnectException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Base64;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.sluice.common.Deadline;
import io.sluice.common.Json;
import io.sluice.common.Threads;
import io.sluice.common.TokenCache;
import io.sluice.errors.AuthenticationException;
import io.sluice.errors.AuthorizationException;
import io.sluice.errors.ConnectionFailedException;
import io.sluice.errors.DeadlineExceededException;
import io.sluice.errors.ProtocolException;
import io.sluice.errors.ServiceUnavailableException;
import io.sluice.errors.SluiceException;
import io.sluice.errors.StreamingInterruptedException;

/**
 * Bearer tokens from an OAuth2 token endpoint with the client-credentials grant (RFC 6749 §4.4), e.g. Keycloak's
 * {@code <server>/realms/<realm>/protocol/openid-connect/token}. The header is
 * {@code authorization: Bearer <token>}.
 *
 * <p><b>Keycloak and Pravega.</b> A Pravega controller secured with Pravega's Keycloak plugin checks the permissions
 * in a Keycloak <em>requesting party token</em> (RPT), not a plain access token. So, like Pravega's own Keycloak
 * client, credentials made by {@link #keycloak} or {@link #fromKeycloakJson} (or a builder after
 * {@link Builder#keycloak} / {@link Builder#keycloakJson}) exchange each access token for an RPT with audience
 * {@value #PRAVEGA_CONTROLLER_AUDIENCE} in a second request to the same endpoint; {@link Builder#umaAudience} changes
 * the audience or, with null, turns the exchange off.
 *
 * <pre>{@code
 * // Keycloak: server URL, realm, client id and secret
 * OAuth2ClientCredentials credentials = OAuth2ClientCredentials.keycloak(
 *         URI.create("https://keycloak.example.com"), "pravega", "my-app", secret);
 * // or from Keycloak's client adapter file
 * OAuth2ClientCredentials credentials = OAuth2ClientCredentials.fromKeycloakJson(Path.of("keycloak.json"));
 * // any OAuth2 server, every option
 * OAuth2ClientCredentials credentials = OAuth2ClientCredentials.builder()
 *         .tokenEndpoint(URI.create("https://idp.example.com/oauth2/token"))
 *         .client("my-app", secret)
 *         .scope("pravega")
 *         .build();
 * }</pre>
 *
 * <p><b>Requests.</b> {@code POST} with the form {@code grant_type=client_credentials} (and {@code scope} if set).
 * The client authenticates with an HTTP Basic header of its form-encoded id and secret ({@code client_secret_basic},
 * what RFC 6749 §2.3.1 asks servers to support) or, if configured, with {@code client_id} and {@code client_secret}
 * form fields ({@code client_secret_post}). With an RPT audience, a second {@code POST} sends
 * {@code grant_type=urn:ietf:params:oauth:grant-type:uma-ticket&audience=<audience>} with
 * {@code authorization: Bearer <access token>}. Redirects are not followed (the secret goes to the configured URL
 * only).
 *
 * <p><b>Caching and refresh.</b> The access token is cached and fetched again before it expires: by default
 * {@code min(30 s, 10% of its lifetime)} before {@code expires_in} runs out, or by the configured
 * {@linkplain Builder#refreshMargin margin} (at most half the lifetime). A response without {@code expires_in} is
 * assumed to last {@linkplain Builder#defaultLifetime 60 s}. Many threads may call {@link #token()} at once: at most
 * one request to the endpoint is in flight, the others wait for it up to the request timeout, and no lock is held
 * during the request. If a refresh fails while the old token has not yet expired, callers keep the old token and
 * the refresh is tried again a second later.
 *
 * <p><b>Errors.</b> {@link #token()} throws {@link AuthenticationException} when the endpoint turns the client down
 * (HTTP 400/401/403, e.g. {@code invalid_client}; the message names the endpoint, the client and the OAuth2 error),
 * {@link AuthorizationException} when Keycloak refuses the RPT (HTTP 403, e.g. {@code access_denied}),
 * {@link ProtocolException} for a malformed answer, and retriable exceptions for transient trouble:
 * {@link ConnectionFailedException} (endpoint unreachable), {@link DeadlineExceededException} (no answer within the
 * {@linkplain Builder#requestTimeout request timeout}, 10 s by default) and {@link ServiceUnavailableException}
 * (HTTP 408, 429, 5xx).
 *
 * <p>Thread-safe. {@link #close()} releases the HTTP client this object created (its selector thread would otherwise
 * live until garbage collection); a client passed to {@link Builder#httpClient} is left alone.
 */
public final class OAuth2ClientCredentials implements Credentials, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(OAuth2ClientCredentials.class);

    /** The authentication method, {@value}. */
    public static final String METHOD = "Bearer";

    /** Refresh margin when none is configured: at most this much before expiry (or 10% of the lifetime). */
    public static final Duration DEFAULT_MAX_REFRESH_MARGIN = Duration.ofSeconds(30);
    /** How long a token is assumed to last when the response has no {@code expires_in}. */
    public static final Duration DEFAULT_LIFETIME = Duration.ofSeconds(60);
    /** How long one request to the token endpoint may take, connecting included. */
    public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(10);

    /**
     * The audience Pravega's Keycloak plugin asks requesting party tokens for: the Pravega controller's client id in
     * Keycloak, {@value}.
     */
    public static final String PRAVEGA_CONTROLLER_AUDIENCE = "pravega-controller";
    /** Keycloak's grant for requesting party tokens (UMA 2.0). */
    static final String UMA_GRANT_TYPE = "urn:ietf:params:oauth:grant-type:uma-ticket";

    /** Largest token response read; Keycloak's are a few KiB. */
    static final int MAX_RESPONSE_BYTES = 1 << 20;
    /** Longest lifetime believed, so a silly {@code expires_in} cannot overflow the arithmetic. */
    private static final Duration MAX_LIFETIME = Duration.ofDays(3650);
    /** Extra wait for callers beyond the request timeout, so the fetch's own (more precise) error reaches them. */
    private static final Duration WAIT_GRACE = Duration.ofMillis(500);

    /** How the client proves its identity to the token endpoint (OpenID Connect registered names). */
    public enum ClientAuthentication {
        /** HTTP Basic header with the form-encoded client id and secret (the default; RFC 6749 §2.3.1). */
        CLIENT_SECRET_BASIC,
        /** {@code client_id} and {@code client_secret} in the request body. */
        CLIENT_SECRET_POST
    }

    private final URI tokenEndpoint;
    private final String clientId;
    private final String clientSecret;
    private final String scope;
    private final ClientAuthentication clientAuthentication;
    private final String umaAudience;
    private final Duration refreshMargin;
    private final Duration defaultLifetime;
    private final Duration requestTimeout;
    private final HttpClient http;
    private final ExecutorService ownExecutor;
    private final TokenCache cache;
    private final AtomicBoolean closed = new AtomicBoolean();

    private OAuth2ClientCredentials(Builder b) {
        this.tokenEndpoint = b.tokenEndpoint;
        this.clientId = b.clientId;
        this.clientSecret = b.clientSecret;
        this.scope = b.scope;
        this.clientAuthentication = b.clientAuthentication;
        this.umaAudience = b.umaAudienceSet ? b.umaAudience : b.keycloak ? PRAVEGA_CONTROLLER_AUDIENCE : null;
        this.refreshMargin = b.refreshMargin;
        this.defaultLifetime = b.defaultLifetime;
        this.requestTimeout = b.requestTimeout;
        if (b.httpClient != null) {
            this.http = b.httpClient;
            this.ownExecutor = null;
        } else {
            this.ownExecutor = Threads.perTaskExecutor("sluice-oauth2-http-");
            this.http = HttpClient.newBuilder()
                    .connectTimeout(requestTimeout)
                    .followRedirects(HttpClient.Redirect.NEVER)
                    .executor(ownExecutor)
                    .build();
        }
        this.cache = new TokenCache("OAuth2 (client '" + clientId + "' at " + tokenEndpoint + ")", this::fetch,
                b.clock);
    }

    /** @return a builder with every option at its default */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Credentials for a Keycloak client as Pravega's Keycloak plugin uses them: client-credentials grant, then an
     * RPT for audience {@value #PRAVEGA_CONTROLLER_AUDIENCE}; every other option at its default.
     *
     * @param serverUrl Keycloak's base URL, e.g. {@code https://keycloak.example.com} (or
     *                  {@code https://host/auth} for Keycloak before version 17)
     * @param realm the realm
     * @param clientId the client id (a confidential client with service accounts enabled)
     * @param clientSecret the client secret
     * @return the credentials; nothing is fetched until the first {@link #token()}
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if an argument is empty or the URL is not absolute http(s)
     */
    public static OAuth2ClientCredentials keycloak(URI serverUrl, String realm, String clientId, String clientSecret) {
        return builder().keycloak(serverUrl, realm).client(clientId, clientSecret).build();
    }

    /**
     * Credentials from a Keycloak client adapter file ({@code keycloak.json}, as downloaded from the Keycloak admin
     * console and used by Pravega's Keycloak plugin): {@code auth-server-url}, {@code realm}, {@code resource} (the
     * client id) and {@code credentials.secret}. Other fields are ignored. Like {@link #keycloak}, tokens are RPTs
     * for audience {@value #PRAVEGA_CONTROLLER_AUDIENCE}.
     *
     * @param file the file; read now
     * @return the credentials, other options at their defaults
     * @throws UncheckedIOException if the file cannot be read
     * @throws IllegalArgumentException if it is not valid JSON or lacks a field (the message names it)
     */
    public static OAuth2ClientCredentials fromKeycloakJson(Path file) {
        return builder().keycloakJson(file).build();
    }

    /**
     * @param serverUrl Keycloak's base URL
     * @param realm the realm
     * @return {@code serverUrl/realms/<realm>/protocol/openid-connect/token}
     * @throws IllegalArgumentException if the URL is not absolute http(s) or the realm is empty
     */
    public static URI keycloakTokenEndpoint(URI serverUrl, String realm) {
        checkHttpUri("Keycloak server URL", serverUrl);
        requireNonEmpty("realm", realm);
        String base = serverUrl.toString();
        while (base.endsWith("/")) {
            base = base.substring(0, base.length() - 1);
        }
        String encodedRealm = URLEncoder.encode(realm, StandardCharsets.UTF_8).replace("+", "%20");
        try {
            return new URI(base + "/realms/" + encodedRealm + "/protocol/openid-connect/token");
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("cannot build a token endpoint from " + serverUrl + ": " + e.getMessage(),
                    e);
        }
    }

    /** @return {@value #METHOD} */
    @Override
    public String method() {
        return METHOD;
    }

    /**
     * Returns a current access token, fetching one if none is cached or the cached one is due for refresh.
     *
     * @return the access token
     * @throws AuthenticationException if the endpoint rejects the client
     * @throws AuthorizationException if Keycloak refuses the client an RPT for the audience
     * @throws ProtocolException if the endpoint's answer is malformed
     * @throws ConnectionFailedException if the endpoint is unreachable (retriable)
     * @throws DeadlineExceededException if no answer came within the request timeout (retriable)
     * @throws ServiceUnavailableException if the endpoint answered HTTP 408, 429 or 5xx (retriable)
     * @throws StreamingInterruptedException if interrupted while waiting
     * @throws IllegalStateException if closed
     */
    @Override
    public String token() {
        checkOpen();
        return cache.get(Deadline.after(requestTimeout.plus(WAIT_GRACE)));
    }

    /**
     * Called when a server rejected a token from {@link #token()} (e.g. gRPC {@code UNAUTHENTICATED}): drops it and
     * fetches a new one, unless another thread already did, in which case that newer token is returned. Blocks like
     * {@link #token()}.
     *
     * @param rejectedToken the token that was turned down
     * @return a token other than {@code rejectedToken}
     * @throws NullPointerException if {@code rejectedToken} is null
     * @throws SluiceException as {@link #token()}
     */
    public String refreshAfterRejected(String rejectedToken) {
        checkOpen();
        return cache.refreshAfterRejected(rejectedToken, Deadline.after(requestTimeout.plus(WAIT_GRACE)));
    }

    /** @return the token endpoint */
    public URI tokenEndpoint() {
        return tokenEndpoint;
    }

    /** @return the client id */
    public String clientId() {
        return clientId;
    }

    /** @return the requested scope, or null if none */
    public String scope() {
        return scope;
    }

    /** @return the audience requesting party tokens are asked for, or null if the access token is used as is */
    public String umaAudience() {
        return umaAudience;
    }

    /**
     * Releases the HTTP client this object created; later calls to {@link #token()} throw. Does not block on
     * requests in flight (they are aborted). Idempotent.
     */
    @Override
    public void close() {
        if (closed.compareAndSet(false, true) && ownExecutor != null) {
            http.shutdownNow();
            ownExecutor.shutdown();
        }
    }

    /** @return the endpoint and client id, never the secret */
    @Override
    public String toString() {
        return "OAuth2ClientCredentials[endpoint=" + tokenEndpoint + ", clientId=" + clientId
                + (scope == null ? "" : ", scope=" + scope) + (umaAudience == null ? "" : ", rpt=" + umaAudience) + "]";
    }

    /** @return how many requests were sent to the token endpoint (for tests) */
    int fetchCount() {
        return cache.fetchCount();
    }

    /** @return how many callers wait for a request to the token endpoint (for tests) */
    int waitingCount() {
        return cache.waitingCount();
    }

    private void checkOpen() {
        if (closed.get()) {
            throw new IllegalStateException(this + " is closed");
        }
    }

    // ---- one request to the token endpoint (runs on the cache's fetch thread) ----

    private TokenCache.Token fetch(Instant start) {
        TokenCache.Token access = exchange(clientCredentialsRequest(), "client-credentials grant", start);
        if (umaAudience == null) {
            return access;
        }
        return exchange(umaRequest(access.value()), "UMA grant for audience '" + umaAudience + "'", start);
    }

    private TokenCache.Token exchange(HttpRequest request, String step, Instant start) {
        HttpResponse<byte[]> response = send(request);
        String body = new String(response.body(), StandardCharsets.UTF_8);
        int status = response.statusCode();
        if (status >= 200 && status < 300) {
            return parseToken(body, start, step);
        }
        throw failure(status, body, step);
    }

    private HttpRequest.Builder formPost() {
        return HttpRequest.newBuilder(tokenEndpoint)
                .timeout(requestTimeout)
                .header("Content-Type", "application/x-www-form-urlencoded")
                .header("Accept", "application/json");
    }

    /** Keycloak's requesting-party-token request: the access token stands for the client. */
    private HttpRequest umaRequest(String accessToken) {
        String form = "grant_type=" + formEncode(UMA_GRANT_TYPE) + "&audience=" + formEncode(umaAudience);
        return formPost()
                .header("Authorization", "Bearer " + accessToken)
                .POST(HttpRequest.BodyPublishers.ofString(form, StandardCharsets.UTF_8))
                .build();
    }

    private HttpRequest clientCredentialsRequest() {
        StringBuilder form = new StringBuilder("grant_type=client_credentials");
        if (scope != null) {
            form.append("&scope=").append(formEncode(scope));
        }
        HttpRequest.Builder request = formPost();
        if (clientAuthentication == ClientAuthentication.CLIENT_SECRET_BASIC) {
            String pair = formEncode(clientId) + ":" + formEncode(clientSecret);
            request.header("Authorization",
                    "Basic " + Base64.getEncoder().encodeToString(pair.getBytes(StandardCharsets.UTF_8)));
        } else {
            form.append("&client_id=").append(formEncode(clientId))
                    .append("&client_secret=").append(formEncode(clientSecret));
        }
        return request.POST(HttpRequest.BodyPublishers.ofString(form.toString(), StandardCharsets.UTF_8)).build();
    }

    private HttpResponse<byte[]> send(HttpRequest request) {
        String where = "token endpoint " + tokenEndpoint;
        CompletableFuture<HttpResponse<byte[]>> exchange =
                http.sendAsync(request, LimitedBodySubscriber.handler(MAX_RESPONSE_BYTES, where));
        try {
            // the request timeout covers the answer's headers only; this bounds the whole exchange
            return exchange.get(requestTimeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            exchange.cancel(true);
            throw new DeadlineExceededException(where + " did not answer within " + requestTimeout.toMillis() + " ms");
        } catch (InterruptedException e) {
            exchange.cancel(true);
            Thread.currentThread().interrupt();
            throw new StreamingInterruptedException("interrupted while calling " + where, e);
        } catch (ExecutionException e) {
            throw mapSendFailure(where, e.getCause());
        }
    }

    private RuntimeException mapSendFailure(String where, Throwable failure) {
        Throwable cause = failure;
        while (cause instanceof CompletionException && cause.getCause() != null) {
            cause = cause.getCause();
        }
        for (Throwable t = cause; t != null; t = t.getCause()) {
            if (t instanceof SluiceException se) {
                return se; // e.g. the body limit
            }
        }
        if (cause instanceof HttpConnectTimeoutException) {
            return new ConnectionFailedException("cannot connect to " + where + ": connect timed out after "
                    + requestTimeout.toMillis() + " ms", cause);
        }
        if (cause instanceof HttpTimeoutException) {
            return new DeadlineExceededException(where + " did not answer within " + requestTimeout.toMillis()
                    + " ms", cause);
        }
        if (cause instanceof ConnectException) {
            return new ConnectionFailedException("cannot connect to " + where + ": " + cause, cause);
        }
        if (cause instanceof IOException) {
            return new ConnectionFailedException("request to " + where + " failed: " + cause, cause);
        }
        return new SluiceException("request to " + where + " failed: " + cause, cause);
    }

    private TokenCache.Token parseToken(String body, Instant start, String step) {
        String where = "token endpoint " + tokenEndpoint + " (" + step + ")";
        Map<String, Object> json;
        try {
            json = Json.parseObject(body);
        } catch (Json.ParseException e) {
            throw new ProtocolException(where + " returned a malformed token response (" + e.getMessage() + "): "
                    + excerpt(body), e);
        }
        Object accessToken = json.get("access_token");
        if (!(accessToken instanceof String value) || value.isEmpty()) {
            throw new ProtocolException(where + " returned no access_token (found " + Json.typeName(accessToken)
                    + ")");
        }
        try {
            BearerCredentials.checkHeaderToken("access_token", value);
        } catch (IllegalArgumentException e) {
            throw new ProtocolException(where + " returned an unusable access_token: " + e.getMessage(), e);
        }
        Object tokenType = json.get("token_type");
        if (tokenType != null && !(tokenType instanceof String type && type.equalsIgnoreCase(METHOD))) {
            throw new ProtocolException(where + " returned token_type " + tokenType
                    + "; only Bearer tokens are supported");
        }
        Duration lifetime = lifetime(json.get("expires_in"));
        Duration margin = refreshMargin != null ? refreshMargin : min(DEFAULT_MAX_REFRESH_MARGIN, lifetime.dividedBy(10));
        margin = min(margin, lifetime.dividedBy(2));
        Instant expiresAt = start.plus(lifetime);
        LOG.debug("token endpoint {} issued a token for client '{}' ({}) valid for {}", tokenEndpoint, clientId, step,
                lifetime);
        return new TokenCache.Token(value, expiresAt.minus(margin), expiresAt, false);
    }

    /** @return the lifetime {@code expires_in} states, or the default lifetime if it is absent or unusable */
    private Duration lifetime(Object expiresIn) {
        BigDecimal seconds = null;
        if (expiresIn instanceof BigDecimal number) {
            seconds = number;
        } else if (expiresIn instanceof String text) {
            // some servers send it as a string
            try {
                seconds = new BigDecimal(text.trim());
            } catch (NumberFormatException e) {
                seconds = null;
            }
        }
        if (seconds == null || seconds.signum() <= 0) {
            if (expiresIn != null) {
                LOG.warn("token endpoint {} sent expires_in {}; assuming the token lasts {}", tokenEndpoint,
                        expiresIn, defaultLifetime);
            }
            return defaultLifetime;
        }
        if (seconds.compareTo(BigDecimal.valueOf(MAX_LIFETIME.toSeconds())) > 0) {
            return MAX_LIFETIME;
        }
        return Duration.ofMillis(seconds.movePointRight(3).longValue());
    }

    private SluiceException failure(int status, String body, String step) {
        String detail = oauthError(body);
        String where = "token endpoint " + tokenEndpoint;
        if (status == 408 || status == 429 || status >= 500) {
            return new ServiceUnavailableException(where + " is unavailable (" + step + ", HTTP " + status + "): "
                    + detail);
        }
        if (status == 403 && umaAudience != null && !step.startsWith("client")) {
            return new AuthorizationException(where + " denied client '" + clientId + "' a token for audience '"
                    + umaAudience + "' (" + step + ", HTTP 403): " + detail);
        }
        if (status == 400 || status == 401 || status == 403) {
            return new AuthenticationException(where + " rejected client '" + clientId + "' (" + step + ", HTTP "
                    + status + "): " + detail);
        }
        if (status >= 300 && status < 400) {
            return new AuthenticationException(where + " answered with a redirect (" + step + ", HTTP " + status
                    + "); configure the final token endpoint URL");
        }
        return new AuthenticationException(where + " answered HTTP " + status + " for client '" + clientId + "' ("
                + step + "; is the URL or realm right?): " + detail);
    }

    /** @return "error: description" from an RFC 6749 §5.2 error response, or an excerpt of the body */
    private static String oauthError(String body) {
        try {
            Map<String, Object> json = Json.parseObject(body);
            Object error = json.get("error");
            Object description = json.get("error_description");
            if (error instanceof String code) {
                return description instanceof String text ? code + ": " + text : code;
            }
        } catch (Json.ParseException e) {
            // not JSON: show what came instead
        }
        return body.isBlank() ? "(empty body)" : excerpt(body);
    }

    private static String excerpt(String body) {
        String oneLine = body.replaceAll("\\s+", " ").strip();
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < oneLine.length() && out.length() < 200; i++) {
            char c = oneLine.charAt(i);
            out.append(c < 0x20 || c == 0x7f ? '?' : c);
        }
        return out.length() < oneLine.length() ? out + "..." : out.toString();
    }

    private static String formEncode(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }

    private static String requireNonEmpty(String what, String value) {
        Objects.requireNonNull(value, what);
        if (value.isEmpty()) {
            throw new IllegalArgumentException(what + " must not be empty");
        }
        return value;
    }

    private static URI checkHttpUri(String what, URI uri) {
        Objects.requireNonNull(uri, what);
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!uri.isAbsolute() || !(scheme.equals("http") || scheme.equals("https")) || uri.getHost() == null) {
            throw new IllegalArgumentException(what + " must be an absolute http or https URL: " + uri);
        }
        return uri;
    }

    private static Duration checkPositive(String what, Duration d) {
        Objects.requireNonNull(d, what);
        if (d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(what + " must be positive: " + d);
        }
        return d;
    }

    /**
     * Collects the options of {@link OAuth2ClientCredentials}. Not thread-safe; {@link #build()} checks everything.
     */
    public static final class Builder {
        private URI tokenEndpoint;
        private String clientId;
        private String clientSecret;
        private String scope;
        private ClientAuthentication clientAuthentication = ClientAuthentication.CLIENT_SECRET_BASIC;
        private boolean keycloak;
        private boolean umaAudienceSet;
        private String umaAudience;
        private Duration refreshMargin;
        private Duration defaultLifetime = DEFAULT_LIFETIME;
        private Duration requestTimeout = DEFAULT_REQUEST_TIMEOUT;
        private HttpClient httpClient;
        private InstantSource clock = InstantSource.system();

        private Builder() {
        }

        /**
         * @param uri the token endpoint, absolute http(s)
         * @return this builder
         * @throws IllegalArgumentException if it is not an absolute http(s) URL
         */
        public Builder tokenEndpoint(URI uri) {
            this.tokenEndpoint = checkHttpUri("token endpoint", uri);
            return this;
        }

        /**
         * Sets the token endpoint to Keycloak's for a realm (see {@link #keycloakTokenEndpoint(URI, String)}).
         *
         * @param serverUrl Keycloak's base URL
         * @param realm the realm
         * @return this builder
         * @throws IllegalArgumentException if the URL is not absolute http(s) or the realm is empty
         */
        public Builder keycloak(URI serverUrl, String realm) {
            this.tokenEndpoint = keycloakTokenEndpoint(serverUrl, realm);
            this.keycloak = true;
            return this;
        }

        /**
         * Sets the token endpoint, client id and secret from a Keycloak client adapter file (see
         * {@link OAuth2ClientCredentials#fromKeycloakJson(Path)}).
         *
         * @param file the file; read now
         * @return this builder
         * @throws UncheckedIOException if the file cannot be read
         * @throws IllegalArgumentException if it is not valid JSON or lacks a field
         */
        public Builder keycloakJson(Path file) {
            Objects.requireNonNull(file, "keycloak.json file");
            String text;
            try {
                text = Files.readString(file, StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read Keycloak client file " + file + ": " + e, e);
            }
            Map<String, Object> json;
            try {
                json = Json.parseObject(text);
            } catch (Json.ParseException e) {
                throw new IllegalArgumentException("Keycloak client file " + file + " is not valid: " + e.getMessage(),
                        e);
            }
            if (Boolean.TRUE.equals(json.get("public-client"))) {
                throw new IllegalArgumentException("Keycloak client file " + file + " describes a public client;"
                        + " the client-credentials grant needs a confidential client with a secret");
            }
            String serverUrl = stringField(file, json, "auth-server-url");
            String realm = stringField(file, json, "realm");
            String resource = stringField(file, json, "resource");
            Object credentials = json.get("credentials");
            Object secret = credentials instanceof Map<?, ?> map ? map.get("secret") : null;
            if (!(secret instanceof String secretText) || secretText.isEmpty()) {
                throw new IllegalArgumentException("Keycloak client file " + file + " has no credentials.secret"
                        + " (only client-secret authentication is supported)");
            }
            URI server;
            try {
                server = new URI(serverUrl);
            } catch (URISyntaxException e) {
                throw new IllegalArgumentException("Keycloak client file " + file + ": auth-server-url is not a URL: "
                        + serverUrl, e);
            }
            this.tokenEndpoint = keycloakTokenEndpoint(server, realm);
            this.keycloak = true;
            return client(resource, secretText);
        }

        private static String stringField(Path file, Map<String, Object> json, String name) {
            Object value = json.get(name);
            if (!(value instanceof String text) || text.isEmpty()) {
                throw new IllegalArgumentException("Keycloak client file " + file + " has no " + name
                        + (value == null ? "" : " (found " + Json.typeName(value) + ")"));
            }
            return text;
        }

        /**
         * @param id the client id
         * @param secret the client secret
         * @return this builder
         * @throws NullPointerException if either is null
         * @throws IllegalArgumentException if either is empty
         */
        public Builder client(String id, String secret) {
            this.clientId = requireNonEmpty("client id", id);
            this.clientSecret = requireNonEmpty("client secret", secret);
            return this;
        }

        /**
         * @param scope the scope to request (space-separated values); null for none
         * @return this builder
         * @throws IllegalArgumentException if it is empty or blank
         */
        public Builder scope(String scope) {
            if (scope != null && scope.isBlank()) {
                throw new IllegalArgumentException("scope must not be blank (use null for none)");
            }
            this.scope = scope;
            return this;
        }

        /**
         * Exchanges each access token for a Keycloak requesting party token (RPT) for {@code audience}: a second
         * request to the same endpoint with {@code grant_type=urn:ietf:params:oauth:grant-type:uma-ticket},
         * {@code audience} and the access token as bearer. The RPT carries the permissions Keycloak's authorization
         * services grant, which is what Pravega's Keycloak plugin checks. Default: {@value #PRAVEGA_CONTROLLER_AUDIENCE}
         * once {@link #keycloak} or {@link #keycloakJson} was called, else none.
         *
         * @param audience the resource server's client id, or null to send the access token itself
         * @return this builder
         * @throws IllegalArgumentException if it is empty
         */
        public Builder umaAudience(String audience) {
            if (audience != null && audience.isEmpty()) {
                throw new IllegalArgumentException("umaAudience must not be empty (use null for none)");
            }
            this.umaAudience = audience;
            this.umaAudienceSet = true;
            return this;
        }

        /**
         * @param how how the client authenticates to the endpoint (default {@code CLIENT_SECRET_BASIC})
         * @return this builder
         */
        public Builder clientAuthentication(ClientAuthentication how) {
            this.clientAuthentication = Objects.requireNonNull(how, "clientAuthentication");
            return this;
        }

        /**
         * @param margin how long before expiry to fetch a new token (capped at half the token's lifetime); the
         *               default is {@code min(30 s, 10% of the lifetime)}
         * @return this builder
         * @throws IllegalArgumentException if negative
         */
        public Builder refreshMargin(Duration margin) {
            Objects.requireNonNull(margin, "refreshMargin");
            if (margin.isNegative()) {
                throw new IllegalArgumentException("refreshMargin must not be negative: " + margin);
            }
            this.refreshMargin = margin;
            return this;
        }

        /**
         * @param lifetime how long a token lasts when the endpoint does not say ({@code expires_in} absent); default
         *                 60 s
         * @return this builder
         * @throws IllegalArgumentException if not positive
         */
        public Builder defaultLifetime(Duration lifetime) {
            this.defaultLifetime = checkPositive("defaultLifetime", lifetime);
            return this;
        }

        /**
         * @param timeout the longest one exchange with the endpoint may take, connecting included; default 10 s
         * @return this builder
         * @throws IllegalArgumentException if not positive
         */
        public Builder requestTimeout(Duration timeout) {
            this.requestTimeout = checkPositive("requestTimeout", timeout);
            return this;
        }

        /**
         * @param client the HTTP client to use, e.g. one with a custom {@code SSLContext} or proxy; it should not
         *               follow redirects. Default: a client this object creates and {@linkplain #close() closes}.
         * @return this builder
         */
        public Builder httpClient(HttpClient client) {
            this.httpClient = Objects.requireNonNull(client, "httpClient");
            return this;
        }

        /**
         * @param source the time used to decide when tokens are due (tests inject one); default the system clock
         * @return this builder
         */
        public Builder clock(InstantSource source) {
            this.clock = Objects.requireNonNull(source, "clock");
            return this;
        }

        /**
         * @return the credentials; nothing is fetched until the first {@link OAuth2ClientCredentials#token()}
         * @throws IllegalStateException if the token endpoint or the client id and secret are not set
         */
        public OAuth2ClientCredentials build() {
            if (tokenEndpoint == null) {
                throw new IllegalStateException("no token endpoint: call tokenEndpoint(), keycloak() or keycloakJson()");
            }
            if (clientId == null) {
                throw new IllegalStateException("no client id and secret: call client() or keycloakJson()");
            }
            return new OAuth2ClientCredentials(this);
        }
    }
}
