package io.sluice;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The package structure of design.md §2, read from the sources: no package cycles. (The check of the arrows
 * themselves comes with the segment-call layer.)
 */
@Timeout(60)
class ArchitectureTest {

    private static final Path MAIN_SOURCES = Path.of("src", "main", "java");

    @Test
    void noPackageCycles() {
        List<String> cycles = PackageGraph.read(MAIN_SOURCES).cycles();
        assertThat(cycles).as("package cycles (package -> package it uses (a file that uses it))").isEmpty();
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
