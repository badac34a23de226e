package io.sluice.redisson;

import org.redisson.api.RScript;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionStage;

/**
 * {@code announce.lua}: records a server as alive now on Redis time, forgets those not heard from for a while, and
 * counts the rest (the divisor of {@code on-backend-failure=local}).
 */
final class AnnounceScript {
    private static final String TEXT = LuaScript.of("shared/redis-time.lua", "servers/announce.lua");
    /** The script's time is always Redis's: liveness is real time, whatever clock decisions run on. */
    private static final String REDIS_TIME = "";

    private final RScript scripts;

    AnnounceScript(RScript scripts) {
        this.scripts = scripts;
    }

    /** @return the servers alive, the announcing one included */
    CompletionStage<Integer> call(String key, String serverId, Duration goneAfter) {
        return scripts.<Long>evalAsync(key, RScript.Mode.READ_WRITE, TEXT, RScript.ReturnType.LONG,
                        List.<Object>of(key), REDIS_TIME, serverId, Long.toString(goneAfter.toMillis()))
                .thenApply(Long::intValue);
    }
}
