package io.sluice.redisson;

import org.redisson.api.RScript;
import org.redisson.client.RedisNoScriptException;

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

    /** {@code script} on {@code key}'s node, answering a list. */
    CompletionStage<List<Object>> run(String key, ScriptText script, List<Object> keys, Object[] argv) {
        CompletionStage<List<Object>> bySha = scripts.evalShaAsync(key, RScript.Mode.READ_WRITE, script.sha(),
                RScript.ReturnType.LIST, keys, argv);
        return bySha.exceptionallyCompose(e -> noScript(e)
                ? scripts.<List<Object>>evalAsync(key, RScript.Mode.READ_WRITE, script.text(), RScript.ReturnType.LIST, keys, argv)
                : CompletableFuture.failedFuture(e));
    }

    /** Whether Redis did not have the script. */
    private static boolean noScript(Throwable e) {
        Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
        return cause instanceof RedisNoScriptException
                || (cause.getMessage() != null && cause.getMessage().startsWith("NOSCRIPT"));
    }
}
