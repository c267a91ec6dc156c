package io.sluice.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.sluice.client.SluiceClient;
import io.sluice.common.Deadline;
import io.sluice.stream.EventStreamWriter;
import io.sluice.stream.ScalingPolicy;
import io.sluice.stream.Serializers;
import io.sluice.stream.StreamConfiguration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code sluice server --metrics-port P}, in a child JVM with the project's class path (Micrometer included): after
 * a client wrote events, {@code GET /metrics} answers in Prometheus' text format with the server's metrics and the
 * values the workload implies.
 */
@Timeout(120)
class MetricsPortTest {
    private static final int EVENTS = 40;

    @TempDir
    Path dir;

    private static int freePort() throws Exception {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private static double value(String scrape, String metric) {
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(metric) + "(\\{[^}]*\\})? ([0-9.eE+-]+)$").matcher(scrape);
        assertThat(m.find()).as(metric + " in\n" + scrape).isTrue();
        return Double.parseDouble(m.group(2));
    }

    @Test
    void theServerServesItsMetricsInPrometheusTextFormat() throws Exception {
        int metricsPort = freePort();
        Path ready = dir.resolve("ready");
        Path log = dir.resolve("server.log");
        Process server = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m", "-cp", System.getProperty("java.class.path"), "io.sluice.cli.Main", "server",
                "--controller-port", "0", "--segment-store-port", "0", "--containers", "2",
                "--data-dir", dir.resolve("data").toString(), "--no-fsync",
                "--metrics-port", String.valueOf(metricsPort), "--ready-file", ready.toString())
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            Deadline deadline = Deadline.after(Duration.ofSeconds(60));
            while (!Files.exists(ready)) {
                assertThat(server.isAlive()).as(Files.readString(log)).isTrue();
                assertThat(deadline.expired()).as("ready in time: " + Files.readString(log)).isFalse();
                server.waitFor(20, TimeUnit.MILLISECONDS);
            }
            assertThat(Files.readString(log)).contains("metrics:       http://127.0.0.1:" + metricsPort + "/metrics");
            String uri = Files.readString(ready).trim();
            try (SluiceClient client = SluiceClient.connect(uri)) {
                client.streamManager().createScope("scraped");
                client.streamManager().createStream("scraped", "s",
                        StreamConfiguration.builder().scalingPolicy(ScalingPolicy.fixed(1)).build());
                try (EventStreamWriter<String> w = client.newWriter("scraped", "s", Serializers.utf8())) {
                    for (int i = 0; i < EVENTS; i++) {
                        w.write("k", "0123456789"); // 10 bytes + an 8-byte header on the wire
                    }
                    w.flush();
                }
                HttpClient http = HttpClient.newHttpClient();
                HttpResponse<String> r = http.send(HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + metricsPort + "/metrics")).build(),
                        HttpResponse.BodyHandlers.ofString());
                assertThat(r.statusCode()).isEqualTo(200);
                assertThat(r.headers().firstValue("Content-Type")).hasValueSatisfying(
                        t -> assertThat(t).startsWith("text/plain"));
                String scrape = r.body();
                assertThat(scrape).contains("# TYPE sluice_server_appended_events_total counter",
                        "# TYPE sluice_server_durable_flush_seconds summary");
                assertThat(value(scrape, "sluice_server_appended_events_total")).isEqualTo(EVENTS);
                assertThat(value(scrape, "sluice_server_appended_bytes_total")).isEqualTo(EVENTS * 18.0);
                assertThat(value(scrape, "sluice_server_appends_total")).isBetween(1.0, (double) EVENTS);
                assertThat(value(scrape, "sluice_server_containers")).isEqualTo(2);
                assertThat(value(scrape, "sluice_server_segments")).isPositive();
                assertThat(value(scrape, "sluice_server_connections")).as("this client's").isPositive();
                assertThat(value(scrape, "sluice_server_durable_flush_seconds_count")).isPositive();
                assertThat(value(scrape, "sluice_server_reads_total")).isGreaterThanOrEqualTo(0);

                HttpResponse<String> post = http.send(HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + metricsPort + "/metrics"))
                        .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
                assertThat(post.statusCode()).isEqualTo(405);
            }
        } finally {
            server.destroy();
            assertThat(server.waitFor(30, TimeUnit.SECONDS)).as("the server stops on SIGTERM").isTrue();
        }
    }
}
