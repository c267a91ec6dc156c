package io.sluice.auth;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

/**
 * A token endpoint on loopback (JDK HttpServer, port 0) that records every request and answers with replies the
 * test queued, optionally holding a reply until a gate opens.
 */
final class FakeTokenEndpoint implements AutoCloseable {
    static final String PATH = "/realms/pravega/protocol/openid-connect/token";

    /** A request as received. */
    record Request(String method, String path, Headers headers, String body) {
        String header(String name) {
            return headers.getFirst(name);
        }

        /** @return the form fields of an x-www-form-urlencoded body */
        Map<String, String> form() {
            Map<String, String> fields = new LinkedHashMap<>();
            if (body.isEmpty()) {
                return fields;
            }
            for (String pair : body.split("&")) {
                int eq = pair.indexOf('=');
                fields.put(URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8),
                        URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
            }
            return fields;
        }
    }

    private record Reply(int status, byte[] body, CountDownLatch gate) {
    }

    private final HttpServer server;
    private final ExecutorService executor = Executors.newCachedThreadPool();
    private final BlockingQueue<Request> requests = new LinkedBlockingQueue<>();
    private final BlockingQueue<Reply> replies = new LinkedBlockingQueue<>();
    private final AtomicInteger requestCount = new AtomicInteger();

    FakeTokenEndpoint() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", this::handle);
        server.setExecutor(executor);
        server.start();
    }

    /** @return the URL of {@code path} on this server */
    URI uri(String path) {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + path);
    }

    /** @return the default token endpoint URL */
    URI tokenEndpoint() {
        return uri(PATH);
    }

    /** @return the Keycloak base URL whose realm "pravega" is this endpoint */
    URI serverUrl() {
        return uri("");
    }

    /** Queues a reply. */
    void reply(int status, String body) {
        replies.add(new Reply(status, body.getBytes(StandardCharsets.UTF_8), null));
    }

    /** Queues a reply of raw bytes. */
    void reply(int status, byte[] body) {
        replies.add(new Reply(status, body, null));
    }

    /** Queues a reply that is held back until {@code gate} opens. */
    void replyWhenOpen(CountDownLatch gate, int status, String body) {
        replies.add(new Reply(status, body.getBytes(StandardCharsets.UTF_8), gate));
    }

    /** Queues a successful token response. */
    void replyToken(String accessToken, long expiresInSeconds) {
        reply(200, tokenJson(accessToken, expiresInSeconds));
    }

    static String tokenJson(String accessToken, long expiresInSeconds) {
        return "{\"access_token\":\"" + accessToken + "\",\"expires_in\":" + expiresInSeconds
                + ",\"refresh_expires_in\":0,\"token_type\":\"Bearer\",\"not-before-policy\":0,\"scope\":\"profile\"}";
    }

    /** @return the next request received, waiting up to 10 s */
    Request takeRequest() throws InterruptedException {
        Request request = requests.poll(10, TimeUnit.SECONDS);
        if (request == null) {
            throw new AssertionError("the token endpoint received no request within 10 s");
        }
        return request;
    }

    /** @return how many requests arrived so far */
    int requestCount() {
        return requestCount.get();
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            String body;
            try (InputStream in = exchange.getRequestBody()) {
                body = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
            requestCount.incrementAndGet();
            requests.add(new Request(exchange.getRequestMethod(), exchange.getRequestURI().getPath(),
                    exchange.getRequestHeaders(), body));
            Reply reply;
            try {
                reply = replies.poll(10, TimeUnit.SECONDS);
                if (reply != null && reply.gate() != null && !reply.gate().await(10, TimeUnit.SECONDS)) {
                    reply = null;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                reply = null;
            }
            if (reply == null) {
                reply = new Reply(599, "no reply queued".getBytes(StandardCharsets.UTF_8), null);
            }
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(reply.status(), reply.body().length == 0 ? -1 : reply.body().length);
            if (reply.body().length > 0) {
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(reply.body());
                }
            }
        }
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
