package io.sluice.server.controller;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.MetadataUtils;
import io.sluice.controller.grpc.v1.ControllerServiceGrpc;
import io.sluice.controller.grpc.v1.CreateScopeStatus;
import io.sluice.controller.grpc.v1.CreateStreamStatus;
import io.sluice.controller.grpc.v1.CreateTxnRequest;
import io.sluice.controller.grpc.v1.ScopeInfo;
import io.sluice.controller.grpc.v1.ScopesRequest;
import io.sluice.controller.grpc.v1.ServerRequest;
import io.sluice.controller.grpc.v1.StreamInfo;
import io.sluice.errors.TokenExpiredException;
import io.sluice.server.auth.AccessLevel;
import io.sluice.server.auth.DelegationTokens;

import static io.sluice.server.controller.ControllerHarness.fixed;
import static io.sluice.server.controller.ControllerHarness.info;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class AuthTest {
    private static final byte[] SECRET = "0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.US_ASCII);

    private ControllerHarness h;
    private DelegationTokens tokens;

    @BeforeEach
    void start() {
        PasswordFile users = PasswordFile.parse(List.of(
                "# test users",
                PasswordFile.entry("admin", "admin-secret".toCharArray(), "*=READ_UPDATE", 1000),
                "",
                PasswordFile.entry("reader", "reader-secret".toCharArray(), "*=READ", 1000),
                PasswordFile.entry("orders", "orders-secret".toCharArray(), "orders/*=READ_UPDATE", 1000)));
        ControllerHarness.MutableClock clock = new ControllerHarness.MutableClock(ControllerHarness.START);
        tokens = new DelegationTokens(SECRET, Duration.ofSeconds(60), clock);
        h = ControllerHarness.withAuth(users, tokens, clock);
    }

    @AfterEach
    void stop() throws InterruptedException {
        h.close();
    }

    private ControllerServiceGrpc.ControllerServiceBlockingStub as(String header) {
        Metadata metadata = new Metadata();
        if (header != null) {
            metadata.put(Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER), header);
        }
        return h.stub.withInterceptors(MetadataUtils.newAttachHeadersInterceptor(metadata));
    }

    private ControllerServiceGrpc.ControllerServiceBlockingStub as(String user, String password) {
        return as("Basic " + Base64.getEncoder().encodeToString((user + ":" + password)
                .getBytes(StandardCharsets.UTF_8)));
    }

    private static Status.Code code(Runnable call) {
        try {
            call.run();
            return Status.Code.OK;
        } catch (StatusRuntimeException e) {
            return e.getStatus().getCode();
        }
    }

    @Test
    void missingOrWrongCredentialsAreUnauthenticated() {
        ScopeInfo scope = ScopeInfo.newBuilder().setScope("s").build();
        assertThat(code(() -> as(null).createScope(scope))).isEqualTo(Status.Code.UNAUTHENTICATED);
        assertThat(code(() -> as("admin", "wrong").createScope(scope))).isEqualTo(Status.Code.UNAUTHENTICATED);
        assertThat(code(() -> as("nobody", "admin-secret").createScope(scope))).isEqualTo(Status.Code.UNAUTHENTICATED);
        assertThat(code(() -> as("Bearer abc").createScope(scope))).isEqualTo(Status.Code.UNAUTHENTICATED);
        assertThat(code(() -> as("Basic not-base64!").createScope(scope))).isEqualTo(Status.Code.UNAUTHENTICATED);
        // as in Pravega, listing the controllers needs no credentials, but wrong ones are refused there too
        assertThat(code(() -> as(null).getControllerServerList(ServerRequest.getDefaultInstance())))
                .isEqualTo(Status.Code.OK);
        assertThat(code(() -> as("admin", "wrong").getControllerServerList(ServerRequest.getDefaultInstance())))
                .isEqualTo(Status.Code.UNAUTHENTICATED);
        assertThat(as("admin", "admin-secret").createScope(scope).getStatus())
                .isEqualTo(CreateScopeStatus.Status.SUCCESS);
        // the check is cached, and stays right
        assertThat(as("admin", "admin-secret").checkScopeExists(scope).getExists()).isTrue();
        assertThat(code(() -> as("admin", "wrong").checkScopeExists(scope))).isEqualTo(Status.Code.UNAUTHENTICATED);
    }

    @Test
    void permissionsComeFromTheAccessControlList() {
        var admin = as("admin", "admin-secret");
        var reader = as("reader", "reader-secret");
        var orders = as("orders", "orders-secret");
        admin.createScope(ScopeInfo.newBuilder().setScope("orders").build());
        admin.createScope(ScopeInfo.newBuilder().setScope("other").build());

        assertThat(code(() -> reader.createScope(ScopeInfo.newBuilder().setScope("x").build())))
                .isEqualTo(Status.Code.PERMISSION_DENIED);
        assertThat(code(() -> orders.createScope(ScopeInfo.newBuilder().setScope("x").build())))
                .isEqualTo(Status.Code.PERMISSION_DENIED);
        assertThat(orders.createStream(fixed("orders", "s", 1)).getStatus()).isEqualTo(CreateStreamStatus.Status.SUCCESS);
        assertThat(code(() -> orders.createStream(fixed("other", "s", 1)))).isEqualTo(Status.Code.PERMISSION_DENIED);
        assertThat(code(() -> reader.createStream(fixed("orders", "t", 1)))).isEqualTo(Status.Code.PERMISSION_DENIED);
        assertThat(reader.getStreamConfiguration(info("orders", "s")).getStreamInfo()).isEqualTo(info("orders", "s"));
        // a reader may read but not get a write token or create transactions
        assertThat(code(() -> reader.getCurrentSegments(info("orders", "s").toBuilder()
                .setAccessOperation(StreamInfo.AccessOperation.NONE).build()))).isEqualTo(Status.Code.OK);
        assertThat(code(() -> reader.getCurrentSegments(info("orders", "s")))).isEqualTo(Status.Code.PERMISSION_DENIED);
        assertThat(code(() -> reader.createTransaction(CreateTxnRequest.newBuilder()
                .setStreamInfo(info("orders", "s")).setLease(10_000).build()))).isEqualTo(Status.Code.PERMISSION_DENIED);
        // listing only shows what the caller may read (orders may not list scopes at all)
        assertThat(reader.listScopes(ScopesRequest.getDefaultInstance()).getScopesList())
                .containsExactly("orders", "other");
        assertThat(code(() -> orders.listScopes(ScopesRequest.getDefaultInstance())))
                .isEqualTo(Status.Code.PERMISSION_DENIED);
    }

    @Test
    void delegationTokensAreSignedForTheStreamAndExpire() {
        var admin = as("admin", "admin-secret");
        var reader = as("reader", "reader-secret");
        admin.createScope(ScopeInfo.newBuilder().setScope("sc").build());
        admin.createStream(fixed("sc", "s", 1));

        String writeToken = admin.getDelegationToken(info("sc", "s").toBuilder()
                .setAccessOperation(StreamInfo.AccessOperation.READ_WRITE).build()).getDelegationToken();
        DelegationTokens.Claims claims = tokens.verify(writeToken);
        assertThat(claims.subject()).isEqualTo("admin");
        assertThat(claims.resource()).isEqualTo("sc/s");
        assertThat(claims.level()).isEqualTo(AccessLevel.READ_UPDATE);
        assertThat(claims.expiresAtSeconds()).isEqualTo(ControllerHarness.START.getEpochSecond() + 60);
        tokens.check(writeToken, "sc/s/0.#epoch.0", AccessLevel.READ_UPDATE);

        String readToken = reader.getDelegationToken(info("sc", "s").toBuilder()
                .setAccessOperation(StreamInfo.AccessOperation.READ).build()).getDelegationToken();
        assertThat(tokens.verify(readToken).level()).isEqualTo(AccessLevel.READ);
        assertThat(code(() -> reader.getDelegationToken(info("sc", "s").toBuilder()
                .setAccessOperation(StreamInfo.AccessOperation.READ_WRITE).build())))
                .isEqualTo(Status.Code.PERMISSION_DENIED);

        // responses that carry tokens carry valid ones
        String segmentsToken = admin.getCurrentSegments(info("sc", "s")).getDelegationToken();
        assertThat(tokens.verify(segmentsToken).resource()).isEqualTo("sc/s");
        String txnToken = admin.createTransaction(CreateTxnRequest.newBuilder().setStreamInfo(info("sc", "s"))
                .setLease(10_000).build()).getDelegationToken();
        assertThat(tokens.verify(txnToken).level()).isEqualTo(AccessLevel.READ_UPDATE);

        h.clock.advance(Duration.ofSeconds(60));
        assertThatThrownBy(() -> tokens.verify(writeToken)).isInstanceOf(TokenExpiredException.class);
    }
}
