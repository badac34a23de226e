package io.sluice.redisson;

import io.sluice.spi.Entry;
import org.redisson.api.RScript;

import java.util.concurrent.CompletionStage;

/**
 * {@code refund-log.lua}: hands back permits a sliding-log decision took: its own log entry, by the id its answer
 * carried; a prefetched stock's use, by the stock's id and the use's time; without either, the newest log entry of
 * exactly that many permits (never a prefetched stock's).
 */
final class RefundLogScript {
    private static final String TEXT = LuaScript.of("rate/refund-log.lua");
    /** The script's "no entry id known". */
    private static final String UNKNOWN = "";
    /** What separates a stock's id from the time of its use in the script's argument (never in an id). */
    private static final char USE_MARK = '@';

    private final RScript scripts;

    RefundLogScript(RScript scripts) {
        this.scripts = scripts;
    }

    /**
     * @param entry the decision's log entry or stock use, null when unknown
     * @return whether an entry was removed (none: it left the window already)
     */
    CompletionStage<Boolean> call(String log, long permits, Entry entry) {
        return scripts.<Long>evalAsync(log, RScript.Mode.READ_WRITE, TEXT, RScript.ReturnType.LONG,
                        RedissonNames.log(log), Long.toString(permits), argument(entry))
                .thenApply(removed -> removed == 1L);
    }

    /** {@code entry} as the script reads it: the entry's id, or {@code <stockId>@<ms before the hold's end>} for a use. */
    static String argument(Entry entry) {
        if (entry instanceof Entry.StockUse use) return use.stockId() + USE_MARK + use.beforeEndMillis();
        Entry.LogEntry own = Entry.as(Entry.LogEntry.class, entry);
        return own == null ? UNKNOWN : own.id();
    }
}
