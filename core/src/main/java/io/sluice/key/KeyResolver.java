package io.sluice.key;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetEncoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;

/**
 * Resolves a rule's {@link KeySpec} against a request, and turns resolved values into the fixed-length,
 * Redis-safe form that goes into keys. Thread-safe.
 *
 * <p>The value of a one-part key is the part itself ({@code alice}), so that {@code header:X-User} in the
 * filter and {@code @LimitKey} in the interceptor reach the same counter. Values of several parts are
 * length-prefixed before joining, so that no choice of values can collide with another.
 *
 * <p>Values are never cut: two values that differ anywhere, however long, are two counters. A value is hashed as
 * a stream (at most {@link #HASH_CHUNK_BYTES} of it encoded at a time), and a part of a combined key longer than
 * {@link #LONG_PART_CHARS} joins the combined value as its digest, so resolving and hashing a huge value (a
 * megabyte header read by a container that allows it, a {@code @LimitKey} argument) copies none of it.
 */
public final class KeyResolver {
    /** A part of a combined key longer than this joins the combined value as its digest, not as a copy. */
    static final int LONG_PART_CHARS = 8192;
    /** Values up to this long are hashed from one encoded copy; longer ones are encoded a chunk at a time. */
    static final int STREAMED_FROM_CHARS = 2048;
    /** The buffer a streamed value is encoded into, chunk by chunk. */
    static final int HASH_CHUNK_BYTES = 8192;
    /** Marks a long part's digest in a combined value: a written part starts with its length, a digit. */
    private static final char DIGEST_MARK = '#';
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

    /**
     * The resolved key value, or null when a part is missing (such as {@code user} for an anonymous request). A key
     * with alternatives ({@code user|ip}) resolves to the first alternative whose parts all resolve, named by its
     * text: {@code user=alice}, {@code ip=10.0.0.1}, so that a user named {@code 10.0.0.1} never shares the counter of
     * that address. A key without alternatives resolves to the value alone, as it always has (its Redis keys stay).
     */
    public String resolve(KeySpec spec, RequestView request) {
        List<KeySpec.Alternative> alternatives = spec.alternatives();
        if (alternatives.size() == 1) return resolve(alternatives.get(0), request);
        for (KeySpec.Alternative a : alternatives) {
            String v = resolve(a, request);
            if (v != null) return named(a, v);
        }
        return null;
    }

    /**
     * An alternative's value with its kind: {@code <alternative>=<value>}, or {@code <alternative>#<digest>} for a
     * value longer than {@link #LONG_PART_CHARS} (so that it is not copied). No alternative's text holds {@code =},
     * and no digest does: the two forms never meet, and the first {@code =} ends the kind.
     */
    private static String named(KeySpec.Alternative a, String value) {
        if (value.length() > LONG_PART_CHARS) return a + String.valueOf(DIGEST_MARK) + digest(value);
        return a + "=" + value;
    }

    private String resolve(KeySpec.Alternative alternative, RequestView request) {
        List<KeySpec.Part> parts = alternative.parts();
        if (parts.size() == 1) return part(parts.get(0), request);
        StringBuilder sb = new StringBuilder();
        for (KeySpec.Part p : parts) {
            String v = part(p, request);
            if (v == null) return null;
            if (v.length() > LONG_PART_CHARS) sb.append(DIGEST_MARK).append(digest(v)).append(';');
            else sb.append(v.length()).append(':').append(v).append(';');
        }
        return sb.toString();
    }

    /**
     * The client address of the request as the {@code ip} key finds it (through the trusted proxies), as 4 or 16
     * bytes; null when even the peer address is not an IP literal.
     */
    byte[] clientAddress(RequestView request) {
        return ClientAddress.of(request, trustedProxies, clientAddressHeader);
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
        return v == null || v.isEmpty() ? null : v;
    }

    /**
     * The Redis-safe form of a key value: 22 characters of URL-safe Base64 over SHA-256 (128 bits). No
     * user-supplied character (such as a hash-tag brace, CR or LF) ever reaches Redis.
     */
    public static String hash(String value) {
        return BASE64.encodeToString(Arrays.copyOf(sha256Of(value), 16));
    }

    /** A long part's stand-in in a combined value: all 256 bits, so it is as distinct as the part itself. */
    private static String digest(String part) {
        return BASE64.encodeToString(sha256Of(part));
    }

    /** SHA-256 of the value's UTF-8 bytes (an unpaired surrogate as {@code ?}, as {@link String#getBytes} has it). */
    private static byte[] sha256Of(String value) {
        MessageDigest sha = sha256();
        if (value.length() <= STREAMED_FROM_CHARS) return sha.digest(value.getBytes(StandardCharsets.UTF_8));
        CharsetEncoder encoder = StandardCharsets.UTF_8.newEncoder()
                .onMalformedInput(CodingErrorAction.REPLACE).onUnmappableCharacter(CodingErrorAction.REPLACE);
        CharBuffer in = CharBuffer.wrap(value);
        ByteBuffer out = ByteBuffer.allocate(HASH_CHUNK_BYTES);
        CoderResult result;
        do {
            result = encoder.encode(in, out, true);
            drain(sha, out);
        } while (result.isOverflow());
        while (encoder.flush(out).isOverflow()) drain(sha, out);
        drain(sha, out);
        return sha.digest();
    }

    private static void drain(MessageDigest sha, ByteBuffer out) {
        out.flip();
        sha.update(out);
        out.clear();
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
