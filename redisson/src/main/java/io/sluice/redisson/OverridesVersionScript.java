package io.sluice.redisson;

import org.redisson.api.RScript;

import java.util.concurrent.CompletionStage;

/** The overrides' version, read by every server once a second: one {@code GET} inside a script (0 when none). */
final class OverridesVersionScript {
    private static final String TEXT = "return redis.call('GET', KEYS[2]) or '0'";

    private final RScript scripts;

    OverridesVersionScript(RScript scripts) {
        this.scripts = scripts;
    }

    CompletionStage<Long> call(String prefix) {
        return scripts.<Object>evalAsync(OverrideKeys.of(prefix).get(0).toString(), RScript.Mode.READ_ONLY, TEXT,
                RScript.ReturnType.VALUE, OverrideKeys.of(prefix)).thenApply(v -> Long.parseLong(v.toString()));
    }
}
