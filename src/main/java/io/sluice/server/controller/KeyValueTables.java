package io.sluice.server.controller;

import java.util.List;
import java.util.UUID;
import java.util.function.Predicate;

import io.sluice.controller.grpc.v1.CreateKeyValueTableStatus;
import io.sluice.controller.grpc.v1.DeleteKVTableStatus;
import io.sluice.controller.grpc.v1.KeyValueTableConfig;
import io.sluice.controller.grpc.v1.KeyValueTableConfigResponse;
import io.sluice.controller.grpc.v1.SegmentRange;
import io.sluice.server.controller.ControllerModel.KvtMeta;
import io.sluice.server.controller.ControllerModel.KvtState;
import io.sluice.server.controller.ControllerModel.ScopeMeta;
import io.sluice.server.controller.Journal.Decision;

import static io.sluice.server.controller.ControllerContext.kvtKey;

/**
 * Key-value tables: create (their table segments), list, configuration, segments, delete. Changes to a table run on
 * its key. Thread-safe.
 */
final class KeyValueTables {
    private final ControllerContext ctx;
    private final Journal journal;
    private final SegmentAdmin admin;

    KeyValueTables(ControllerContext ctx) {
        this.ctx = ctx;
        this.journal = ctx.journal();
        this.admin = ctx.admin();
    }

    CreateKeyValueTableStatus.Status createKeyValueTable(KeyValueTableConfig requested) {
        String scope = requested.getScope();
        String name = requested.getKvtName();
        if (!Names.isValidUserName(name)) {
            return CreateKeyValueTableStatus.Status.INVALID_TABLE_NAME;
        }
        Protos.checkKvtConfig(requested);
        return ctx.onKey(kvtKey(scope, name), () -> {
            CreateKeyValueTableStatus.Status status = journal.write(m -> {
                if (m.liveScope(scope) == null) {
                    return Decision.of(CreateKeyValueTableStatus.Status.SCOPE_NOT_FOUND);
                }
                KvtMeta existing = m.kvt(scope, name);
                if (existing != null) {
                    return Decision.of(existing.state == KvtState.CREATING
                            ? CreateKeyValueTableStatus.Status.SUCCESS : CreateKeyValueTableStatus.Status.TABLE_EXISTS);
                }
                return Decision.of(CreateKeyValueTableStatus.Status.SUCCESS, new ControllerEvent.KvtCreating(scope,
                        name, requested, UUID.randomUUID(), ctx.clock().millis()));
            });
            if (status == CreateKeyValueTableStatus.Status.SUCCESS) {
                finishKvtCreation(scope, name);
            }
            return status;
        });
    }

    /** Creates the table segments of a table still being created (also after a restart). Runs on its key. */
    void finishKvtCreation(String scope, String name) {
        record Plan(List<SegmentRecord> segments, int keyLength, boolean creating) {
        }
        Plan plan = journal.read(m -> {
            KvtMeta kvt = m.kvt(scope, name);
            return new Plan(kvt.segments(),
                    kvt.config.getPrimaryKeyLength() + kvt.config.getSecondaryKeyLength(),
                    kvt.state == KvtState.CREATING);
        });
        if (!plan.creating()) {
            return;
        }
        for (SegmentRecord segment : plan.segments()) {
            admin.createTableSegment(Names.kvtSegmentName(scope, name, segment.id()), plan.keyLength());
        }
        journal.write(m -> Decision.of(null, new ControllerEvent.KvtActivated(scope, name)));
    }

    List<SegmentRange> kvtSegments(String scope, String name) {
        return journal.read(m -> {
            KvtMeta kvt = m.kvt(scope, name);
            if (kvt == null) {
                throw Protos.notFound("key-value table " + Names.scoped(scope, name) + " does not exist");
            }
            return Protos.segmentRanges(scope, name, kvt.segments());
        });
    }

    /** @return one page of table names, or null if the scope does not exist */
    ControllerCore.Page listKvts(String scope, String token, Predicate<String> filter) {
        return journal.read(m -> {
            ScopeMeta s = m.scope(scope);
            return s == null ? null : ctx.page(s.kvts.keySet(), token, filter);
        });
    }

    KeyValueTableConfigResponse kvtConfig(String scope, String name) {
        return journal.read(m -> {
            KvtMeta kvt = m.kvt(scope, name);
            if (kvt == null) {
                return KeyValueTableConfigResponse.newBuilder()
                        .setStatus(KeyValueTableConfigResponse.Status.TABLE_NOT_FOUND).build();
            }
            return KeyValueTableConfigResponse.newBuilder().setConfig(kvt.config.toBuilder().setScope(scope)
                    .setKvtName(name)).setStatus(KeyValueTableConfigResponse.Status.SUCCESS).build();
        });
    }

    DeleteKVTableStatus.Status deleteKeyValueTable(String scope, String name) {
        return ctx.onKey(kvtKey(scope, name), () -> finishKvtDeletion(scope, name));
    }

    /** Deletes a table's segments and then the table (also after a restart). Runs on its key. */
    DeleteKVTableStatus.Status finishKvtDeletion(String scope, String name) {
        List<SegmentRecord> segments = journal.write(m -> {
            KvtMeta kvt = m.kvt(scope, name);
            if (kvt == null) {
                return Decision.of(null);
            }
            return kvt.state == KvtState.DELETING ? Decision.of(kvt.segments())
                    : Decision.of(kvt.segments(), new ControllerEvent.KvtDeleting(scope, name));
        });
        if (segments == null) {
            return DeleteKVTableStatus.Status.TABLE_NOT_FOUND;
        }
        for (SegmentRecord segment : segments) {
            admin.deleteSegment(Names.kvtSegmentName(scope, name, segment.id()));
        }
        journal.write(m -> Decision.of(null, new ControllerEvent.KvtDeleted(scope, name)));
        return DeleteKVTableStatus.Status.SUCCESS;
    }
}
