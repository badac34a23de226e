package io.sluice.redisson;

import org.redisson.api.RScript;

import java.util.concurrent.CompletionStage;

/** Redis {@code TIME} in epoch milliseconds, through a keyless script so that it runs on a cluster too. */
final class ServerTimeScript {
    private static final String TEXT =
            "local t = redis.call('TIME'); return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)";

    private final RScript scripts;

    ServerTimeScript(RScript scripts) {
        this.scripts = scripts;
    }

    /** @return Redis's time (ms) */
    CompletionStage<Long> call() {
        return scripts.evalAsync(RScript.Mode.READ_ONLY, TEXT, RScript.ReturnType.LONG);
    }
}
