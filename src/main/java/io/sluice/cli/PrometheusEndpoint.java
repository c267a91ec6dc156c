package io.sluice.cli;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.sluice.common.Threads;
import io.sluice.server.EmbeddedServer;

/**
 * {@code sluice server --metrics-port}: the server's metrics in a Micrometer Prometheus registry, served as
 * Prometheus' text format at {@code GET /metrics} by the JDK's HTTP server. The only class of the command line that
 * names Micrometer's types; {@link ServerCommand} checks that Micrometer is there before it loads this class (whose
 * verification would need Micrometer's classes), so a launcher without Micrometer
 * on its class path says so in one line instead of failing to link.
 */
final class PrometheusEndpoint implements AutoCloseable {
    private final PrometheusMeterRegistry registry;
    private final HttpServer http;
    private final String url;

    private PrometheusEndpoint(PrometheusMeterRegistry registry, HttpServer http, String url) {
        this.registry = registry;
        this.http = http;
        this.url = url;
    }

    /**
     * Binds {@code host:port} and gives {@code server} the registry it serves.
     *
     * @throws UncheckedIOException if the port cannot be bound
     */
    static PrometheusEndpoint start(String host, int port, EmbeddedServer.Builder server) {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        HttpServer http;
        try {
            http = HttpServer.create(new InetSocketAddress(host, port), 16);
        } catch (IOException e) {
            registry.close();
            throw new UncheckedIOException("cannot serve metrics on " + host + ":" + port + ": " + e.getMessage(), e);
        }
        http.setExecutor(Threads.perTaskExecutor("sluice-metrics-"));
        http.createContext("/metrics", exchange -> serve(exchange, registry));
        http.start();
        server.meterRegistry(registry);
        String where = http.getAddress().getAddress().getHostAddress();
        return new PrometheusEndpoint(registry, http, "http://" + (where.contains(":") ? "[" + where + "]" : where)
                + ":" + http.getAddress().getPort() + "/metrics");
    }

    private static void serve(HttpExchange exchange, PrometheusMeterRegistry registry) throws IOException {
        try (exchange) {
            if (!exchange.getRequestMethod().equals("GET") && !exchange.getRequestMethod().equals("HEAD")) {
                exchange.getResponseHeaders().set("Allow", "GET, HEAD");
                exchange.sendResponseHeaders(405, -1);
                return;
            }
            byte[] body = registry.scrape().getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
            if (exchange.getRequestMethod().equals("HEAD")) {
                exchange.sendResponseHeaders(200, -1);
                return;
            }
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        }
    }

    /** @return where the metrics are served, e.g. {@code http://127.0.0.1:9464/metrics} */
    String url() {
        return url;
    }

    /** Stops serving and closes the registry. */
    @Override
    public void close() {
        http.stop(0);
        registry.close();
    }
}
