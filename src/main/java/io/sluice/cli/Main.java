package io.sluice.cli;

import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.util.Arrays;
import java.util.Objects;
import java.util.function.Function;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * The {@code sluice} command line. Run {@code ./sluice --help} for the list of commands.
 *
 * <p>Exit status: 0 on success, 1 when the operation failed (the message on standard error says what failed), 2 on
 * bad usage. A {@code Main} runs one command line at a time.
 */
@Command(name = "sluice",
        mixinStandardHelpOptions = true,
        versionProvider = Main.Version.class,
        description = "Sluice: a Pravega client on virtual threads, with an embedded Pravega-compatible server.",
        subcommands = {DemoCommand.class, ServerCommand.class, ScopeCommands.class, StreamCommands.class,
            EventCommands.Write.class, EventCommands.Read.class, TxnCommands.class, KvtCommands.class,
            BytesCommands.class, BenchCommand.class, WireTool.class, CompletionCommand.class})
public final class Main implements Runnable {
    /** The exit-status paragraph of the help of every controller command. */
    static final String EXIT_STATUS = "%nExit status: 0 success, 1 failure (standard error names what failed; with "
            + "--json standard output holds {\"error\":{\"code\":...,\"message\":...}}), 2 bad usage.";

    private static final String LOG_LEVEL_PROPERTY = "org.slf4j.simpleLogger.defaultLogLevel";

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    private final ControllerClientFactory controllers;
    private final Function<String, String> environment;
    private final InputStream stdin;
    private final OutputStream stdout;

    /**
     * The command line as {@code ./sluice} runs it: gRPC to the controller, the process environment, the process's
     * standard input.
     */
    public Main() {
        this(ControllerClientFactory.GRPC, System::getenv, System.in);
    }

    /**
     * A command line with another way to reach the controller and another environment (tests).
     *
     * @param controllers opens controller clients
     * @param environment looks up environment variables ({@code null} for unset)
     */
    Main(ControllerClientFactory controllers, Function<String, String> environment) {
        this(controllers, environment, System.in);
    }

    /**
     * A command line with another way to reach the controller, another environment and another standard input.
     *
     * @param controllers opens controller clients
     * @param environment looks up environment variables ({@code null} for unset)
     * @param stdin what commands read as standard input (e.g. {@code write}); not closed
     */
    Main(ControllerClientFactory controllers, Function<String, String> environment, InputStream stdin) {
        this(controllers, environment, stdin, System.out);
    }

    /**
     * A command line with its own standard input and a byte output for the commands that print bytes, not text
     * ({@code bytes cat}).
     *
     * @param controllers opens controller clients
     * @param environment looks up environment variables ({@code null} for unset)
     * @param stdin what commands read as standard input; not closed
     * @param stdout where {@code bytes cat} writes the bytes it reads; not closed
     */
    Main(ControllerClientFactory controllers, Function<String, String> environment, InputStream stdin,
         OutputStream stdout) {
        this.controllers = Objects.requireNonNull(controllers, "controllers");
        this.environment = Objects.requireNonNull(environment, "environment");
        this.stdin = Objects.requireNonNull(stdin, "stdin");
        this.stdout = Objects.requireNonNull(stdout, "stdout");
    }

    /** @return how commands open controller clients */
    ControllerClientFactory controllers() {
        return controllers;
    }

    /** @return how commands read environment variables */
    Function<String, String> environment() {
        return environment;
    }

    /** @return what commands read as standard input */
    InputStream stdin() {
        return stdin;
    }

    /** @return where commands write bytes (not text) to standard output */
    OutputStream stdout() {
        return stdout;
    }

    /**
     * Runs the command line and exits with its status.
     *
     * @param args the arguments
     */
    public static void main(String[] args) {
        if (System.getProperty(LOG_LEVEL_PROPERTY) == null) {
            // the library logs progress at INFO and what it recovers from at WARN (e.g. a segment writer that gives
            // up, before the command reports the failure in one line); a command line prints its result and nothing
            // else, so only errors are logged without --verbose; the server, which runs on, still logs warnings
            boolean verbose = Arrays.asList(args).contains("--verbose") || Arrays.asList(args).contains("-v");
            boolean server = args.length > 0 && args[0].equals("server");
            System.setProperty(LOG_LEVEL_PROPERTY, verbose ? "info" : server ? "warn" : "error");
        }
        if (args.length > 0 && args[0].equals("server")) {
            // the server's start-up time: no picocli model for a plain server command line
            Integer status = ServerCommand.runQuick(Arrays.copyOfRange(args, 1, args.length),
                    new PrintWriter(System.out, true), new PrintWriter(System.err, true));
            if (status != null) {
                System.exit(status);
            }
        }
        System.exit(run(args));
    }

    /**
     * Runs the command line without exiting (for tests).
     *
     * @param args the arguments
     * @return the exit status: 0 on success, 1 on a failure, 2 on bad usage
     */
    public static int run(String... args) {
        return commandLine(new Main(), args).execute(args);
    }

    /**
     * Runs the command line with its output going to the given writers (for tests and embedding).
     *
     * @param out standard output
     * @param err standard error
     * @param args the arguments
     * @return the exit status
     */
    public static int run(PrintWriter out, PrintWriter err, String... args) {
        return run(new Main(), out, err, args);
    }

    /**
     * Runs the command line with the given standard input and output (for tests and embedding).
     *
     * @param in standard input (e.g. the lines {@code write} writes); not closed
     * @param out standard output
     * @param err standard error
     * @param args the arguments
     * @return the exit status
     */
    public static int run(InputStream in, PrintWriter out, PrintWriter err, String... args) {
        return run(new Main(ControllerClientFactory.GRPC, System::getenv, in), out, err, args);
    }

    /**
     * Runs the command line of {@code main} with its output going to the given writers (tests).
     *
     * @return the exit status
     */
    static int run(Main main, PrintWriter out, PrintWriter err, String... args) {
        CommandLine cli = commandLine(main, args);
        cli.setOut(out);
        cli.setErr(err);
        int status = cli.execute(args);
        out.flush();
        err.flush();
        return status;
    }

    /**
     * The command line that runs {@code args}. When they start with a command's name, only that command's model is
     * built: picocli builds the model of every command in {@code @Command(subcommands)} by reflection, which costs a
     * few hundred milliseconds on a cold JVM, a large part of {@code sluice server}'s start. Help, version and
     * mistakes at the top level get the whole model. Commands reach {@code Main} through
     * {@code spec.root().userObject()}: the top level of the lazy model does not inject {@code @ParentCommand}.
     */
    static CommandLine commandLine(Main main, String... args) {
        Class<?> command = args.length == 0 ? null : subcommandNamed(args[0]);
        CommandLine cli;
        if (command == null) {
            cli = new CommandLine(main);
        } else {
            Command top = Main.class.getAnnotation(Command.class);
            cli = new CommandLine(CommandLine.Model.CommandSpec.wrapWithoutInspection(main).name(top.name()));
            cli.addSubcommand(command.getAnnotation(Command.class).name(), command);
        }
        cli.setParameterExceptionHandler(Main::usageError);
        cli.setExecutionExceptionHandler(Main::executionError);
        return cli;
    }

    /** @return the class in {@code @Command(subcommands)} named {@code name} (or with that alias), or null */
    private static Class<?> subcommandNamed(String name) {
        for (Class<?> c : Main.class.getAnnotation(Command.class).subcommands()) {
            Command command = c.getAnnotation(Command.class);
            if (command != null && (command.name().equals(name) || Arrays.asList(command.aliases()).contains(name))) {
                return c;
            }
        }
        return null;
    }

    /** @return picocli's usage error for {@code spec}'s command line, saying {@code message} */
    static RuntimeException parameterError(CommandLine.Model.CommandSpec spec, String message) {
        return new ParameterException(spec.commandLine(), message);
    }

    /** One line naming the mistake and where to find help, instead of picocli's full usage text. */
    private static int usageError(ParameterException e, String[] args) {
        CommandLine cmd = e.getCommandLine();
        PrintWriter err = cmd.getErr();
        err.println(cmd.getCommandSpec().qualifiedName() + ": " + e.getMessage());
        UnmatchedArgumentException.printSuggestions(e, err);
        err.println("Try '" + cmd.getCommandSpec().qualifiedName() + " --help' for more information.");
        err.flush();
        return cmd.getCommandSpec().exitCodeOnInvalidInput();
    }

    /**
     * What a command threw and did not report itself: one line naming the command and the problem on standard error,
     * exit status 1; the stack trace too when the command line has {@code --verbose}. Every command that reports its
     * own failures (the controller commands, {@code demo}) does so in the same form.
     */
    private static int executionError(Exception e, CommandLine cmd, CommandLine.ParseResult parsed) {
        PrintWriter err = cmd.getErr();
        err.println(cmd.getCommandSpec().qualifiedName() + ": " + describe(e));
        if (verbose(parsed)) {
            e.printStackTrace(err);
        }
        err.flush();
        return ConnectedCommand.FAILED;
    }

    /** @return whether {@code --verbose} (or {@code -v}) was given to any command on the line */
    private static boolean verbose(CommandLine.ParseResult parsed) {
        for (CommandLine.ParseResult p = parsed; p != null; p = p.subcommand()) {
            if (p.hasMatchedOption("--verbose")) {
                return true;
            }
        }
        return false;
    }

    /**
     * One line about a failure: its message, and the message of its root cause when that says something the first
     * does not (e.g. the operating system's "Address already in use").
     *
     * @param failure what failed
     * @return the line
     */
    static String describe(Throwable failure) {
        String message = messageOf(failure);
        Throwable root = failure;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String rootMessage = root == failure ? null : root.getMessage();
        if (rootMessage != null && !rootMessage.isBlank() && !message.contains(rootMessage)) {
            message += " (" + rootMessage + ")";
        }
        return message.replace('\n', ' ');
    }

    private static String messageOf(Throwable t) {
        String m = t.getMessage();
        return m == null || m.isBlank() ? t.getClass().getSimpleName() : m;
    }

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    /** @return Sluice's version from the jar's manifest, or {@code (development build)} */
    static String version() {
        String v = Main.class.getPackage().getImplementationVersion();
        return v == null ? "(development build)" : v;
    }

    /** Reports the version from the jar's manifest. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[] {"sluice " + version() + ", wire version " + io.sluice.wire.WireProtocol.WIRE_VERSION};
        }
    }
}
