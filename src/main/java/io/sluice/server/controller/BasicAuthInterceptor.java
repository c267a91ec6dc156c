package io.sluice.server.controller;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;

/**
 * Authenticates controller calls with HTTP Basic credentials from the {@code authorization} header
 * ({@code Basic base64(user:password)}), checked against a {@link PasswordFile}, as Pravega 0.13's
 * {@code AuthInterceptor} with its password handler does: a call with Basic credentials that are wrong (unknown
 * user, wrong password, not base64) is closed with UNAUTHENTICATED; a call with right ones runs with the user's
 * {@link Principal} in the gRPC {@link Context} ({@link #PRINCIPAL}); a call without credentials, or with another
 * scheme, runs without a principal, and the service answers it UNAUTHENTICATED wherever it checks permissions
 * (everywhere but {@code getControllerServerList}).
 *
 * <p>Successful checks are cached by a hash of the header, so PBKDF2 runs once per distinct credential (the cache is
 * cleared when it reaches {@value #CACHE_LIMIT} entries); a cached check counts only while the users it was made
 * against are still the current ones, so a user removed from a reloaded password file, or whose rights changed, is
 * checked again on their next call. Thread-safe.
 */
public final class BasicAuthInterceptor implements ServerInterceptor {
    /** The authenticated caller of the current call; absent when authentication is off. */
    static final Context.Key<Principal> PRINCIPAL = Context.key("sluice-controller-principal");

    private static final Metadata.Key<String> AUTHORIZATION =
            Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);
    private static final int CACHE_LIMIT = 1024;

    /**
     * An authenticated user.
     *
     * @param user the user name (the {@code sub} of its delegation tokens)
     * @param acl what the user may do
     */
    record Principal(String user, AccessControlList acl) {
    }

    /** A successful check and the users it was made against: valid while those are still the current ones. */
    private record Verified(PasswordFile users, Principal principal) {
    }

    private final java.util.function.Supplier<PasswordFile> users;
    private final ConcurrentHashMap<String, Verified> verified = new ConcurrentHashMap<>();

    /**
     * @param users who may call
     */
    public BasicAuthInterceptor(PasswordFile users) {
        this(supplierOf(users));
    }

    /**
     * @param users who may call, asked on every call (a {@link ReloadingPasswordFile} changes them when the file
     *     changes: checks cached against the old users are then made again)
     */
    public BasicAuthInterceptor(java.util.function.Supplier<PasswordFile> users) {
        this.users = Objects.requireNonNull(users, "users");
    }

    private static java.util.function.Supplier<PasswordFile> supplierOf(PasswordFile users) {
        Objects.requireNonNull(users, "users");
        return () -> users;
    }

    /**
     * Authenticates the call, or closes it with UNAUTHENTICATED if its Basic credentials are wrong. Blocks for one
     * PBKDF2 run on a cache miss.
     */
    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
                                                      ServerCallHandler<Q, R> next) {
        String header = headers.get(AUTHORIZATION);
        if (!isBasic(header)) {
            // not for this handler: the call goes on without a principal (Pravega's interceptor does the same)
            return next.startCall(call, headers);
        }
        Optional<Principal> principal = authenticate(header);
        if (principal.isEmpty()) {
            call.close(Status.UNAUTHENTICATED.withDescription("missing or wrong credentials: the controller needs "
                    + "'authorization: Basic base64(user:password)'"), new Metadata());
            return new ServerCall.Listener<>() {
            };
        }
        Context context = Context.current().withValue(PRINCIPAL, principal.get());
        return Contexts.interceptCall(context, call, headers, next);
    }

    /** @return whether the header names the Basic scheme (the token after it may still be malformed) */
    private static boolean isBasic(String header) {
        if (header == null) {
            return false;
        }
        String value = header.strip();
        int space = value.indexOf(' ');
        String scheme = space < 0 ? value : value.substring(0, space);
        return scheme.toLowerCase(Locale.ROOT).equals("basic");
    }

    private Optional<Principal> authenticate(String header) {
        PasswordFile now = users.get();
        String cacheKey = sha256(header);
        Verified cached = verified.get(cacheKey);
        if (cached != null && cached.users() == now) {
            return Optional.of(cached.principal());
        }
        String value = header.strip();
        int space = value.indexOf(' ');
        if (space < 0 || !value.substring(0, space).toLowerCase(Locale.ROOT).equals("basic")) {
            return Optional.empty();
        }
        String decoded;
        try {
            decoded = new String(Base64.getDecoder().decode(value.substring(space + 1).strip()),
                    StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
        int colon = decoded.indexOf(':');
        if (colon <= 0) {
            return Optional.empty();
        }
        String user = decoded.substring(0, colon);
        Optional<Principal> principal = now.authenticate(user, decoded.substring(colon + 1).toCharArray())
                .map(acl -> new Principal(user, acl));
        if (principal.isEmpty()) {
            verified.remove(cacheKey);
        }
        principal.ifPresent(p -> {
            if (verified.size() >= CACHE_LIMIT) {
                verified.clear();
            }
            verified.put(cacheKey, new Verified(now, p));
        });
        return principal;
    }

    private static String sha256(String s) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                    .digest(s.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is not available", e);
        }
    }
}
