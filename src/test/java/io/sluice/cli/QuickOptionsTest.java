package io.sluice.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.reflect.Field;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import picocli.CommandLine;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Option;

/**
 * {@code sluice server}'s quick parse ({@link QuickOptions}) against picocli's: for every line it accepts, every
 * option field ends as picocli sets it; every line it is not sure of goes to picocli.
 */
@Timeout(60)
class QuickOptionsTest {

    /** @return every option field of a server command, its groups' fields included, by name */
    private static Map<String, Object> fields(ServerCommand command) throws ReflectiveOperationException {
        Map<String, Object> values = new LinkedHashMap<>();
        collect(command, "", values);
        return values;
    }

    private static void collect(Object owner, String prefix, Map<String, Object> values)
            throws ReflectiveOperationException {
        for (Field f : owner.getClass().getDeclaredFields()) {
            f.setAccessible(true);
            if (f.getAnnotation(ArgGroup.class) != null) {
                collect(f.get(owner), f.getName() + ".", values);
            } else if (f.getAnnotation(Option.class) != null) {
                values.put(prefix + f.getName(), f.get(owner));
            }
        }
    }

    private static Map<String, Object> picocli(String... args) throws ReflectiveOperationException {
        ServerCommand command = new ServerCommand();
        new CommandLine(command).parseArgs(args);
        return fields(command);
    }

    private static Map<String, Object> quick(String... args) throws ReflectiveOperationException {
        ServerCommand command = ServerCommand.quickParse(args);
        assertThat(command).as("quick parse of %s", List.of(args)).isNotNull();
        return fields(command);
    }

    @Test
    void setsWhatPicocliSetsForEveryOption() throws ReflectiveOperationException {
        String[][] lines = {
            {},
            {"--in-memory"},
            {"--data-dir", "/tmp/some dir", "--no-fsync", "--containers", "4"},
            {"--data-dir=/var/lib/sluice", "--snapshot-after=1000"},
            {"--host", "0.0.0.0", "--controller-port", "0", "--segment-store-port=65535", "-v"},
            {"--watermark-interval", "0", "--max-inflight-bytes", "1024", "--max-queued-reply-bytes=2048",
                "--max-frame-before-auth", "4096", "--verbose"},
            {"--auth", "passwords.txt", "--ready-file", "ready", "--tls-cert", "c.pem", "--tls-key=k.pem"},
            {"--auth", "passwords.txt", "--token-lifetime", "30s"},
            {"--host=", "--ready-file", "r=s"},
            {"--scale-window", "2s", "--advertised-host", "sluice.example", "--retention-interval=90s"},
            {"--metrics-port", "9464"},
            {"--metrics-port=0", "--controller-port", "0"},
        };
        for (String[] line : lines) {
            assertThat(quick(line)).as("%s", List.of(line)).isEqualTo(picocli(line));
        }
    }

    @Test
    void randomLinesOfGoodOptionsParseAlike() throws ReflectiveOperationException {
        List<String[]> options = List.of(new String[] {"--host", "10.0.0.1"}, new String[] {"--controller-port", "9"},
                new String[] {"--segment-store-port", "77"}, new String[] {"--containers", "3"},
                new String[] {"--no-fsync"}, new String[] {"--snapshot-after", "123456789012"},
                new String[] {"--watermark-interval", "250"}, new String[] {"-v"},
                new String[] {"--data-dir", "d"}, new String[] {"--ready-file", "f"});
        Random random = new Random(7);
        for (int round = 0; round < 200; round++) {
            List<List<String>> chosen = new ArrayList<>();
            for (String[] option : options) {
                if (random.nextBoolean()) {
                    chosen.add(option.length == 2 && random.nextBoolean() ? List.of(option[0] + "=" + option[1])
                            : List.of(option));
                }
            }
            java.util.Collections.shuffle(chosen, random);
            List<String> line = chosen.stream().flatMap(List::stream).toList();
            String[] args = line.toArray(String[]::new);
            assertThat(quick(args)).as("%s", line).isEqualTo(picocli(args));
        }
    }

    /** An option added to the command but not to its quick parse would send every line with it through picocli. */
    @Test
    void knowsEveryOptionOfTheCommand() throws ReflectiveOperationException {
        List<Field> options = new ArrayList<>();
        for (Field f : ServerCommand.class.getDeclaredFields()) {
            if (f.getAnnotation(Option.class) != null) {
                options.add(f);
            } else if (f.getAnnotation(ArgGroup.class) != null) {
                for (Field g : f.getType().getDeclaredFields()) {
                    if (g.getAnnotation(Option.class) != null) {
                        options.add(g);
                    }
                }
            }
        }
        assertThat(options).hasSizeGreaterThan(15);
        for (Field f : options) {
            Class<?> type = f.getType();
            String sample = type == boolean.class ? null : type == java.time.Duration.class ? "5s"
                    : type == int.class || type == long.class || type == Integer.class ? "1" : "x";
            for (String name : f.getAnnotation(Option.class).names()) {
                String[] line = sample == null ? new String[] {name} : new String[] {name, sample};
                assertThat(quick(line)).as("%s", List.of(line)).isEqualTo(picocli(line));
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"--help", "-h", "--version", "-V", "password-entry bob --acl *=READ", "--hots x",
        "--containers 1 --containers 2", "--data-dir d --in-memory", "--controller-port 70000",
        "--controller-port x", "--containers", "--host --verbose", "--no-fsync=true", "extra",
        "--containers 0x10"})
    void leavesToPicocliWhatItIsNotSureOf(String line) {
        assertThat(ServerCommand.quickParse(line.split(" "))).isNull();
    }

    @Test
    void aFailureAfterTheQuickParseIsOneLine() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            StringWriter out = new StringWriter();
            StringWriter err = new StringWriter();
            Integer status = ServerCommand.runQuick(new String[] {"--controller-port", "0", "--segment-store-port",
                String.valueOf(taken.getLocalPort())}, new PrintWriter(out), new PrintWriter(err));
            assertThat(status).isEqualTo(ConnectedCommand.FAILED);
            assertThat(err.toString()).startsWith("sluice server: ").doesNotContain("\tat ");
            assertThat(err.toString().lines().count()).as(err.toString()).isEqualTo(1);
            assertThat(out.toString()).doesNotContain("ready");
        }
    }

    @Test
    void aUsageMistakeFoundAfterTheQuickParseGoesToPicocli() {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        assertThat(ServerCommand.runQuick(new String[] {"--controller-port", "0", "--segment-store-port", "0",
            "--tls-cert", "c.pem"}, new PrintWriter(out), new PrintWriter(err))).isNull();
        assertThat(err.toString()).isEmpty();
    }
}
