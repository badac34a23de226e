package io.sluice.key;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Base64;

/**
 * Resolves a rule's {@link KeySpec} against a request, and turns resolved values into the fixed-length,
 * Redis-safe form that goes into keys. Thread-safe.
 *
 * <p>The value of a one-part key is the part itself ({@code alice}), so that {@code header:X-User} in the
 * filter and {@code @LimitKey} in the interceptor reach the same counter. Values of several parts are
 * length-prefixed before joining, so that no choice of values can collide with another.
 */
public final class KeyResolver {
    /** Longest value read from a request; longer ones are cut (then hashed), so no request does unbounded work. */
    static final int MAX_VALUE_CHARS = 8192;
    /** The value of the {@code global} key kind: one counter for everyone. */
    public static final String GLOBAL = "*";

    private final TrustedProxies trustedProxies;
    private final ClientAddressHeader clientAddressHeader;

    /** Client addresses behind the trusted proxies, read from {@code X-Forwarded-For}. */
    public KeyResolver(TrustedProxies trustedProxies) {
        this(trustedProxies, ClientAddressHeader.X_FORWARDED_FOR);
    }

    /** Client addresses behind the trusted proxies, read from that header only. */
    public KeyResolver(TrustedProxies trustedProxies, ClientAddressHeader clientAddressHeader) {
        this.trustedProxies = trustedProxies;
        this.clientAddressHeader = clientAddressHeader;
    }

    /** The resolved key value, or null when a part is missing (such as {@code user} for an anonymous request). */
    public String resolve(KeySpec spec, RequestView request) {
        if (spec.parts().size() == 1) return part(spec.parts().get(0), request);
        StringBuilder sb = new StringBuilder();
        for (KeySpec.Part p : spec.parts()) {
            String v = part(p, request);
            if (v == null) return null;
            sb.append(v.length()).append(':').append(v).append(';');
        }
        return sb.toString();
    }

    private String part(KeySpec.Part p, RequestView request) {
        String v = switch (p.kind()) {
            case GLOBAL -> KeyResolver.GLOBAL;
            case IP -> ClientAddress.resolve(request, trustedProxies, clientAddressHeader);
            case USER -> request.userName();
            case SESSION -> request.sessionId();
            case HEADER -> request.header(p.name());
            case COOKIE -> request.cookie(p.name());
            case PARAM -> QueryString.first(request.queryString(), p.name());
        };
        if (v == null || v.isEmpty()) return null;
        return v.length() > MAX_VALUE_CHARS ? v.substring(0, MAX_VALUE_CHARS) : v;
    }

    /**
     * The Redis-safe form of a key value: 22 characters of URL-safe Base64 over SHA-256 (128 bits). No
     * user-supplied character (such as a hash-tag brace, CR or LF) ever reaches Redis.
     */
    public static String hash(String value) {
        byte[] digest = sha256().digest(value.getBytes(StandardCharsets.UTF_8));
        return BASE64.encodeToString(Arrays.copyOf(digest, 16));
    }

    private static final Base64.Encoder BASE64 = Base64.getUrlEncoder().withoutPadding();
    private static final MessageDigest SHA256 = newSha256();

    /** A fresh digest per call, cloned from one looked up at start (a provider look-up per request is slower). */
    private static MessageDigest sha256() {
        try {
            return (MessageDigest) SHA256.clone();
        } catch (CloneNotSupportedException e) {
            return newSha256();
        }
    }

    private static MessageDigest newSha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every Java platform", e);
        }
    }
}
