package io.sluice.redisson;

import org.redisson.api.RScript;
import org.redisson.client.RedisNoScriptException;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

/**
 * Runs a decision script by its SHA-1 ({@code EVALSHA}), and by its text only when Redis answers {@code NOSCRIPT}
 * (a restart, {@code SCRIPT FLUSH}, a node that never ran it), which loads it: a script Redis did not find did not
 * run, so sending it again decides nothing twice. Redisson's {@code evalAsync} does the same, but copies every
 * encoded argument of every call first in case it must resend them (a buffer, a copy and a leak-detector record
 * per argument: a quiet decision's profile shows it). Thread-safe.
 */
final class ScriptRunner {
    private final RScript scripts;

    ScriptRunner(RScript scripts) {
        this.scripts = scripts;
    }

    /** {@code text}, whose SHA-1 is {@code sha} ({@link #sha1}), on {@code key}'s node, answering a list. */
    CompletionStage<List<Object>> run(String key, String text, String sha, List<Object> keys, Object[] argv) {
        CompletionStage<List<Object>> bySha = scripts.evalShaAsync(key, RScript.Mode.READ_WRITE, sha,
                RScript.ReturnType.LIST, keys, argv);
        return bySha.exceptionallyCompose(e -> noScript(e)
                ? scripts.<List<Object>>evalAsync(key, RScript.Mode.READ_WRITE, text, RScript.ReturnType.LIST, keys, argv)
                : CompletableFuture.failedFuture(e));
    }

    /** Whether Redis did not have the script. */
    private static boolean noScript(Throwable e) {
        Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
        return cause instanceof RedisNoScriptException
                || (cause.getMessage() != null && cause.getMessage().startsWith("NOSCRIPT"));
    }

    /** The SHA-1 Redis names {@code text} by, in lower-case hexadecimal. */
    static String sha1(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-1 is required of every Java platform", e);
        }
    }
}
