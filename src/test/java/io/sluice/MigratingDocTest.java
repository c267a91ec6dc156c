package io.sluice;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.StringWriter;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Keeps docs/migrating.md true to the code. The page maps the official Pravega client's calls to Sluice's in tables
 * with a "Sluice" column. Every backticked entry of that column ({@code Type}, {@code Type.member},
 * {@code Type.method(args)}, {@code Type.Nested.CONSTANT}, chains such as {@code WriterConfig.DEFAULT.withRetry(p)},
 * {@code new Type(args)}) is resolved by reflection against Sluice's public packages: the type must exist there, and
 * each member must be a public method, field, enum constant or nested type of what the previous step gave. A name
 * that is renamed or removed in the code therefore fails this test until the page follows.
 */
@Timeout(30)
class MigratingDocTest {

    private static final Path DOC = Path.of("docs", "migrating.md");

    /** Where a simple type name in the page may be found (the public API packages, design §2). */
    private static final List<String> PUBLIC_PACKAGES = List.of("client", "stream", "bytestream", "batch", "table",
            "state", "admin", "auth", "errors", "testing");
    /** Public types outside those packages that the page may name (the embedded server, a JDK exception). */
    private static final List<String> EXTRA_TYPES = List.of("io.sluice.server.EmbeddedServer",
            "java.lang.IllegalArgumentException");
    /** Entries of the Sluice column that are not references to check by reflection. */
    private static final Set<String> NOT_REFLECTIVE = Set.of();

    /** A reference: a type, then members or nested types, each optionally called with an argument list. */
    private static final Pattern REFERENCE = Pattern.compile("[A-Z]\\w*(\\(\\))?(\\.\\w+(\\(\\))?)*");
    private static final Pattern SPAN = Pattern.compile("`([^`]+)`");
    private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");

    private static String markdown;

    @BeforeAll
    static void readDoc() throws IOException {
        markdown = Files.readString(DOC);
    }

    @Test
    void everySluiceNameInTheTablesExists() {
        List<Row> rows = rows(markdown);
        List<String> problems = new ArrayList<>();
        int checked = 0;
        for (Row row : rows) {
            List<String> spans = spans(row.sluice());
            if (spans.isEmpty()) {
                if (!row.sluice().startsWith("none")) {
                    problems.add("line " + row.line() + ": the Sluice column names nothing and does not say none: "
                            + row.sluice());
                }
                continue;
            }
            for (String span : spans) {
                Optional<String> problem = check(span);
                problem.ifPresent(p -> problems.add("line " + row.line() + ": `" + span + "`: " + p));
                checked++;
            }
        }
        assertThat(problems).as("Sluice names in " + DOC + " that the code does not have").isEmpty();
        // the page is a table of a whole API: far fewer entries means the parser missed the tables
        assertThat(rows).hasSizeGreaterThan(150);
        assertThat(checked).isGreaterThan(250);
    }

    @Test
    void everyRowNamesTheOfficialCall() {
        List<String> empty = new ArrayList<>();
        for (Row row : rows(markdown)) {
            if (row.official().isBlank()) {
                empty.add("line " + row.line());
            }
        }
        assertThat(empty).as("rows without an official call").isEmpty();
    }

    @Test
    void theTablesCoverEveryArea() {
        List<String> headings = markdown.lines().filter(l -> l.startsWith("### ")).toList();
        for (String area : List.of("Client setup", "Stream management", "Writers", "Transactions", "Serializers",
                "Readers and reader groups", "Checkpoints", "Stream cuts", "Batch client", "Byte streams",
                "State synchronizer", "Key-value tables", "Credentials", "Errors")) {
            assertThat(headings).as("a table for " + area).anyMatch(h -> h.contains(area));
        }
        for (String official : List.of("EventStreamClientFactory.withScope", "ReaderGroupManager.withScope",
                "StreamManager.create", "KeyValueTableFactory", "BatchClientFactory", "ByteStreamClientFactory",
                "SynchronizerClientFactory", "writeEvents", "noteTime", "enableLargeEvents", "readNextEvent",
                "resetReaderGroup", "updateRetentionStreamCut", "readerOffline", "getMetrics", "fetchEvent",
                "DefaultCredentials", "Keycloak", "JavaSerializer", "UTF8StringSerializer", "ByteBufferSerializer",
                "TableKey", "TableEntry", "Insert", "Put", "Remove", "ReinitializationRequiredException")) {
            assertThat(markdown).as("the page covers " + official).contains(official);
        }
    }

    @Test
    void linksPointAtFilesInTheRepository() {
        List<String> missing = new ArrayList<>();
        Matcher m = LINK.matcher(markdown);
        while (m.find()) {
            String target = m.group(1);
            if (target.startsWith("http") || target.startsWith("#")) {
                continue;
            }
            String file = target.replaceFirst("#.*", "");
            if (!Files.exists(DOC.getParent().resolve(file))) {
                missing.add(target);
            }
        }
        assertThat(missing).as("links to files that are not in the repository").isEmpty();
    }

    @Test
    void theReadmeLinksThePage() throws IOException {
        String readme = Files.readString(Path.of("README.md"));
        String using = section(readme, "## Using the client");
        String layout = section(readme, "## Layout");
        assertThat(using).as("README's \"Using the client\"").contains("docs/migrating.md");
        assertThat(layout).as("README's Layout").contains("migrating.md");
    }

    /** The page's "after" example is real code: it compiles against Sluice with the imports the page names. */
    @Test
    void theSluiceExampleCompiles(@TempDir Path dir) throws IOException {
        int after = markdown.indexOf("\nSluice:\n");
        assertThat(after).as("the page has a Sluice example").isNotNegative();
        int start = markdown.indexOf("```java\n", after) + "```java\n".length();
        String code = markdown.substring(start, markdown.indexOf("```", start));
        String source = """
                import io.sluice.admin.*;
                import io.sluice.client.SluiceClient;
                import io.sluice.stream.*;
                import java.time.Duration;

                class MigratingExample {
                    static void run() {
                %s    }
                }
                """.formatted(code);
        Path file = dir.resolve("MigratingExample.java");
        Files.writeString(file, source);
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        StringWriter diagnostics = new StringWriter();
        boolean ok = javac.getTask(diagnostics, null, null,
                List.of("-proc:none", "-d", dir.toString(), "-cp", System.getProperty("java.class.path")), null,
                javac.getStandardFileManager(null, null, null).getJavaFileObjects(file)).call();
        assertThat(ok).as("the Sluice example compiles:%n%s%n%s", diagnostics, source).isTrue();
    }

    /** The checker itself: it accepts what exists and reports what does not. */
    @Test
    void theCheckerTellsRealNamesFromWrongOnes() {
        assertThat(check("SluiceClient.newWriter(scope, stream, serializer)")).isEmpty();
        assertThat(check("WriterConfig.DEFAULT.withLargeEvents(true)")).isEmpty();
        assertThat(check("ReaderConfig.AckMode.EXPLICIT")).isEmpty();
        assertThat(check("ReaderGroupConfig.builder().stream(\"s/t\").build()")).isEmpty();
        assertThat(check("KeyValueTableIterator.Selection.entries()")).isEmpty();
        assertThat(check("EmbeddedServer.builder()")).isEmpty();
        assertThat(check("new BasicCredentials(user, password)")).isEmpty();
        assertThat(check("Serializer")).isEmpty();

        assertThat(check("SluiceClient.createEventWriter(stream, s, c)")).get().asString()
                .contains("createEventWriter");
        assertThat(check("NoSuchThing.method()")).get().asString().contains("NoSuchThing");
        assertThat(check("ReaderConfig.AckMode.SOMETIMES")).get().asString().contains("SOMETIMES");
        assertThat(check("WriterConfig.DEFAULT.withLargeEvents(true).enableLargeEvents()")).get().asString()
                .contains("enableLargeEvents");
        assertThat(check("new Serializer()")).get().asString().contains("constructor");
        assertThat(check("client.newWriter(scope)")).get().asString().contains("not a reference");
        assertThat(check("SegmentCalls")).get().asString().contains("SegmentCalls");   // internal package
    }

    @Test
    void theParserFindsTheSluiceColumn() {
        String page = """
                | Official | Sluice | Notes |
                |---|---|---|
                | `a.b()` | `SluiceClient.close()`, `StreamManager.createScope(s)` | x |
                | `c` | none | y |

                | Sluice | Official |
                |---|---|
                | `Serializers.utf8()` | `new UTF8StringSerializer()` |
                """;
        List<Row> rows = rows(page);
        assertThat(rows).extracting(Row::sluice).containsExactly(
                "`SluiceClient.close()`, `StreamManager.createScope(s)`", "none", "`Serializers.utf8()`");
        assertThat(rows).extracting(Row::official).containsExactly("`a.b()`", "`c`", "`new UTF8StringSerializer()`");
        assertThat(spans(rows.get(0).sluice())).containsExactly("SluiceClient.close()", "StreamManager.createScope(s)");
    }

    // ---- the parser

    /** One table row: its line number, its Official cell and its Sluice cell. */
    record Row(int line, String official, String sluice) {
    }

    /** The rows of every table whose header has a "Sluice" column. */
    static List<Row> rows(String page) {
        List<Row> rows = new ArrayList<>();
        List<String> lines = page.lines().toList();
        int sluiceColumn = -1;
        int officialColumn = -1;
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).trim();
            if (!line.startsWith("|")) {
                sluiceColumn = -1;
                continue;
            }
            List<String> cells = cells(line);
            boolean header = sluiceColumn < 0 && i + 1 < lines.size() && lines.get(i + 1).trim().startsWith("|--");
            if (header) {
                sluiceColumn = indexOf(cells, c -> c.equals("Sluice"));
                officialColumn = indexOf(cells, c -> c.startsWith("Official"));
                i++;   // the separator
                continue;
            }
            if (sluiceColumn >= 0 && sluiceColumn < cells.size()) {
                String official = officialColumn >= 0 && officialColumn < cells.size() ? cells.get(officialColumn) : "";
                rows.add(new Row(i + 1, official, cells.get(sluiceColumn)));
            }
        }
        return rows;
    }

    private static int indexOf(List<String> cells, java.util.function.Predicate<String> test) {
        for (int i = 0; i < cells.size(); i++) {
            if (test.test(cells.get(i))) {
                return i;
            }
        }
        return -1;
    }

    /** The cells of a table line, split at pipes outside backticks. */
    private static List<String> cells(String line) {
        List<String> cells = new ArrayList<>();
        StringBuilder cell = new StringBuilder();
        boolean code = false;
        for (int i = 1; i < line.length(); i++) {   // skip the leading pipe
            char c = line.charAt(i);
            if (c == '`') {
                code = !code;
            }
            if (c == '|' && !code) {
                cells.add(cell.toString().trim());
                cell.setLength(0);
            } else {
                cell.append(c);
            }
        }
        return cells;
    }

    static List<String> spans(String cell) {
        List<String> spans = new ArrayList<>();
        Matcher m = SPAN.matcher(cell);
        while (m.find()) {
            spans.add(m.group(1).trim());
        }
        return spans;
    }

    private static String section(String page, String heading) {
        int start = page.indexOf("\n" + heading + "\n");
        assertThat(start).as("README has the section " + heading).isNotNegative();
        int end = page.indexOf("\n## ", start + heading.length() + 1);
        return page.substring(start, end < 0 ? page.length() : end);
    }

    // ---- the checker

    /** @return what is wrong with the reference {@code span}, or empty if the code has it */
    static Optional<String> check(String span) {
        if (NOT_REFLECTIVE.contains(span)) {
            return Optional.empty();
        }
        boolean constructor = span.startsWith("new ");
        String path = withoutArguments(constructor ? span.substring(4).trim() : span);
        if (path == null || !REFERENCE.matcher(path).matches()) {
            return Optional.of("not a reference of the form Type, Type.member or Type.method(...)");
        }
        String[] steps = path.split("\\.");
        String first = steps[0].replace("()", "");
        Optional<Class<?>> type = publicType(first);
        if (type.isEmpty()) {
            return Optional.of("no public type " + first + " in io.sluice." + PUBLIC_PACKAGES);
        }
        Class<?> current = type.get();
        for (int i = 1; i < steps.length; i++) {
            boolean called = steps[i].endsWith("()");
            String name = steps[i].replace("()", "");
            Optional<Class<?>> next = member(current, name, called);
            if (next.isEmpty()) {
                return Optional.of(current.getSimpleName() + " has no public " + (called ? "method " : "member ") + name);
            }
            current = next.get();
            if (current == Object.class && i + 1 < steps.length) {
                return Optional.of("cannot follow " + name + ": its type is not known here");
            }
        }
        if (constructor && (current.isInterface() || Modifier.isAbstract(current.getModifiers())
                || Arrays.stream(current.getConstructors()).noneMatch(c -> Modifier.isPublic(c.getModifiers())))) {
            return Optional.of(current.getSimpleName() + " has no public constructor");
        }
        return Optional.empty();
    }

    /** {@code a.b(x, f(y)).c()} → {@code a.b().c()}; null if the parentheses do not balance. */
    private static String withoutArguments(String text) {
        StringBuilder out = new StringBuilder();
        int depth = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '(') {
                if (depth == 0) {
                    out.append("()");
                }
                depth++;
            } else if (c == ')') {
                depth--;
                if (depth < 0) {
                    return null;
                }
            } else if (depth == 0) {
                out.append(c);
            }
        }
        return depth == 0 ? out.toString() : null;
    }

    /** The one public type of that simple name in Sluice's public packages (or the extra types). */
    private static Optional<Class<?>> publicType(String simpleName) {
        List<Class<?>> found = new ArrayList<>();
        List<String> candidates = new ArrayList<>();
        PUBLIC_PACKAGES.forEach(p -> candidates.add("io.sluice." + p + "." + simpleName));
        EXTRA_TYPES.stream().filter(t -> t.endsWith("." + simpleName)).forEach(candidates::add);
        for (String name : candidates) {
            try {
                Class<?> c = Class.forName(name, false, MigratingDocTest.class.getClassLoader());
                if (Modifier.isPublic(c.getModifiers())) {
                    found.add(c);
                }
            } catch (ClassNotFoundException e) {
                // not in this package
            }
        }
        return found.size() == 1 ? Optional.of(found.get(0)) : Optional.empty();
    }

    /**
     * @return the type that {@code name} leads to from {@code type}: a nested public type, a public field (an enum
     *     constant too) or record component, or the return type of a public method of that name
     */
    private static Optional<Class<?>> member(Class<?> type, String name, boolean called) {
        if (!called) {
            for (Class<?> nested : type.getClasses()) {
                if (nested.getSimpleName().equals(name)) {
                    return Optional.of(nested);
                }
            }
            for (Field f : type.getFields()) {
                if (f.getName().equals(name)) {
                    return Optional.of(f.getType());
                }
            }
        }
        List<Method> methods = new ArrayList<>(Arrays.asList(type.getMethods()));
        if (type.isInterface()) {
            methods.addAll(Arrays.asList(Object.class.getMethods()));
        }
        for (Method method : methods) {
            if (method.getName().equals(name) && !method.isSynthetic() && !method.isBridge()) {
                return Optional.of(method.getReturnType());
            }
        }
        return Optional.empty();
    }
}
