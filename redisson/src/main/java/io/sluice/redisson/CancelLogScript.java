package io.sluice.redisson;

import org.redisson.api.RScript;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;

/**
 * {@code cancel-log.lua}: hands back whatever a prefetch took from a sliding log when its answer never came, by its
 * id; when Redis has not run it (yet), a tombstone makes it take nothing if it runs later. Idempotent.
 */
final class CancelLogScript {
    private static final String TEXT = LuaScript.of("rate/cancel-log.lua");

    private final RScript scripts;

    CancelLogScript(RScript scripts) {
        this.scripts = scripts;
    }

    /**
     * @param stockId     the prefetch's entry id
     * @param countsFrom  the time (ms) its entry counts from
     * @param now         now (ms, the caller's clock)
     * @param tombstoneMs how long a tombstone lasts (ms)
     * @return the permits handed back (0 when a tombstone was left)
     */
    CompletionStage<Long> call(String log, String stockId, long countsFrom, long now, long tombstoneMs) {
        List<Object> keys = new ArrayList<>();
        keys.add(log);
        keys.addAll(RedissonNames.log(log));
        return scripts.evalAsync(log, RScript.Mode.READ_WRITE, TEXT, RScript.ReturnType.LONG, keys,
                stockId, Long.toString(countsFrom), Long.toString(now), Long.toString(tombstoneMs));
    }
}
