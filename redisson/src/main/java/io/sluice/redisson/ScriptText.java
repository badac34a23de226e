package io.sluice.redisson;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * A Lua script's text and the SHA-1 Redis names it by ({@code EVALSHA}), computed once.
 *
 * @param text the whole script
 * @param sha  its SHA-1 in lower-case hexadecimal
 */
record ScriptText(String text, String sha) {
    /** {@code text} with its SHA-1. */
    static ScriptText of(String text) {
        return new ScriptText(text, sha1(text));
    }

    private static String sha1(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-1 is required of every Java platform", e);
        }
    }
}
