package io.sluice.common;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;
import java.util.Map;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the expiry of a JSON Web Token (RFC 7519) in JWS compact form, {@code header.payload.signature}, without
 * verifying it: the client only needs to know when to ask for a new one, the server does the checking. Stateless and
 * thread-safe.
 */
public final class Jwt {
    private static final Logger LOG = LoggerFactory.getLogger(Jwt.class);

    /** The largest {@code exp} that fits an {@link Instant}. */
    private static final BigDecimal MAX_EPOCH_SECOND = BigDecimal.valueOf(Instant.MAX.getEpochSecond());
    private static final BigDecimal MIN_EPOCH_SECOND = BigDecimal.valueOf(Instant.MIN.getEpochSecond());

    private Jwt() {
    }

    /**
     * Reads the {@code exp} claim: the payload (second part) is base64url-decoded (padding and the standard base64
     * alphabet are tolerated) and parsed as JSON; {@code exp} must be a number of seconds since the epoch, fractions
     * allowed (RFC 7519 NumericDate).
     *
     * @param token a token from the controller; may be anything
     * @return the expiry, or null if {@code token} is not a JWT, is malformed, or has no numeric {@code exp}
     */
    public static Instant expiry(String token) {
        if (token == null || token.isEmpty()) {
            return null;
        }
        int first = token.indexOf('.');
        int second = first < 0 ? -1 : token.indexOf('.', first + 1);
        if (second < 0 || token.indexOf('.', second + 1) >= 0) {
            return null; // not three parts (a JWE has five): opaque to us
        }
        String payload = token.substring(first + 1, second);
        Map<String, Object> claims;
        try {
            byte[] json = decodeBase64Url(payload);
            claims = Json.parseObject(new String(json, StandardCharsets.UTF_8));
        } catch (IllegalArgumentException e) {
            LOG.debug("token looks like a JWT but its payload cannot be read; treating its expiry as unknown: {}",
                    e.getMessage());
            return null;
        }
        Object exp = claims.get("exp");
        if (!(exp instanceof BigDecimal seconds)) {
            if (exp != null) {
                LOG.debug("JWT exp claim is {}, not a number; treating the expiry as unknown", Json.typeName(exp));
            }
            return null;
        }
        if (seconds.compareTo(MAX_EPOCH_SECOND) > 0 || seconds.compareTo(MIN_EPOCH_SECOND) < 0) {
            LOG.debug("JWT exp claim {} is outside the representable range; treating the expiry as unknown", seconds);
            return null;
        }
        long whole = seconds.longValue();
        long nanos = seconds.subtract(BigDecimal.valueOf(whole)).movePointRight(9).longValue();
        return Instant.ofEpochSecond(whole, nanos);
    }

    /**
     * @param part one part of a compact JWT
     * @return its bytes
     * @throws IllegalArgumentException if it is not base64 (url-safe or standard, padded or not)
     */
    static byte[] decodeBase64Url(String part) {
        String normalized = part.replace('+', '-').replace('/', '_');
        int end = normalized.length();
        while (end > 0 && normalized.charAt(end - 1) == '=') {
            end--;
        }
        return Base64.getUrlDecoder().decode(normalized.substring(0, end));
    }
}
