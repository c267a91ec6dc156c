package io.sluice.server.controller;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.sluice.controller.grpc.v1.CreateScopeStatus;
import io.sluice.controller.grpc.v1.DeleteScopeStatus;
import io.sluice.server.controller.ControllerModel.ScopeMeta;
import io.sluice.server.controller.Journal.Decision;

import static io.sluice.server.controller.ControllerContext.kvtKey;
import static io.sluice.server.controller.ControllerContext.readerGroupKey;
import static io.sluice.server.controller.ControllerContext.scopeKey;
import static io.sluice.server.controller.ControllerContext.streamKey;

/**
 * The controller's scopes: create, exist, list, delete, and the recursive deletion that seals and deletes every
 * stream, reader group and key-value table of a scope (on each one's key, then on the scope's). Thread-safe.
 */
final class Scopes {
    private static final Logger LOG = LoggerFactory.getLogger(Scopes.class);

    private final ControllerContext ctx;
    private final Journal journal;
    private final Streams streams;
    private final ReaderGroups readerGroups;
    private final KeyValueTables kvts;

    Scopes(ControllerContext ctx, Streams streams, ReaderGroups readerGroups, KeyValueTables kvts) {
        this.ctx = ctx;
        this.journal = ctx.journal();
        this.streams = streams;
        this.readerGroups = readerGroups;
        this.kvts = kvts;
    }

    CreateScopeStatus.Status createScope(String scope) {
        if (!Names.isValidStreamOrScopeName(scope)) {
            return CreateScopeStatus.Status.INVALID_SCOPE_NAME;
        }
        return journal.write(m -> m.scope(scope) != null
                ? Decision.of(CreateScopeStatus.Status.SCOPE_EXISTS)
                : Decision.of(CreateScopeStatus.Status.SUCCESS, new ControllerEvent.ScopeCreated(scope)));
    }

    boolean scopeExists(String scope) {
        return journal.read(m -> m.scope(scope) != null);
    }

    /** @return one page of scope names after {@code token} that pass the filter, and the next token */
    ControllerCore.Page listScopes(String token, Predicate<String> filter) {
        return journal.read(m -> ctx.page(m.scopes().keySet(), token, filter));
    }

    DeleteScopeStatus.Status deleteScope(String scope) {
        return journal.write(m -> {
            ScopeMeta s = m.scope(scope);
            if (s == null) {
                return Decision.of(DeleteScopeStatus.Status.SCOPE_NOT_FOUND);
            }
            if (!s.isEmpty()) {
                return Decision.of(DeleteScopeStatus.Status.SCOPE_NOT_EMPTY);
            }
            return Decision.of(DeleteScopeStatus.Status.SUCCESS, new ControllerEvent.ScopeDeleted(scope));
        });
    }

    /** Seals and deletes everything in a scope, then the scope. A missing scope is a success, as in Pravega. */
    DeleteScopeStatus.Status deleteScopeRecursive(String scope) {
        return ctx.onKey(scopeKey(scope), () -> finishScopeDeletion(scope));
    }

    /** The recursive deletion (also resumed after a restart). Runs on the scope's key. */
    DeleteScopeStatus.Status finishScopeDeletion(String scope) {
        boolean exists = journal.write(m -> {
            ScopeMeta s = m.scope(scope);
            if (s == null) {
                return Decision.of(false);
            }
            return s.deleting ? Decision.of(true) : Decision.of(true, new ControllerEvent.ScopeDeleting(scope));
        });
        if (!exists) {
            return DeleteScopeStatus.Status.SUCCESS;
        }
        List<String> groups = journal.read(m -> new ArrayList<>(m.scope(scope).readerGroups.keySet()));
        for (String rg : groups) {
            ctx.onKey(readerGroupKey(scope, rg), () -> readerGroups.finishReaderGroupDeletion(scope, rg, ""));
        }
        List<String> tables = journal.read(m -> new ArrayList<>(m.scope(scope).kvts.keySet()));
        for (String kvt : tables) {
            ctx.onKey(kvtKey(scope, kvt), () -> kvts.finishKvtDeletion(scope, kvt));
        }
        List<String> names = journal.read(m -> new ArrayList<>(m.scope(scope).streams.keySet()));
        for (String stream : names) {
            ctx.onKey(streamKey(scope, stream), () -> {
                streams.sealInternal(scope, stream);
                streams.deleteInternal(scope, stream);
                return null;
            });
        }
        return journal.write(m -> {
            ScopeMeta s = m.scope(scope);
            if (s == null) {
                return Decision.of(DeleteScopeStatus.Status.SUCCESS);
            }
            if (!s.isEmpty()) {
                LOG.warn("scope {} still holds {} streams after recursive deletion", scope, s.streams.size());
                return Decision.of(DeleteScopeStatus.Status.FAILURE);
            }
            return Decision.of(DeleteScopeStatus.Status.SUCCESS, new ControllerEvent.ScopeDeleted(scope));
        });
    }
}
