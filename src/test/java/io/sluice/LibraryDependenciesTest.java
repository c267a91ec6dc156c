package io.sluice;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * What a user who depends on {@code io.sluice:sluice} gets, read from {@code pom.xml}: the client's dependencies only
 * (gRPC, protobuf, slf4j-api), the command line's picocli and slf4j binding and the metrics' Micrometer optional,
 * Pravega's codec and its Netty for tests only; and what a public repository requires of the pom (licence, SCM, developers, URL) and of the
 * project (a LICENSE file).
 */
@Timeout(30)
class LibraryDependenciesTest {

    private static Element project;

    @BeforeAll
    static void readPom() throws Exception {
        try (InputStream in = Files.newInputStream(Path.of("pom.xml"))) {
            DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
            factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            Document pom = factory.newDocumentBuilder().parse(in);
            project = pom.getDocumentElement();
        }
    }

    /** The project's own dependencies (not those of profiles or of dependencyManagement). */
    private static List<Element> dependencies() {
        List<Element> out = new ArrayList<>();
        Element deps = child(project, "dependencies");
        for (Node n = deps.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element e && e.getTagName().equals("dependency")) {
                out.add(e);
            }
        }
        return out;
    }

    private static Element child(Element parent, String name) {
        for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element e && e.getTagName().equals(name)) {
                return e;
            }
        }
        return null;
    }

    private static String text(Element parent, String name, String otherwise) {
        Element e = child(parent, name);
        return e == null ? otherwise : e.getTextContent().trim();
    }

    private static String coordinates(Element dependency) {
        return text(dependency, "groupId", "?") + ":" + text(dependency, "artifactId", "?");
    }

    @Test
    void aUserGetsTheClientsDependenciesOnly() {
        Set<String> passedOn = new TreeSet<>();
        for (Element d : dependencies()) {
            String scope = text(d, "scope", "compile");
            boolean optional = Boolean.parseBoolean(text(d, "optional", "false"));
            if ((scope.equals("compile") || scope.equals("runtime")) && !optional) {
                passedOn.add(coordinates(d));
            }
        }
        assertThat(passedOn).containsExactlyInAnyOrder(
                "io.grpc:grpc-stub", "io.grpc:grpc-protobuf", "io.grpc:grpc-netty-shaded",
                "com.google.protobuf:protobuf-java", "org.slf4j:slf4j-api");
    }

    @Test
    void theCommandLinesLibrariesAreOptionalAndPravegasCodecIsForTestsOnly() {
        for (Element d : dependencies()) {
            String c = coordinates(d);
            String scope = text(d, "scope", "compile");
            boolean optional = Boolean.parseBoolean(text(d, "optional", "false"));
            if (c.equals("info.picocli:picocli") || c.equals("org.slf4j:slf4j-simple") || c.startsWith("io.micrometer:")) {
                assertThat(optional).as(c + " optional").isTrue();
            }
            if (c.startsWith("io.pravega:") || c.startsWith("io.netty:")) {
                assertThat(scope).as(c + " scope").isEqualTo("test");
            }
            assertThat(c).as("the unused javax.annotation-api").isNotEqualTo("javax.annotation:javax.annotation-api");
        }
    }

    @Test
    void thePomCarriesWhatAPublicRepositoryRequires() throws IOException {
        assertThat(text(project, "url", "")).startsWith("https://");
        assertThat(text(project, "description", "")).isNotBlank();
        Element license = child(child(project, "licenses"), "license");
        assertThat(text(license, "name", "")).isEqualTo("Apache License, Version 2.0");
        Element scm = child(project, "scm");
        assertThat(text(scm, "connection", "")).startsWith("scm:git:");
        assertThat(text(scm, "url", "")).startsWith("https://");
        assertThat(child(child(project, "developers"), "developer")).isNotNull();
        assertThat(Files.readString(Path.of("LICENSE"))).contains("Apache License", "Version 2.0, January 2004");
        assertThat(Files.readString(Path.of("pom.xml")))
                .contains("<Automatic-Module-Name>io.sluice</Automatic-Module-Name>")
                .contains("<artifactId>maven-source-plugin</artifactId>")
                .contains("<artifactId>maven-javadoc-plugin</artifactId>");
    }
}
