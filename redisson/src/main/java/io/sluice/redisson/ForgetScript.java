package io.sluice.redisson;

import io.sluice.spi.RateRequest;
import org.redisson.api.RScript;

import java.util.List;
import java.util.concurrent.CompletionStage;

/** {@code forget.lua}: deletes a rate key's state and its block ({@code Sluice.reset}), all in one cluster slot. */
final class ForgetScript {
    private static final String TEXT = LuaScript.of("rate/forget.lua");

    private final RScript scripts;

    ForgetScript(RScript scripts) {
        this.scripts = scripts;
    }

    /** @param block the request's script with its block key, whose keys are every key the request's state has */
    CompletionStage<Void> call(RateRequest r, BlockScript block) {
        List<Object> keys = block.keys(r);
        return scripts.<Long>evalAsync(r.key(), RScript.Mode.READ_WRITE, TEXT, RScript.ReturnType.LONG, keys)
                .thenApply(ignored -> null);
    }
}
