package io.sluice.cli;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.sluice.controller.ControllerClient;
import io.sluice.controller.ProtoMapper;
import io.sluice.errors.AlreadyExistsException;
import io.sluice.errors.PreconditionFailedException;
import io.sluice.stream.Names;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code sluice scope create|list|delete}. Has no behaviour of its own: without a subcommand it is a usage error. */
@Command(name = "scope", mixinStandardHelpOptions = true,
        description = "Create, list and delete scopes (the namespaces that hold streams).",
        subcommands = {ScopeCommands.Create.class, ScopeCommands.ListScopes.class, ScopeCommands.Delete.class})
final class ScopeCommands {

    private ScopeCommands() {
    }

    /** {@code sluice scope create NAME}. */
    @Command(name = "create", mixinStandardHelpOptions = true, sortOptions = false,
            description = {"Creates a scope.", "Fails if the scope already exists (JSON error code already-exists)."},
            footer = Main.EXIT_STATUS)
    static final class Create extends ControllerCommand {
        @Parameters(paramLabel = "NAME", description = "the scope: ASCII letters, digits, '.' and '-'")
        String scope;

        @Override
        void validate() {
            Names.validateUserScope(scope);
        }

        @Override
        Result execute(ControllerClient controller) {
            if (!controller.createScope(scope)) {
                throw new AlreadyExistsException("scope '" + scope + "' already exists");
            }
            Map<String, Object> json = new LinkedHashMap<>();
            json.put("scope", scope);
            json.put("created", true);
            return Result.of(json, "scope '" + scope + "' created");
        }
    }

    /** {@code sluice scope list}. */
    @Command(name = "list", mixinStandardHelpOptions = true, sortOptions = false,
            description = {"Lists the scopes, one per line.",
                "Internal scopes (named _...) are left out unless --all is given."},
            footer = Main.EXIT_STATUS)
    static final class ListScopes extends ControllerCommand {
        @Option(names = "--all", description = "also list internal scopes such as _system")
        boolean all;

        @Override
        Result execute(ControllerClient controller) {
            List<String> scopes = controller.listScopes().stream().filter(s -> all || !s.startsWith("_")).sorted()
                    .toList();
            return new Result(Map.of("scopes", scopes), scopes);
        }
    }

    /** {@code sluice scope delete NAME}. */
    @Command(name = "delete", mixinStandardHelpOptions = true, sortOptions = false,
            description = {"Deletes an empty scope.",
                "Fails if the scope does not exist (not-found) or still holds streams (precondition-failed)."},
            footer = Main.EXIT_STATUS)
    static final class Delete extends ControllerCommand {
        @Parameters(paramLabel = "NAME", description = "the scope")
        String scope;

        @Override
        void validate() {
            Names.validateName("scope", scope);
        }

        @Override
        Result execute(ControllerClient controller) {
            if (!controller.deleteScope(scope)) {
                throw ProtoMapper.noSuchScope(scope);
            }
            Map<String, Object> json = new LinkedHashMap<>();
            json.put("scope", scope);
            json.put("deleted", true);
            return Result.of(json, "scope '" + scope + "' deleted");
        }

        @Override
        RuntimeException refine(RuntimeException failure, ControllerClient controller) {
            if (failure instanceof PreconditionFailedException) {
                return new PreconditionFailedException(failure.getMessage() + ": delete its streams (and reader "
                        + "groups and key-value tables) first", failure);
            }
            return failure;
        }
    }
}
