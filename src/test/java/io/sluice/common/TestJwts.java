package io.sluice.common;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;

/** Builds JWT-shaped strings by hand (unsigned: the client never verifies them). */
public final class TestJwts {
    private static final String HEADER = "{\"alg\":\"HS512\",\"typ\":\"JWT\"}";

    private TestJwts() {
    }

    public static String b64url(String json) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(json.getBytes(StandardCharsets.UTF_8));
    }

    /** @return header.payload.signature with {@code payload} as the claim set */
    public static String withPayload(String payloadJson) {
        return b64url(HEADER) + "." + b64url(payloadJson) + ".c2lnbmF0dXJl";
    }

    /** @return a token shaped like the Pravega controller's, expiring at {@code exp}; {@code id} makes it unique */
    public static String expiringAt(Instant exp, String id) {
        return withPayload("{\"sub\":\"" + id + "\",\"aud\":\"segmentstore\",\"iat\":" + (exp.getEpochSecond() - 600)
                + ",\"exp\":" + exp.getEpochSecond() + "}");
    }
}
