package io.sluice.server.controller;

import io.sluice.controller.grpc.v1.ContinuationToken;
import io.sluice.controller.grpc.v1.CreateKeyValueTableStatus;
import io.sluice.controller.grpc.v1.DeleteKVTableStatus;
import io.sluice.controller.grpc.v1.KVTablesInScopeRequest;
import io.sluice.controller.grpc.v1.KVTablesInScopeResponse;
import io.sluice.controller.grpc.v1.KeyValueTableConfig;
import io.sluice.controller.grpc.v1.KeyValueTableConfigResponse;
import io.sluice.controller.grpc.v1.KeyValueTableInfo;
import io.sluice.controller.grpc.v1.SegmentRanges;
import io.sluice.server.auth.AccessLevel;

/** The controller's key-value table calls: each checks the caller's rights on the table (or its scope) first. */
final class KeyValueTableHandlers {
    private final ControllerCore core;
    private final Authorizer auth;
    private final TokenIssuer tokens;

    KeyValueTableHandlers(ServiceContext ctx) {
        this.core = ctx.core();
        this.auth = ctx.auth();
        this.tokens = ctx.tokens();
    }

    CreateKeyValueTableStatus createKeyValueTable(KeyValueTableConfig request) {
        auth.authorize(AuthResource.scope(request.getScope()), AccessLevel.READ_UPDATE);
        return CreateKeyValueTableStatus.newBuilder().setStatus(core.createKeyValueTable(request)).build();
    }

    SegmentRanges getCurrentSegmentsKeyValueTable(KeyValueTableInfo request) {
        auth.authorize(AuthResource.keyValueTable(request.getScope(), request.getKvtName()), AccessLevel.READ_UPDATE);
        return SegmentRanges.newBuilder()
                .addAllSegmentRanges(core.kvtSegments(request.getScope(), request.getKvtName()))
                .setDelegationToken(tokens.token(request.getScope(), request.getKvtName(), AccessLevel.READ_UPDATE))
                .build();
    }

    KVTablesInScopeResponse listKeyValueTablesInScope(KVTablesInScopeRequest request) {
        String scope = request.getScope().getScope();
        auth.authorize(AuthResource.scope(scope), AccessLevel.READ);
        ControllerCore.Page page = core.listKvts(scope, request.getContinuationToken().getToken(),
                auth.readable(kvt -> AuthResource.keyValueTable(scope, kvt)));
        if (page == null) {
            return KVTablesInScopeResponse.newBuilder()
                    .setStatus(KVTablesInScopeResponse.Status.SCOPE_NOT_FOUND).build();
        }
        KVTablesInScopeResponse.Builder b = KVTablesInScopeResponse.newBuilder()
                .setStatus(KVTablesInScopeResponse.Status.SUCCESS)
                .setContinuationToken(ContinuationToken.newBuilder().setToken(page.token()));
        for (String name : page.names()) {
            b.addKvtables(KeyValueTableInfo.newBuilder().setScope(scope).setKvtName(name));
        }
        return b.build();
    }

    KeyValueTableConfigResponse getKeyValueTableConfiguration(KeyValueTableInfo request) {
        auth.authorize(AuthResource.keyValueTable(request.getScope(), request.getKvtName()), AccessLevel.READ);
        return core.kvtConfig(request.getScope(), request.getKvtName());
    }

    DeleteKVTableStatus deleteKeyValueTable(KeyValueTableInfo request) {
        auth.authorize(AuthResource.keyValueTable(request.getScope(), request.getKvtName()), AccessLevel.READ_UPDATE);
        return DeleteKVTableStatus.newBuilder()
                .setStatus(core.deleteKeyValueTable(request.getScope(), request.getKvtName())).build();
    }
}
