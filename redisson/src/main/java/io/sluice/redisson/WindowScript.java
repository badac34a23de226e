package io.sluice.redisson;

import io.sluice.spi.RateOutcome;
import io.sluice.spi.RateRequest;

import java.util.List;

/**
 * {@code fixed-window.lua} or {@code sliding-window.lua} (after {@code redis-time.lua}): a window's counter(s) on Redis
 * time. The two scripts take the same arguments and answer alike.
 */
final class WindowScript extends DecisionScript {
    private final boolean callerTime;

    /** @param file the window's script */
    WindowScript(boolean callerTime, String file) {
        super(6, 1, 6, 0, false, "shared/redis-time.lua", file);
        this.callerTime = callerTime;
    }

    @Override
    String[] arguments(RateRequest r, String mode, String now) {
        return new String[] {time(callerTime, now), Long.toString(r.period().toMillis()), Long.toString(r.limit()),
                Long.toString(r.effectiveLimit()), Long.toString(r.cost()), mode};
    }

    @Override
    RateOutcome outcome(RateRequest r, List<Object> v, int at) {
        return sixNumbers(v, at);
    }
}
