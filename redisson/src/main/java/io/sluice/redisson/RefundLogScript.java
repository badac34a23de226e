package io.sluice.redisson;

import org.redisson.api.RScript;

import java.util.concurrent.CompletionStage;

/**
 * {@code refund-log.lua}: hands back permits a sliding-log decision took: its own log entry, by the id its answer
 * carried; without one, the newest log entry of exactly that many permits (never a prefetched stock's).
 */
final class RefundLogScript {
    private static final String TEXT = LuaScript.of("rate/refund-log.lua");
    /** The script's "no entry id known". */
    private static final String UNKNOWN = "";

    private final RScript scripts;

    RefundLogScript(RScript scripts) {
        this.scripts = scripts;
    }

    /**
     * @param entry the decision's entry id, null when unknown
     * @return whether an entry was removed (none: it left the window already)
     */
    CompletionStage<Boolean> call(String log, long permits, String entry) {
        return scripts.<Long>evalAsync(log, RScript.Mode.READ_WRITE, TEXT, RScript.ReturnType.LONG,
                        RedissonNames.log(log), Long.toString(permits), entry == null ? UNKNOWN : entry)
                .thenApply(removed -> removed == 1L);
    }
}
