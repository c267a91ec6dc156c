package io.sluice.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.examples.QuickStart;
import io.sluice.testing.ControllerUri;
import io.sluice.testing.SluiceTest;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * README.md's "Using the client" snippet is examples/…/QuickStart.java's, line for line, and runs as written against
 * the embedded server.
 */
@SluiceTest
@Timeout(60)
class ReadmeExampleTest {
    private static final String FIRST_LINE = "try (SluiceClient client = SluiceClient.connect(controllerUri)) {";

    /** The README's java block that starts with {@link #FIRST_LINE}. */
    private static List<String> readmeSnippet() throws IOException {
        List<String> lines = Files.readAllLines(Path.of("README.md"));
        int start = lines.indexOf(FIRST_LINE);
        assertThat(start).as("README.md has a block starting with " + FIRST_LINE).isPositive();
        assertThat(lines.get(start - 1)).isEqualTo("```java");
        List<String> out = new ArrayList<>();
        for (int i = start; !lines.get(i).equals("```"); i++) {
            out.add(lines.get(i));
        }
        return out;
    }

    /** QuickStart's lines between the README markers, less their common indentation. */
    private static List<String> exampleSnippet() throws IOException {
        List<String> lines = Files.readAllLines(Path.of("examples/src/main/java/io/sluice/examples/QuickStart.java"));
        int start = -1;
        int end = -1;
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).trim().equals("// README:start")) {
                start = i + 1;
            } else if (lines.get(i).trim().equals("// README:end")) {
                end = i;
            }
        }
        assertThat(start).as("QuickStart's README markers").isPositive();
        assertThat(end).isGreaterThan(start);
        int indent = lines.get(start).indexOf(lines.get(start).trim());
        List<String> out = new ArrayList<>();
        for (String line : lines.subList(start, end)) {
            out.add(line.isBlank() ? "" : line.substring(Math.min(indent, line.length() - line.stripLeading().length())));
        }
        return out;
    }

    @Test
    void theReadmeSnippetIsTheQuickStartsCode() throws IOException {
        assertThat(readmeSnippet()).containsExactlyElementsOf(exampleSnippet());
    }

    @Test
    void theQuickStartRunsAsWritten(@ControllerUri String controllerUri) {
        PrintStream original = System.out;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            QuickStart.run(controllerUri);
        } finally {
            System.setOut(original);
        }
        assertThat(captured.toString(StandardCharsets.UTF_8)).containsPattern("order placed at \\S+");
    }
}
