package io.sluice.redisson;

import org.redisson.api.RScript;

import java.util.concurrent.CompletionStage;

/** {@code overrides/remove.lua}: removes one override, changing the version when there was one. */
final class OverrideRemoveScript {
    private static final String TEXT = LuaScript.of("overrides/version.lua", "overrides/remove.lua");

    private final RScript scripts;

    OverrideRemoveScript(RScript scripts) {
        this.scripts = scripts;
    }

    /** @return whether there was one */
    CompletionStage<Boolean> call(String prefix, String rule, String hashedKey) {
        return scripts.<Long>evalAsync(OverrideKeys.of(prefix).get(0).toString(), RScript.Mode.READ_WRITE, TEXT,
                        RScript.ReturnType.LONG, OverrideKeys.of(prefix), OverrideKeys.field(rule, hashedKey))
                .thenApply(removed -> removed == 1L);
    }
}
