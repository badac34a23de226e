package io.sluice.redisson;

import org.redisson.api.RScript;

import java.util.concurrent.CompletionStage;

/**
 * {@code return-log.lua}: hands back the unused permits of a prefetched stock of a sliding log, from its one entry
 * (found by the stock's id and permits).
 */
final class ReturnLogScript {
    private static final String TEXT = LuaScript.of("rate/return-log.lua");

    private final RScript scripts;

    ReturnLogScript(RScript scripts) {
        this.scripts = scripts;
    }

    /**
     * @param stockId the stock's entry id
     * @param permits the permits stored under it
     * @param unused  how many of them to hand back
     * @return the permits handed back: 0 when the entry is gone
     */
    CompletionStage<Long> call(String log, String stockId, long permits, long unused) {
        return scripts.evalAsync(log, RScript.Mode.READ_WRITE, TEXT, RScript.ReturnType.LONG,
                RedissonNames.log(log), stockId, Long.toString(permits), Long.toString(unused));
    }
}
