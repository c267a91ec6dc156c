package io.sluice;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The package structure of docs/architecture.md §2, read from the sources: no package cycles, and every import
 * follows the arrows — public API packages above the reader-group state machine, above the segment-call layer, above
 * connections, above the wire codec; only the segment-call layer and the connections speak the wire protocol on the
 * client side (the CLI's wire tool aside); the server and the client meet only on the wire.
 */
@Timeout(60)
class ArchitectureTest {

    private static final Path MAIN_SOURCES = Path.of("src", "main", "java");

    @Test
    void noPackageCycles() {
        List<String> cycles = PackageGraph.read(MAIN_SOURCES).cycles();
        assertThat(cycles).as("package cycles (package -> package it uses (a file that uses it))").isEmpty();
    }

    /** The public API packages (design §2): they may use each other. */
    private static final Set<String> PUBLIC = Set.of("client", "stream", "bytestream", "batch", "table", "state",
            "admin", "auth", "testing", "errors");
    /** Values every client-side package may use. */
    private static final Set<String> BASE = Set.of("common", "errors");

    /** What each package may use besides itself (short names below io.sluice). */
    private static Set<String> allowed(String pkg) {
        Set<String> ok = new TreeSet<>(BASE);
        switch (pkg) {
            case "errors" -> ok.clear();
            case "common" -> ok.remove("common");
            case "wire", "storage" -> {
                // the codec and the storage stand on common alone
            }
            case "connection" -> ok.add("wire");
            case "controller" -> ok.addAll(Set.of("auth", "stream", "table", "controller.grpc.v1"));
            case "segment" -> ok.addAll(Set.of("connection", "wire", "controller", "auth", "stream"));
            case "readergroup" -> ok.addAll(Set.of("segment", "controller", "auth", "stream"));
            case "testing" -> {
                // the JUnit 5 extension starts the embedded server for the client it hands to tests
                ok.addAll(PUBLIC);
                ok.add("server");
            }
            case "cli" -> ok.addAll(Set.of("client", "stream", "bytestream", "batch", "admin", "auth", "table",
                    "controller", "segment", "readergroup", "server", "server.auth", "server.controller", "storage"));
            default -> {
                if (pkg.equals("server") || pkg.startsWith("server.")) {
                    ok.addAll(Set.of("storage", "wire", "server", "server.auth", "server.controller",
                            "controller.grpc.v1"));
                } else if (PUBLIC.contains(pkg)) {
                    ok.addAll(PUBLIC);
                    ok.addAll(Set.of("readergroup", "segment", "controller"));
                } else {
                    throw new AssertionError("package io.sluice." + pkg + " is not in design §2: add it to "
                            + "ArchitectureTest with the arrows it may follow");
                }
            }
        }
        ok.remove(pkg);
        return ok;
    }

    /**
     * Files that may cross an arrow, each with the one package it may reach: the CLI's wire tool, and the CLI's
     * {@code --version}, which names the wire version.
     */
    private static final Map<String, String> EXCEPTIONS = Map.of("io/sluice/cli/WireTool.java", "wire",
            "io/sluice/cli/Main.java", "wire");

    @Test
    void importsFollowTheArrows() {
        PackageGraph graph = PackageGraph.read(MAIN_SOURCES);
        List<String> crossings = new ArrayList<>();
        for (String from : graph.packages()) {
            String pkg = from.substring("io.sluice.".length());
            Set<String> ok = allowed(pkg);
            graph.usesByFile(from).forEach((to, files) -> {
                String target = to.substring("io.sluice.".length());
                if (ok.contains(target)) {
                    return;
                }
                for (String file : files) {
                    if (!target.equals(EXCEPTIONS.get(file.replace('\\', '/')))) {
                        crossings.add(pkg + " -> " + target + " (" + file + ")");
                    }
                }
            });
        }
        assertThat(crossings).as("imports that cross the arrows of docs/architecture.md §2").isEmpty();
    }

    @Test
    void anArrowCrossingIsReported() {
        assertThat(allowed("client")).contains("segment", "stream").doesNotContain("wire", "connection", "server");
        assertThat(allowed("segment")).contains("connection", "wire").doesNotContain("client", "readergroup");
        assertThat(allowed("server")).contains("wire", "storage").doesNotContain("segment", "client", "connection");
        assertThat(allowed("wire")).containsOnly("common", "errors");
    }

    @Test
    void theSourcesAreRead() {
        PackageGraph graph = PackageGraph.read(MAIN_SOURCES);
        assertThat(graph.uses("io.sluice.common")).containsKey("io.sluice.errors");
        assertThat(graph.uses("io.sluice.server")).containsKey("io.sluice.server.controller");
    }

    @Test
    void findsAndReportsACycle() {
        PackageGraph graph = new PackageGraph();
        graph.add("a/A.java", "package io.sluice.a;\nimport io.sluice.b.B;\nclass A {}");
        graph.add("b/B.java", "package io.sluice.b;\nclass B { io.sluice.c.C c; }");
        graph.add("c/C.java", "package io.sluice.c;\nimport static io.sluice.d.D.f;\nimport io.sluice.b.*;\nclass C {}");
        graph.add("d/D.java", "package io.sluice.d;\nclass D {}");
        assertThat(graph.cycles()).containsExactly("io.sluice.b -> io.sluice.c (b/B.java) -> io.sluice.b (c/C.java)");
    }

    @Test
    void commentsAndLiteralsAreNotReferences() {
        PackageGraph graph = new PackageGraph();
        graph.add("b/B.java", """
                package io.sluice.b;
                /** {@link io.sluice.c.C} */
                class B {
                    // io.sluice.c.C
                    String s = "io.sluice.c.C \\" io.sluice.c.C";
                    char q = '"';
                    String t = \"""
                        io.sluice.c.C
                        \""";
                    /* io.sluice.c.C */ io.sluice.d.D d;
                }
                """);
        graph.add("c/C.java", "package io.sluice.c;\nimport io.sluice.b.B;\nclass C {}");
        assertThat(graph.uses("io.sluice.b")).containsOnlyKeys("io.sluice.d");
        assertThat(graph.cycles()).isEmpty();
    }
}
