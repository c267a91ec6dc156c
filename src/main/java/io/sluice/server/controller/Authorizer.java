package io.sluice.server.controller;

import java.util.function.Function;
import java.util.function.Predicate;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.sluice.controller.grpc.v1.StreamInfo;
import io.sluice.server.auth.AccessLevel;
import io.sluice.server.controller.BasicAuthInterceptor.Principal;

/**
 * Checks the calling user's rights on a resource, by Pravega 0.13's rules (docs/security.md has the table of what
 * each call needs). The caller is the {@link Principal} {@link BasicAuthInterceptor} put in the gRPC context. With
 * authentication off ({@code users == null}) everything is allowed. Thread-safe.
 */
final class Authorizer {
    /**
     * What creating, updating and deleting a reader group needs on its scope: READ, as in Pravega 0.13 with its
     * default {@code controller.security.auth.readerGroupStreams.writesWithReadPermissions.enable=true}, so a user
     * who may read a scope may read through a reader group of their own.
     */
    static final AccessLevel READER_GROUP_CHANGE = AccessLevel.READ;

    private final java.util.function.Supplier<PasswordFile> users;

    /** @param users the users, or null with authentication off */
    Authorizer(java.util.function.Supplier<PasswordFile> users) {
        this.users = users;
    }

    /** @return whether authentication is on */
    boolean enabled() {
        return users != null;
    }

    /**
     * Checks that the caller may use the resource at the required level: UNAUTHENTICATED without an authenticated
     * user (no or foreign credentials), PERMISSION_DENIED if the user's access control list grants less.
     *
     * @throws StatusRuntimeException UNAUTHENTICATED or PERMISSION_DENIED
     */
    void authorize(AuthResource resource, AccessLevel required) {
        if (users == null) {
            return;
        }
        Principal principal = BasicAuthInterceptor.PRINCIPAL.get();
        if (principal == null) {
            throw Status.UNAUTHENTICATED.withDescription("no authenticated user: the controller needs "
                    + "'authorization: Basic base64(user:password)'").asRuntimeException();
        }
        if (!principal.acl().permits(resource, required)) {
            throw Status.PERMISSION_DENIED.withDescription("user " + principal.user() + " lacks " + required
                    + " on " + resource.prn()).asRuntimeException();
        }
    }

    /** @return a filter that keeps the names the caller may read, given how a name maps to its resource */
    Predicate<String> readable(Function<String, AuthResource> resourceOf) {
        if (users == null) {
            return name -> true;
        }
        Principal principal = BasicAuthInterceptor.PRINCIPAL.get();
        return name -> principal != null && principal.acl().permits(resourceOf.apply(name), AccessLevel.READ);
    }

    /** @return the calling user's name, "" when there is none (or authentication is off) */
    static String callerName() {
        Principal principal = BasicAuthInterceptor.PRINCIPAL.get();
        return principal == null ? "" : principal.user();
    }

    /**
     * What writing to (or creating) a stream needs, as Pravega 0.13 decides it with its default
     * {@code readerGroupStreams.writesWithReadPermissions.enable=true}: READ for a reader group's state stream and
     * for a watermark stream (readers update the one, the other is written for writers' marks), READ_UPDATE for
     * every other stream.
     */
    static AccessLevel levelToWrite(String stream) {
        return stream.startsWith(Names.RG_STREAM_PREFIX) || stream.startsWith(Names.MARK_STREAM_PREFIX)
                ? AccessLevel.READ : AccessLevel.READ_UPDATE;
    }

    /** @return the stream as a resource, taken by its own name (Pravega's {@code ofStreamInScope}) */
    static AuthResource resource(StreamInfo info) {
        return AuthResource.stream(info.getScope(), info.getStream());
    }

    /**
     * @return the stream as a resource with internal streams mapped (Pravega's {@code StreamAuthParams}): a reader
     *     group's state stream is the reader group, a watermark stream its stream
     */
    static AuthResource streamOrGroup(StreamInfo info) {
        return AuthResource.ofStream(info.getScope(), info.getStream());
    }
}
