package io.sluice.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@link Main} builds only the model of the command being run (start-up time): help, usage errors and suggestions must
 * be exactly those of the whole model, for every command and subcommand.
 */
@Timeout(60)
class LazyCommandModelTest {
    /** Every command path of the whole model, e.g. [server], [server, password-entry], [scope, create]. */
    static Stream<List<String>> commandPaths() {
        List<List<String>> paths = new ArrayList<>();
        collect(Main.commandLine(new Main()), new ArrayList<>(), paths);
        return paths.stream();
    }

    private static void collect(CommandLine cli, List<String> path, List<List<String>> paths) {
        cli.getSubcommands().forEach((name, sub) -> {
            List<String> p = new ArrayList<>(path);
            p.add(name);
            paths.add(p);
            collect(sub, p, paths);
        });
    }

    @Test
    void everyCommandIsThere() {
        assertThat(commandPaths().map(p -> String.join(" ", p)))
                .contains("server", "server password-entry", "scope", "scope list", "stream", "stream info", "wire",
                        "wire decode");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("commandPaths")
    void helpAndUsageErrorsAreThoseOfTheWholeModel(List<String> path) {
        List<String[]> tails = new ArrayList<>(List.of(new String[] {"--help"}, new String[] {"-h"},
                new String[] {"--no-such-option"}, new String[] {"--help", "x"}));
        CommandLine whole = Main.commandLine(new Main());
        for (String name : path) {
            whole = whole.getSubcommands().get(name);
        }
        if (!whole.getSubcommands().isEmpty()) {
            // (a leaf would take it as a parameter and run)
            tails.add(new String[] {"no-such-command"});
        }
        if (!whole.getSubcommands().isEmpty() && !(whole.getCommandSpec().userObject() instanceof Callable)) {
            // a group of commands alone: usage or "missing subcommand" (not `server`, which would start)
            tails.add(new String[] {});
        }
        for (String[] tail : tails) {
            String[] args = Stream.concat(path.stream(), Stream.of(tail)).toArray(String[]::new);
            assertThat(runLazy(args)).as(String.join(" ", args)).isEqualTo(runWhole(args));
        }
    }

    @Test
    void theTopLevelStillGetsTheWholeModel() {
        for (String[] args : new String[][] {{}, {"--help"}, {"--version"}, {"serve"}, {"--no-such-option"}}) {
            assertThat(runLazy(args)).as(String.join(" ", args)).isEqualTo(runWhole(args));
        }
        assertThat(runLazy("--help").out()).contains("server", "scope", "stream", "wire");
    }

    @Test
    void noCommandNeedsParentCommandInjection() {
        // the lazy model's top level does not inject @ParentCommand: commands use spec.root().userObject()
        for (Class<?> c : Main.class.getAnnotation(Command.class).subcommands()) {
            for (Class<?> k = c; k != null && k != Object.class; k = k.getSuperclass()) {
                for (Field f : k.getDeclaredFields()) {
                    assertThat(f.isAnnotationPresent(CommandLine.ParentCommand.class))
                            .as("@ParentCommand on %s.%s", k.getName(), f.getName()).isFalse();
                    if (f.isAnnotationPresent(CommandLine.Mixin.class)) {
                        for (Field m : f.getType().getDeclaredFields()) {
                            assertThat(m.isAnnotationPresent(CommandLine.ParentCommand.class))
                                    .as("@ParentCommand on mixin %s.%s", f.getType().getName(), m.getName()).isFalse();
                        }
                    }
                }
            }
        }
    }

    record Outcome(int status, String out, String err) {
    }

    private static Outcome runLazy(String... args) {
        return execute(Main.commandLine(new Main(), args), args);
    }

    private static Outcome runWhole(String... args) {
        return execute(Main.commandLine(new Main()), args);
    }

    private static Outcome execute(CommandLine cli, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(err));
        int status = cli.execute(args);
        cli.getOut().flush();
        cli.getErr().flush();
        return new Outcome(status, out.toString(), err.toString());
    }
}
