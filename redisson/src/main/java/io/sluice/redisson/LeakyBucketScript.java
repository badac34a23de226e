package io.sluice.redisson;

import io.sluice.spi.Entry;
import io.sluice.spi.RateOutcome;
import io.sluice.spi.RateRequest;

import java.util.List;

/** {@code leaky-bucket.lua} (after {@code redis-time.lua}): a leaky bucket's pace and queue on Redis time. */
final class LeakyBucketScript extends DecisionScript {
    private final boolean callerTime;

    LeakyBucketScript(boolean callerTime) {
        super(5, 1, 7, 0, false, "shared/redis-time.lua", "rate/leaky-bucket.lua");
        this.callerTime = callerTime;
    }

    @Override
    String[] arguments(RateRequest r, String mode, String now) {
        return new String[] {time(callerTime, now), Long.toString(r.period().toMillis()), Long.toString(r.effectiveLimit()),
                Long.toString(r.queue()), Long.toString(r.cost())};
    }

    @Override
    RateOutcome outcome(RateRequest r, List<Object> v, int at) {
        RateOutcome o = sixNumbers(v, at);
        if (!o.allowed()) return o;
        // The end of the slot taken: the entry a late answer's slot is given back by (UndoSlotScript).
        return o.withEntry(new Entry.SlotEnd(number(v, at + 6)));
    }
}
