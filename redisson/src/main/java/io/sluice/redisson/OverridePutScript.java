package io.sluice.redisson;

import io.sluice.spi.Overriding;
import io.sluice.spi.RequestRefusedException;
import io.sluice.spi.StoredOverride;
import org.redisson.api.RScript;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/** {@code overrides/put.lua}: stores one override, forgets those ended, refuses one beyond {@link Overriding#MAX_OVERRIDES}. */
final class OverridePutScript {
    private static final String TEXT = LuaScript.of("overrides/version.lua", "overrides/put.lua");
    /** Kept past the last override's end, so that servers read its end before Redis forgets it. */
    private static final long SLACK_MILLIS = 60_000;

    private final RScript scripts;

    OverridePutScript(RScript scripts) {
        this.scripts = scripts;
    }

    /** @param now the caller's wall time (ms), against which ends are compared */
    CompletionStage<Void> call(String prefix, StoredOverride o, long now) {
        return scripts.<Long>evalAsync(OverrideKeys.of(prefix).get(0).toString(), RScript.Mode.READ_WRITE, TEXT,
                        RScript.ReturnType.LONG, OverrideKeys.of(prefix), OverrideKeys.field(o.rule(), o.hashedKey()),
                        Long.toString(o.untilMillis()), o.limit(), Long.toString(now),
                        Integer.toString(Overriding.MAX_OVERRIDES), Long.toString(SLACK_MILLIS))
                .thenCompose(stored -> stored == 1L ? CompletableFuture.<Void>completedFuture(null)
                        : CompletableFuture.failedFuture(new RequestRefusedException(
                                "overrides: " + Overriding.MAX_OVERRIDES + " in effect already")));
    }
}
