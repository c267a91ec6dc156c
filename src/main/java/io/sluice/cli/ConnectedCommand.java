package io.sluice.cli;

import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

import io.sluice.controller.ControllerClient;
import io.sluice.controller.ControllerClientConfig;
import io.sluice.errors.AlreadyExistsException;
import io.sluice.errors.AuthenticationException;
import io.sluice.errors.AuthorizationException;
import io.sluice.errors.ControllerFailureException;
import io.sluice.errors.IncompatibleServerException;
import io.sluice.errors.InvalidRequestException;
import io.sluice.errors.NoSuchScopeException;
import io.sluice.errors.NoSuchSegmentException;
import io.sluice.errors.NoSuchStreamException;
import io.sluice.errors.PreconditionFailedException;
import io.sluice.errors.ProtocolException;
import io.sluice.errors.RetriableException;
import io.sluice.errors.RetriesExhaustedException;
import io.sluice.errors.SegmentSealedException;
import io.sluice.errors.SegmentTruncatedException;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * A command that talks to the controller: builds the client configuration from {@link ControllerOptions}, opens the
 * client with {@link Main}'s {@link ControllerClientFactory}, runs {@link #execute}, prints the {@link Result} as text
 * or JSON, and turns failures into one line on standard error (plus a JSON error object on standard output with
 * {@code --json}) and exit status 1. Bad arguments found before the controller is contacted are usage errors (exit
 * status 2). One instance runs one command on one thread.
 */
abstract class ControllerCommand implements Callable<Integer> {
    /** Exit status of a command that failed. */
    static final int FAILED = 1;

    @Spec
    CommandSpec spec;

    @Mixin
    ControllerOptions options;

    /** The configuration in use while {@link #execute} runs. */
    ControllerClientConfig config;

    /**
     * What a command produced: the JSON object for {@code --json}, and the lines of text otherwise.
     *
     * @param json the JSON object (insertion-ordered)
     * @param lines the text, one entry per line (may be empty)
     */
    record Result(Map<String, Object> json, List<String> lines) {
        Result {
            lines = List.copyOf(lines);
        }

        /** @return a result of one line of text */
        static Result of(Map<String, Object> json, String line) {
            return new Result(json, List.of(line));
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
     * Does the work. Blocks on the controller (and segment stores).
     *
     * @param controller the client; closed by the caller
     * @return what to print
     * @throws RuntimeException any failure; its message is shown to the user
     */
    abstract Result execute(ControllerClient controller);

    /**
     * Gives a failure a more useful message before it is reported (e.g. a missing stream whose scope is missing).
     * The default returns {@code failure}. Must not throw.
     *
     * @param failure what {@link #execute} threw
     * @param controller the client, still open
     * @return the failure to report
     */
    RuntimeException refine(RuntimeException failure, ControllerClient controller) {
        return failure;
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
        PrintWriter out = spec.commandLine().getOut();
        Result result;
        try (ControllerClient controller = main.controllers().open(config)) {
            try {
                result = execute(controller);
            } catch (RuntimeException e) {
                throw refine(e, controller);
            }
        } catch (RuntimeException e) {
            return fail(e);
        }
        if (options.json) {
            out.println(JsonWriter.write(result.json()));
        } else {
            result.lines().forEach(out::println);
        }
        out.flush();
        return 0;
    }

    private int fail(RuntimeException e) {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        String code = code(e);
        String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        if (e instanceof RetriesExhaustedException || e instanceof RetriableException) {
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
        err.println(spec.qualifiedName() + ": " + message);
        if (options.verbose) {
            e.printStackTrace(err);
        }
        err.flush();
        if (options.json) {
            Map<String, Object> error = new LinkedHashMap<>();
            error.put("code", code);
            error.put("message", message);
            out.println(JsonWriter.write(Map.of("error", error)));
            out.flush();
        }
        return FAILED;
    }

    /**
     * The {@code code} of a JSON error object: {@code not-found}, {@code already-exists}, {@code precondition-failed},
     * {@code invalid-argument}, {@code unauthenticated}, {@code unauthorized}, {@code unavailable},
     * {@code incompatible}, or {@code failed}. Looks through wrapping exceptions for the first it can classify.
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
                case AlreadyExistsException e -> "already-exists";
                case PreconditionFailedException e -> "precondition-failed";
                case SegmentSealedException e -> "precondition-failed";
                case SegmentTruncatedException e -> "precondition-failed";
                case IllegalArgumentException e -> "invalid-argument";
                case InvalidRequestException e -> "invalid-argument";
                case AuthenticationException e -> "unauthenticated";
                case AuthorizationException e -> "unauthorized";
                case RetriesExhaustedException e -> "unavailable";
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
