package io.sluice.redisson;

import io.sluice.spi.PrefetchUse;
import org.redisson.api.RScript;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;

/**
 * {@code return-log.lua}: hands back the unused permits of a prefetched stock of a sliding log, from its one entry
 * (found by the stock's id and permits), and logs the used ones again at the times they were used.
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
     * @param used    when the others were used (none: they stay at the entry's time)
     * @return the permits handed back: 0 when the entry is gone
     */
    CompletionStage<Long> call(String log, String stockId, long permits, long unused, List<PrefetchUse> used) {
        List<Object> args = new ArrayList<>(3 + 2 * used.size());
        args.add(stockId);
        args.add(Long.toString(permits));
        args.add(Long.toString(unused));
        for (PrefetchUse u : used) {
            args.add(Long.toString(u.permits()));
            args.add(Long.toString(u.beforeEndMillis()));
        }
        return scripts.evalAsync(log, RScript.Mode.READ_WRITE, TEXT, RScript.ReturnType.LONG,
                RedissonNames.log(log), args.toArray());
    }
}
