package io.sluice.server.auth;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

import io.sluice.errors.AuthenticationException;
import io.sluice.errors.AuthorizationException;
import io.sluice.errors.TokenExpiredException;

/**
 * Signs and verifies the delegation tokens the embedded controller hands out and the embedded segment store checks
 * on wire commands: compact JWTs ({@code header.payload.signature}, base64url without padding) signed with HS256
 * over a server secret.
 *
 * <p>Payload claims: {@code sub} (the user the token was issued to), {@code res} (the resource: {@code scope/stream},
 * or {@code scope/kvt} for a key-value table), {@code perm} ({@code READ} or {@code READ_UPDATE}), {@code iat} and
 * {@code exp} (seconds since the epoch). The official Java client only reads {@code exp}, to refresh a token before
 * it expires; it decodes the payload with the standard base64 alphabet, so the payload is written to encode the same
 * in both alphabets (no {@code -} or {@code _}).
 *
 * <p>Thread-safe; nothing blocks.
 */
public final class DelegationTokens {
    /** Pravega's default token lifetime ({@code controller.security.auth.delegationToken.ttl.seconds}). */
    public static final Duration DEFAULT_LIFETIME = Duration.ofSeconds(600);

    private static final String HMAC = "HmacSHA256";
    private static final String HEADER = base64Url("{\"alg\":\"HS256\",\"typ\":\"JWT\"}".getBytes(StandardCharsets.UTF_8));
    private static final String KVTABLE_SUFFIX = "_kvtable";
    private static final String TRANSACTION_DELIMITER = "#transaction.";

    private final SecretKeySpec key;
    private final Duration lifetime;
    private final Clock clock;

    /**
     * @param secret the HMAC key, at least 32 bytes; the segment store must use the same one
     * @param lifetime how long a token stays valid, at least one second
     * @param clock source of "now"
     * @throws IllegalArgumentException if the secret is shorter than 32 bytes or the lifetime below one second
     */
    public DelegationTokens(byte[] secret, Duration lifetime, Clock clock) {
        Objects.requireNonNull(secret, "secret");
        Objects.requireNonNull(lifetime, "lifetime");
        Objects.requireNonNull(clock, "clock");
        if (secret.length < 32) {
            throw new IllegalArgumentException("delegation token secret must be at least 32 bytes, got " + secret.length);
        }
        if (lifetime.compareTo(Duration.ofSeconds(1)) < 0) {
            throw new IllegalArgumentException("delegation token lifetime must be at least 1 s, got " + lifetime);
        }
        this.key = new SecretKeySpec(secret.clone(), HMAC);
        this.lifetime = lifetime;
        this.clock = clock;
    }

    /** @return 32 random bytes from a {@link SecureRandom}, fit to be a secret */
    public static byte[] randomSecret() {
        byte[] secret = new byte[32];
        new SecureRandom().nextBytes(secret);
        return secret;
    }

    /**
     * @param claims the claims of a token {@link #verify} accepted
     * @return whether the token has expired since, by this instance's clock (no signature check: cheap)
     */
    public boolean expired(Claims claims) {
        return clock.millis() / 1000 >= claims.expiresAtSeconds();
    }

    /** @return how long a token created now stays valid */
    public Duration lifetime() {
        return lifetime;
    }

    /**
     * Creates a token.
     *
     * @param subject the user it is issued to
     * @param resource {@code scope/stream} (or {@code scope/kvt})
     * @param level what the bearer may do with the resource; {@link AccessLevel#NONE} is not allowed
     * @return the signed token
     */
    public String create(String subject, String resource, AccessLevel level) {
        Objects.requireNonNull(subject, "subject");
        Objects.requireNonNull(resource, "resource");
        Objects.requireNonNull(level, "level");
        if (level == AccessLevel.NONE) {
            throw new IllegalArgumentException("a delegation token must grant READ or READ_UPDATE, not NONE");
        }
        long now = clock.millis() / 1000;
        Map<String, Object> claims = new LinkedHashMap<>();
        claims.put("sub", subject);
        claims.put("res", resource);
        claims.put("perm", level.name());
        claims.put("iat", now);
        claims.put("exp", now + lifetime.toSeconds());
        String signingInput = HEADER + "." + base64Url(Json.write(claims).getBytes(StandardCharsets.UTF_8));
        return signingInput + "." + base64Url(sign(signingInput));
    }

    /**
     * Checks a token's signature and expiry.
     *
     * @return its claims
     * @throws AuthenticationException if the token is empty, malformed or not signed with this secret
     * @throws TokenExpiredException if it expired
     */
    public Claims verify(String token) {
        if (token == null || token.isEmpty()) {
            throw new AuthenticationException("no delegation token");
        }
        int dot1 = token.indexOf('.');
        int dot2 = token.lastIndexOf('.');
        if (dot1 <= 0 || dot2 <= dot1 || token.indexOf('.', dot1 + 1) != dot2) {
            throw new AuthenticationException("malformed delegation token");
        }
        String signingInput = token.substring(0, dot2);
        byte[] signature;
        try {
            signature = Base64.getUrlDecoder().decode(token.substring(dot2 + 1));
        } catch (IllegalArgumentException e) {
            throw new AuthenticationException("malformed delegation token signature", e);
        }
        if (!MessageDigest.isEqual(sign(signingInput), signature)) {
            throw new AuthenticationException("delegation token signature does not verify");
        }
        Map<String, Object> claims;
        try {
            String payload = new String(Base64.getUrlDecoder().decode(token.substring(dot1 + 1, dot2)),
                    StandardCharsets.UTF_8);
            claims = Json.read(payload);
        } catch (IllegalArgumentException e) {
            throw new AuthenticationException("malformed delegation token payload", e);
        }
        Claims result;
        try {
            result = new Claims((String) claims.get("sub"), (String) claims.get("res"),
                    AccessLevel.valueOf((String) claims.get("perm")), ((Number) claims.get("exp")).longValue());
        } catch (RuntimeException e) {
            throw new AuthenticationException("delegation token lacks a claim or has a wrong one", e);
        }
        if (clock.millis() / 1000 >= result.expiresAtSeconds()) {
            throw new TokenExpiredException("delegation token for " + result.resource() + " expired at "
                    + result.expiresAtSeconds());
        }
        return result;
    }

    /**
     * Checks that a token lets its bearer do something with a segment: signature, expiry, resource and level.
     *
     * @param token the token from the wire command
     * @param qualifiedSegmentName the segment the command is about
     * @param required what the command needs
     * @throws AuthenticationException if the token is empty, malformed or not ours
     * @throws TokenExpiredException if it expired
     * @throws AuthorizationException if it is for another resource or grants too little
     */
    public void check(String token, String qualifiedSegmentName, AccessLevel required) {
        Claims claims = verify(token);
        String resource = resourceOfSegment(qualifiedSegmentName);
        if (!claims.resource().equals(resource)) {
            throw new AuthorizationException("delegation token is for " + claims.resource() + ", not for " + resource);
        }
        if (!claims.level().implies(required)) {
            throw new AuthorizationException("delegation token grants " + claims.level() + " on " + resource
                    + " but " + required + " is needed");
        }
    }

    /**
     * The resource a segment belongs to, as named in tokens: the first two components of its name, with a key-value
     * table's {@code _kvtable} suffix removed ({@code s/x/3.#epoch.1#transaction.ab..} is {@code s/x};
     * {@code s/t_kvtable/0.#epoch.0} is {@code s/t}).
     *
     * @throws IllegalArgumentException if the name has fewer than three components
     */
    public static String resourceOfSegment(String qualifiedSegmentName) {
        Objects.requireNonNull(qualifiedSegmentName, "qualifiedSegmentName");
        String name = qualifiedSegmentName;
        int txn = name.indexOf(TRANSACTION_DELIMITER);
        if (txn >= 0) {
            name = name.substring(0, txn);
        }
        int first = name.indexOf('/');
        int second = first < 0 ? -1 : name.indexOf('/', first + 1);
        if (first <= 0 || second <= first + 1) {
            throw new IllegalArgumentException("not a qualified segment name: '" + qualifiedSegmentName + "'");
        }
        String object = name.substring(first + 1, second);
        if (object.endsWith(KVTABLE_SUFFIX)) {
            object = object.substring(0, object.length() - KVTABLE_SUFFIX.length());
        }
        return name.substring(0, first) + "/" + object;
    }

    private byte[] sign(String signingInput) {
        try {
            Mac mac = Mac.getInstance(HMAC);
            mac.init(key);
            return mac.doFinal(signingInput.getBytes(StandardCharsets.US_ASCII));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is not available", e);
        }
    }

    private static String base64Url(byte[] bytes) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    /**
     * A verified token's claims.
     *
     * @param subject the user it was issued to
     * @param resource {@code scope/stream} or {@code scope/kvt}
     * @param level what it grants
     * @param expiresAtSeconds expiry, seconds since the epoch
     */
    public record Claims(String subject, String resource, AccessLevel level, long expiresAtSeconds) {
        /** Checks the fields. */
        public Claims {
            Objects.requireNonNull(subject, "subject");
            Objects.requireNonNull(resource, "resource");
            Objects.requireNonNull(level, "level");
        }
    }

    /** The little JSON tokens need: one flat object of string and integer members. */
    static final class Json {
        private Json() {
        }

        static String write(Map<String, Object> members) {
            StringBuilder out = new StringBuilder("{");
            for (Map.Entry<String, Object> member : members.entrySet()) {
                if (out.length() > 1) {
                    out.append(',');
                }
                string(out, member.getKey());
                out.append(':');
                Object value = member.getValue();
                if (value instanceof Number n) {
                    out.append(n.longValue());
                } else {
                    string(out, value.toString());
                }
            }
            return out.append('}').toString();
        }

        private static void string(StringBuilder out, String s) {
            out.append('"');
            for (int i = 0; i < s.length(); i++) {
                char c = s.charAt(i);
                switch (c) {
                    case '"' -> out.append("\\\"");
                    case '\\' -> out.append("\\\\");
                    default -> {
                        // Escape everything outside printable ASCII, and the three printable characters whose
                        // bytes can yield base64 digits 62 and 63: the official Java client decodes the payload
                        // with the standard (not URL-safe) decoder, so the payload must avoid '-' and '_'.
                        if (c < 0x20 || c > 0x7E || c == '>' || c == '?' || c == '~') {
                            out.append(String.format("\\u%04x", (int) c));
                        } else {
                            out.append(c);
                        }
                    }
                }
            }
            out.append('"');
        }

        /**
         * @throws IllegalArgumentException if the text is not one flat object of strings, integers, booleans and
         *         nulls
         */
        static Map<String, Object> read(String text) {
            Reader r = new Reader(text);
            Map<String, Object> members = new LinkedHashMap<>();
            r.skipSpace();
            r.expect('{');
            r.skipSpace();
            if (r.peek() == '}') {
                r.next();
            } else {
                while (true) {
                    r.skipSpace();
                    String name = r.string();
                    r.skipSpace();
                    r.expect(':');
                    r.skipSpace();
                    members.put(name, r.value());
                    r.skipSpace();
                    char c = r.next();
                    if (c == '}') {
                        break;
                    }
                    if (c != ',') {
                        throw new IllegalArgumentException("expected ',' or '}' in JSON at " + (r.pos - 1));
                    }
                }
            }
            r.skipSpace();
            if (r.pos != text.length()) {
                throw new IllegalArgumentException("trailing characters after JSON object");
            }
            return members;
        }

        private static final class Reader {
            private final String text;
            private int pos;

            Reader(String text) {
                this.text = text;
            }

            char peek() {
                if (pos >= text.length()) {
                    throw new IllegalArgumentException("JSON ends early");
                }
                return text.charAt(pos);
            }

            char next() {
                char c = peek();
                pos++;
                return c;
            }

            void expect(char c) {
                if (next() != c) {
                    throw new IllegalArgumentException("expected '" + c + "' in JSON at " + (pos - 1));
                }
            }

            void skipSpace() {
                while (pos < text.length() && Character.isWhitespace(text.charAt(pos))) {
                    pos++;
                }
            }

            Object value() {
                char c = peek();
                if (c == '"') {
                    return string();
                }
                if (c == '-' || (c >= '0' && c <= '9')) {
                    int start = pos;
                    pos++;
                    while (pos < text.length() && Character.isDigit(text.charAt(pos))) {
                        pos++;
                    }
                    try {
                        return Long.parseLong(text.substring(start, pos));
                    } catch (NumberFormatException e) {
                        throw new IllegalArgumentException("bad JSON number at " + start, e);
                    }
                }
                for (String literal : new String[] {"true", "false", "null"}) {
                    if (text.startsWith(literal, pos)) {
                        pos += literal.length();
                        return literal.equals("null") ? null : Boolean.valueOf(literal);
                    }
                }
                throw new IllegalArgumentException("unsupported JSON value at " + pos);
            }

            String string() {
                expect('"');
                StringBuilder out = new StringBuilder();
                while (true) {
                    char c = next();
                    if (c == '"') {
                        return out.toString();
                    }
                    if (c != '\\') {
                        out.append(c);
                        continue;
                    }
                    char e = next();
                    switch (e) {
                        case '"', '\\', '/' -> out.append(e);
                        case 'b' -> out.append('\b');
                        case 'f' -> out.append('\f');
                        case 'n' -> out.append('\n');
                        case 'r' -> out.append('\r');
                        case 't' -> out.append('\t');
                        case 'u' -> {
                            if (pos + 4 > text.length()) {
                                throw new IllegalArgumentException("JSON ends inside a \\u escape");
                            }
                            try {
                                out.append((char) Integer.parseInt(text.substring(pos, pos + 4), 16));
                            } catch (NumberFormatException ex) {
                                throw new IllegalArgumentException("bad \\u escape in JSON at " + pos, ex);
                            }
                            pos += 4;
                        }
                        default -> throw new IllegalArgumentException("bad escape in JSON at " + (pos - 1));
                    }
                }
            }
        }
    }
}
