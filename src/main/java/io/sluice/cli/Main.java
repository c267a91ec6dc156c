package io.sluice.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code sluice} command line. Run {@code ./sluice --help} for the list of commands.
 */
@Command(name = "sluice",
        mixinStandardHelpOptions = true,
        versionProvider = Main.Version.class,
        description = "Sluice: a Pravega client on virtual threads, with an embedded Pravega-compatible server.",
        subcommands = {WireTool.class})
public final class Main implements Runnable {

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    /**
     * Runs the command line and exits with its status.
     *
     * @param args the arguments
     */
    public static void main(String[] args) {
        System.exit(run(args));
    }

    /**
     * Runs the command line without exiting (for tests).
     *
     * @param args the arguments
     * @return the exit status: 0 on success, 1 on a failure, 2 on bad usage
     */
    public static int run(String... args) {
        return new CommandLine(new Main()).execute(args);
    }

    /**
     * Runs the command line with its output going to the given writers (for tests and embedding).
     *
     * @param out standard output
     * @param err standard error
     * @param args the arguments
     * @return the exit status
     */
    public static int run(java.io.PrintWriter out, java.io.PrintWriter err, String... args) {
        CommandLine cli = new CommandLine(new Main());
        cli.setOut(out);
        cli.setErr(err);
        int status = cli.execute(args);
        out.flush();
        err.flush();
        return status;
    }

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    /** Reports the version from the jar's manifest. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = Main.class.getPackage().getImplementationVersion();
            return new String[] {"sluice " + (v == null ? "(development build)" : v)
                    + ", wire version " + io.sluice.wire.WireProtocol.WIRE_VERSION};
        }
    }
}
