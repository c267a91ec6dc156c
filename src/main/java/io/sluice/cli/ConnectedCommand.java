package io.sluice.cli;

import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

import io.sluice.controller.ControllerClientConfig;
import io.sluice.errors.AlreadyExistsException;
import io.sluice.errors.AuthenticationException;
import io.sluice.errors.AuthorizationException;
import io.sluice.errors.BadKeyVersionException;
import io.sluice.errors.ControllerFailureException;
import io.sluice.errors.IncompatibleServerException;
import io.sluice.errors.InvalidRequestException;
import io.sluice.errors.NoSuchKeyException;
import io.sluice.errors.NoSuchScopeException;
import io.sluice.errors.NoSuchSegmentException;
import io.sluice.errors.NoSuchStreamException;
import io.sluice.errors.PreconditionFailedException;
import io.sluice.errors.ProtocolException;
import io.sluice.errors.RetriableException;
import io.sluice.errors.RetriesExhaustedException;
import io.sluice.errors.SegmentSealedException;
import io.sluice.errors.SegmentTruncatedException;
import io.sluice.errors.ServiceUnavailableException;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * A command that connects to a Pravega controller (and perhaps its segment stores): builds the client configuration
 * from {@link ControllerOptions}, connects and runs the command ({@link #connectAndExecute}, see
 * {@link ControllerCommand} and {@link ClientCommand}), prints the {@link Result} as text or JSON, and turns failures
 * into one line on standard error (plus a JSON error object on standard output with {@code --json}) and exit status
 * 1. Bad arguments found before connecting are usage errors (exit status 2). One instance runs one command on one
 * thread.
 *
 * @param <C> what the command connects: a controller client, or a whole client
 */
abstract class ConnectedCommand<C> implements Callable<Integer> {
    /** Exit status of a command that failed. */
    static final int FAILED = 1;

    @Spec
    CommandSpec spec;

    @Mixin
    ControllerOptions options;

    /** The configuration in use while {@link #connectAndExecute} runs. */
    ControllerClientConfig config;

    /**
     * What a command produced: the JSON object for {@code --json}, the lines of text otherwise, and the exit status.
     *
     * @param json the JSON object (insertion-ordered), or {@code null} when the command printed its output as it went
     * @param lines the text, one entry per line (may be empty)
     * @param status the exit status: 0, or {@link #FAILED} when the command ran but found a failure it reported in
     *     its output (e.g. a workload whose verification failed)
     */
    record Result(Map<String, Object> json, List<String> lines, int status) {
        Result {
            lines = List.copyOf(lines);
        }

        /** A successful result. */
        Result(Map<String, Object> json, List<String> lines) {
            this(json, lines, 0);
        }

        /** @return a successful result of one line of text */
        static Result of(Map<String, Object> json, String line) {
            return new Result(json, List.of(line));
        }

        /** @return the result of a command that printed its output as it went */
        static Result printed() {
            return new Result(null, List.of());
        }
    }

    /**
     * Checks the arguments before the controller is contacted. The default accepts everything.
     *
     * @throws IllegalArgumentException naming the bad argument (reported as a usage error)
     */
    void validate() {
    }

    /**
     * Connects as {@link #config} says, runs {@link #executeAndRefine} with the connection, and disconnects.
     *
     * @param main the command line, which says how to connect
     * @return what to print
     * @throws RuntimeException any failure; its message is shown to the user
     */
    abstract Result connectAndExecute(Main main);

    /**
     * Does the work. Blocks on the controller (and segment stores).
     *
     * @param connection the connection; closed by the caller
     * @return what to print
     * @throws RuntimeException any failure; its message is shown to the user
     */
    abstract Result execute(C connection);

    /**
     * Gives a failure a more useful message before it is reported (e.g. a missing stream whose scope is missing).
     * The default returns {@code failure}. Must not throw.
     *
     * @param failure what {@link #execute} threw
     * @param connection the connection, still open
     * @return the failure to report
     */
    RuntimeException refine(RuntimeException failure, C connection) {
        return failure;
    }

    /**
     * Runs {@link #execute}, and {@link #refine} if it fails.
     *
     * @param connection the open connection
     * @return what to print
     */
    final Result executeAndRefine(C connection) {
        try {
            return execute(connection);
        } catch (RuntimeException e) {
            throw refine(e, connection);
        }
    }

    @Override
    public final Integer call() {
        Main main = (Main) spec.root().userObject();
        try {
            config = options.config(main.environment());
            validate();
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage(), e);
        }
        Result result;
        try {
            result = connectAndExecute(main);
        } catch (RuntimeException e) {
            return fail(e);
        }
        return print(spec, result, options.json);
    }

    /**
     * Prints a result as text, or as one line of JSON.
     *
     * @param spec the command, whose standard output is used
     * @param result what to print ({@link Result#printed()} prints nothing)
     * @param json whether to print the JSON object instead of the text
     * @return the result's exit status
     */
    static int print(CommandSpec spec, Result result, boolean json) {
        PrintWriter out = spec.commandLine().getOut();
        if (json && result.json() != null) {
            out.println(JsonWriter.write(result.json()));
        } else if (!json) {
            result.lines().forEach(out::println);
        }
        out.flush();
        return result.status();
    }

    private int fail(RuntimeException e) {
        String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        // a segment store that cannot be reached names itself ("cannot connect to segment store HOST:PORT")
        if (unreachable(e) && !message.contains("segment store")) {
            message = "the controller at " + config.controllerUri() + " is not available: " + message;
            Throwable root = e;
            while (root.getCause() != null && root.getCause() != root) {
                root = root.getCause();
            }
            // gRPC says "UNAVAILABLE: io exception"; the socket's own words ("Connection refused") say more
            if (root != e && root.getMessage() != null && !message.contains(root.getMessage())) {
                message += " (" + root.getMessage() + ")";
            }
        }
        return fail(spec, e, message, options.json, options.verbose);
    }

    /**
     * Whether a failure means that the server could not be reached (a connection that failed, an answer that did not
     * come in time), rather than that it answered with an error: a controller that reports an internal error
     * ({@code INTERNAL}, {@code UNKNOWN}, ...; {@link ServiceUnavailableException}) is there, and its own message is
     * what the user needs, even when the client retried it until its time was up.
     *
     * @param failure what a command threw
     * @return true for an unreachable server
     */
    static boolean unreachable(Throwable failure) {
        Throwable last = failure instanceof RetriesExhaustedException && failure.getCause() != null
                ? failure.getCause() : failure;
        return last instanceof RetriableException && !(last instanceof ServiceUnavailableException);
    }

    /**
     * Reports a failure: one line naming the command on standard error (with the stack trace if {@code verbose}),
     * and with {@code json} the error object {@code {"error":{"code":...,"message":...}}} on standard output.
     *
     * @param spec the command
     * @param failure what failed
     * @param message what to tell the user
     * @param json whether to print the JSON error object too
     * @param verbose whether to print the stack trace
     * @return {@link #FAILED}
     */
    static int fail(CommandSpec spec, Throwable failure, String message, boolean json, boolean verbose) {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        err.println(spec.qualifiedName() + ": " + message);
        if (verbose) {
            failure.printStackTrace(err);
        }
        err.flush();
        if (json) {
            Map<String, Object> error = new LinkedHashMap<>();
            error.put("code", code(failure));
            error.put("message", message);
            out.println(JsonWriter.write(Map.of("error", error)));
            out.flush();
        }
        return FAILED;
    }

    /**
     * The {@code code} of a JSON error object: {@code not-found}, {@code already-exists}, {@code precondition-failed},
     * {@code invalid-argument}, {@code unauthenticated}, {@code unauthorized}, {@code unavailable} (the server could
     * not be reached, see {@link #unreachable}), {@code incompatible}, or {@code failed} (also when the server
     * answered with an internal error). Looks through wrapping exceptions for the first it can classify.
     *
     * @param failure a failure
     * @return its code
     */
    static String code(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            String code = switch (t) {
                case NoSuchScopeException e -> "not-found";
                case NoSuchStreamException e -> "not-found";
                case NoSuchSegmentException e -> "not-found";
                case NoSuchKeyException e -> "not-found";
                case BadKeyVersionException e -> "precondition-failed";
                case AlreadyExistsException e -> "already-exists";
                case PreconditionFailedException e -> "precondition-failed";
                case SegmentSealedException e -> "precondition-failed";
                case SegmentTruncatedException e -> "precondition-failed";
                case IllegalArgumentException e -> "invalid-argument";
                case InvalidRequestException e -> "invalid-argument";
                case AuthenticationException e -> "unauthenticated";
                case AuthorizationException e -> "unauthorized";
                case RetriesExhaustedException e -> unreachable(e) ? "unavailable" : null;
                case ServiceUnavailableException e -> "failed";
                case RetriableException e -> "unavailable";
                case IncompatibleServerException e -> "incompatible";
                case ProtocolException e -> "incompatible";
                case ControllerFailureException e -> "failed";
                default -> null;
            };
            if (code != null) {
                return code;
            }
        }
        return "failed";
    }
}
